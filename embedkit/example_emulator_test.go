package embedkit_test

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// The examples below run against the in-memory platform of package
// emulator with its built-in demo fixture and its dev-only admin key.
// They print only facts that are not secret: lengths, states, statuses.

// sessionState returns the emulator's state of a session id.
func sessionState(emu *emulator.Server, id string) string {
	for _, s := range emu.Sessions() {
		if s.SessionID == id {
			return s.State
		}
	}
	return "unknown"
}

func ExampleClient_GenerateSession_emulator() {
	emu, err := emulator.New(nil) // the demo fixture
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()

	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// Mint: the host's backend asks for a session for its signed-in viewer.
	s, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
		DeploymentID: 1,
		ExternalID:   "  Viewer-42 ", // sent trimmed and lower-cased
		Groups:       []string{"sales", "emea"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("session id length:", len(s.SessionID))
	fmt.Println("exchangeable for:", time.Until(s.ExpiresAt).Round(time.Minute))
	fmt.Println("state:", sessionState(emu, s.SessionID), "for", emu.Sessions()[0].ExternalID)

	// Exchange: normally the iframe does this, once.
	tok, err := c.ExchangeSession(ctx, s.SessionID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("token parts:", strings.Count(tok.Token, ".")+1)
	fmt.Println("state:", sessionState(emu, s.SessionID))
	_, err = c.ExchangeSession(ctx, s.SessionID)
	fmt.Println("second exchange unauthorized:", errors.Is(err, embedkit.ErrUnauthorized))

	// Revoke at logout: the token stops working.
	if err := c.RevokeSession(ctx, s.SessionID); err != nil {
		log.Fatal(err)
	}
	fmt.Println("state:", sessionState(emu, s.SessionID))
	// Output:
	// session id length: 32
	// exchangeable for: 5m0s
	// state: unexchanged for viewer-42
	// token parts: 3
	// state: exchanged
	// second exchange unauthorized: true
	// state: revoked
}

func ExampleClient_GenerateSession_emulatorErrors() {
	emu, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	ctx := context.Background()
	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}

	_, err = c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
		DeploymentID: 1, ExternalID: "viewer-42", Groups: []string{"sales", "ghosts"},
	})
	var missing *embedkit.GroupsNotFoundError
	if errors.As(err, &missing) {
		fmt.Println("missing groups:", missing.Names)
	}

	_, err = c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
		DeploymentID: 1, ExternalID: "viewer-42",
		UserAttributes: []embedkit.UserAttributeInput{{Name: "shoe_size", Value: 42}},
	})
	fmt.Println("unknown attribute:", errors.Is(err, embedkit.ErrUserAttributesNotFound))

	personal, err := embedkit.New(srv.URL, "ek_dev_only_personal")
	if err != nil {
		log.Fatal(err)
	}
	_, err = personal.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer-42"})
	fmt.Println("personal key forbidden:", errors.Is(err, embedkit.ErrForbidden))

	// Refused before sending: nothing reached the platform.
	before := len(emu.Requests())
	_, err = c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1})
	fmt.Println(err)
	fmt.Println("requests sent:", len(emu.Requests())-before)
	// Output:
	// missing groups: [ghosts]
	// unknown attribute: true
	// personal key forbidden: true
	// embedkit: invalid generate-session request: externalId: give exactly one of externalId or internalId
	// requests sent: 0
}

func ExampleClient_WaitDashboardExport_emulator() {
	emu, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all",
		embedkit.WithExportPollInterval(10*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{
		DashboardPublicID: "sales-overview",
		Format:            embedkit.FormatPNG,
	})
	if err != nil {
		log.Fatal(err)
	}
	st, err := c.WaitDashboardExport(ctx, 1, job)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("status:", st.Status)

	f, err := c.DownloadDashboardExport(ctx, 1, job.JobID, "sales")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Body.Close()
	img, err := png.Decode(f.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("file:", f.Filename, f.ContentType, img.Bounds().Dx() > 0)

	// A dashboard that fails to render.
	job, err = c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{
		DashboardPublicID: "broken-board",
		Format:            embedkit.FormatPDF,
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.WaitDashboardExport(ctx, 1, job)
	var failed *embedkit.ExportFailedError
	if errors.As(err, &failed) {
		fmt.Println("failed:", failed.Reason)
	}
	// Output:
	// status: completed
	// file: sales.png image/png true
	// failed: widget 3 failed to load
}

func ExampleClient_ExportAuditLog_emulator() {
	emu, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}

	a, err := c.ExportAuditLog(context.Background(), embedkit.AuditLogOptions{EventName: "Logged in"})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	fmt.Println(a.Header())
	for row, err := range a.Rows() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row[0], row[1], row[2])
	}
	// Output:
	// [time eventName userEmail data]
	// 2026-03-01T10:00:00Z Logged in dana@acme.test
	// 2026-03-02T08:30:00Z Logged in admin@acme.test
	// 2026-03-03T12:00:00Z Logged in admin@acme.test
}

func ExampleClient_Do_emulator() {
	emu, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}

	// An operation the specification lists by path only.
	req, err := c.NewRequest(context.Background(), http.MethodGet, "/api/v1/users/me", nil)
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Do(req, nil)
	var apiErr *embedkit.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Message)
	}
	// Output:
	// 501 not implemented by the emulator
}

// A host checks that a dashboard can be embedded before offering it: the
// embed token of one session asks about each dashboard, and the session is
// revoked afterwards.
func ExampleClient_CheckEmbedDashboard() {
	f := emulator.DemoFixture()
	off := false
	f.Deployments[0].Dashboards[1].AllowEmbed = &off // "Allow signed embedding" off for regional-performance
	emu, err := emulator.New(f)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	ctx := context.Background()
	c, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}

	s, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "embed-check"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.RevokeSession(ctx, s.SessionID)
	tok, err := c.ExchangeSession(ctx, s.SessionID)
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range []string{"sales-overview", "regional-performance", "draft-board"} {
		err := c.CheckEmbedDashboard(ctx, tok, id)
		var ae *embedkit.APIError
		switch {
		case err == nil:
			fmt.Println(id, "can be embedded")
		case errors.As(err, &ae):
			fmt.Println(id, "refused:", ae.StatusCode)
		default:
			log.Fatal(err)
		}
	}
	// Output:
	// sales-overview can be embedded
	// regional-performance refused: 403
	// draft-board refused: 404
}
