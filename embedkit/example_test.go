package embedkit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// platform starts a stand-in for the platform serving the given routes.
func platform(routes map[string]http.HandlerFunc) *httptest.Server {
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.HandleFunc(pattern, h)
	}
	return httptest.NewServer(mux)
}

func ExampleNew() {
	srv := platform(map[string]http.HandlerFunc{
		"GET /api/v1/deployments/{id}/versions": func(w http.ResponseWriter, r *http.Request) {
			fmt.Println("User-Agent:", r.Header.Get("User-Agent"))
			io.WriteString(w, `{"data":[{"version":"1.7.20","isCurrent":true}]}`)
		},
	})
	defer srv.Close()

	// In production: the tenant's https URL and a key from the environment.
	c, err := embedkit.New(srv.URL, "example-api-key", embedkit.WithUserAgent("acme-portal/2.1"))
	if err != nil {
		log.Fatal(err)
	}
	versions, err := c.ListVersions(context.Background(), 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("current:", versions[0].Version)

	// Plain http is refused for anything but loopback hosts.
	_, err = embedkit.New("http://analytics.example.com", "example-api-key")
	fmt.Println(err)
	// Output:
	// User-Agent: acme-portal/2.1 embedkit-go/0.1.0
	// current: 1.7.20
	// embedkit: base URL must be https (plain http is allowed only for loopback hosts, not "analytics.example.com")
}

func ExampleClient_GenerateSession() {
	srv := platform(map[string]http.HandlerFunc{
		"POST /api/v1/embed/generate-session": func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			fmt.Println("sent:", string(body))
			io.WriteString(w, `{"sessionId":"5f0c6ad0a3b94a1e9d1f6a7b8c9d0e1f"}`)
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}

	s, err := c.GenerateSession(context.Background(), &embedkit.GenerateSessionRequest{
		DeploymentID: 42,
		ExternalID:   " Jane@Example.com ", // sent trimmed and lower-cased
		Groups:       []string{"sales"},
		Settings:     &embedkit.EmbedSessionSettings{Locale: new("de-DE")},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Put s.SessionID in the iframe URL; printing s never shows it.
	fmt.Println(s.SessionID == "5f0c6ad0a3b94a1e9d1f6a7b8c9d0e1f", strings.Contains(fmt.Sprint(s), s.SessionID))
	// Output:
	// sent: {"deploymentId":42,"externalId":"jane@example.com","groups":["sales"],"settings":{"locale":"de-DE"}}
	// true false
}

func ExampleClient_RevokeSession() {
	srv := platform(map[string]http.HandlerFunc{
		"POST /api/v1/embed/session/revoke": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent) // also for unknown or expired ids
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}
	// At logout, revoke every session id minted for the host session.
	err = c.RevokeSession(context.Background(), "5f0c6ad0a3b94a1e9d1f6a7b8c9d0e1f")
	fmt.Println("revoked:", err == nil)
	// Output: revoked: true
}

func ExampleClient_Deployments() {
	srv := platform(map[string]http.HandlerFunc{
		"GET /api/v1/deployments": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"data":{"deployments":[{"id":"1","name":"production","created_at":"2024-05-01T10:00:00Z"},{"id":"2","name":"staging","created_at":"2024-06-01T10:00:00Z"}]},"pagination":{"offset":0,"limit":100,"total":2}}`)
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}
	for d, err := range c.Deployments(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.ID, d.Name, d.CreatedAt.Format(time.DateOnly))
	}
	// Output:
	// 1 production 2024-05-01
	// 2 staging 2024-06-01
}

func ExampleClient_ExportAuditLog() {
	srv := platform(map[string]http.HandlerFunc{
		"GET /api/v1/audit-logs/export": func(w http.ResponseWriter, r *http.Request) {
			fmt.Println("query:", r.URL.RawQuery)
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="audit.csv"`)
			io.WriteString(w, "timestamp,user email,event name\n2024-01-01T09:00:00Z,jane@example.com,Logged in\n2024-01-01T09:05:00Z,jane@example.com,Created deployment\n")
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}
	audit, err := c.ExportAuditLog(context.Background(), embedkit.AuditLogOptions{
		Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		End:   time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer audit.Close()
	fmt.Println(audit.Filename(), audit.Header())
	// Rows are read from the response as they arrive.
	for row, err := range audit.Rows() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row[2])
	}
	// Output:
	// query: end=2024-02-01&start=2024-01-01
	// audit.csv [timestamp user email event name]
	// Logged in
	// Created deployment
}

func ExampleClient_WaitDashboardExport() {
	var polls atomic.Int32
	srv := platform(map[string]http.HandlerFunc{
		"POST /api/v1/deployments/42/dashboard-exports": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"jobId":"job-7","expiresAt":%q}`, time.Now().Add(5*time.Minute).Format(time.RFC3339))
		},
		"GET /api/v1/deployments/42/dashboard-exports/job-7": func(w http.ResponseWriter, r *http.Request) {
			if polls.Add(1) < 3 {
				io.WriteString(w, `{"status":"processing"}`)
				return
			}
			io.WriteString(w, `{"status":"completed","contentType":"application/pdf"}`)
		},
		"GET /api/v1/deployments/42/dashboard-exports/job-7/download": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Disposition", `attachment; filename="q3-report.pdf"`)
			io.WriteString(w, "%PDF-1.7 example")
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key", embedkit.WithExportPollInterval(10*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	job, err := c.SubmitDashboardExport(ctx, 42, &embedkit.DashboardExportRequest{DashboardPublicID: "q3-report", Format: embedkit.FormatPDF})
	if err != nil {
		log.Fatal(err)
	}
	st, err := c.WaitDashboardExport(ctx, 42, job)
	var failed *embedkit.ExportFailedError
	switch {
	case errors.As(err, &failed):
		log.Fatalf("render failed: %s", failed.Reason)
	case errors.Is(err, embedkit.ErrExportExpired):
		log.Fatal("too slow: submit again")
	case err != nil:
		log.Fatal(err)
	}
	f, err := c.DownloadDashboardExport(ctx, 42, job.JobID, "q3-report")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Body.Close()
	n, _ := io.Copy(io.Discard, f.Body)
	fmt.Println(st.Status, f.Filename, f.ContentType, n, "bytes")
	// Output: completed q3-report.pdf application/pdf 16 bytes
}

func ExampleClient_Do() {
	srv := platform(map[string]http.HandlerFunc{
		"GET /api/v1/users/me": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"email":"admin@example.com"}`)
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}
	// Operations without a method of their own: same auth, retries, errors.
	req, err := c.NewRequest(context.Background(), http.MethodGet, "/api/v1/users/me", nil)
	if err != nil {
		log.Fatal(err)
	}
	var me struct {
		Email string `json:"email"`
	}
	if _, err := c.Do(req, &me); err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.Email)
	// Output: admin@example.com
}

func ExampleAPIError() {
	srv := platform(map[string]http.HandlerFunc{
		"POST /api/v1/embed/generate-session": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"Groups with names sales, finance not found"}`)
		},
	})
	defer srv.Close()
	c, err := embedkit.New(srv.URL, "example-api-key")
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.GenerateSession(context.Background(), &embedkit.GenerateSessionRequest{
		DeploymentID: 42, ExternalID: "jane", Groups: []string{"sales", "finance"},
	})
	fmt.Println(err)
	var missing *embedkit.GroupsNotFoundError
	if errors.As(err, &missing) {
		fmt.Println("missing groups:", missing.Names)
	}
	fmt.Println("forbidden?", errors.Is(err, embedkit.ErrForbidden))
	// Output:
	// embedkit: POST /api/v1/embed/generate-session: 400 Bad Request: Groups with names sales, finance not found
	// missing groups: [sales finance]
	// forbidden? false
}

// IsLocale is the locale rule of session settings; the host script's
// setLocale follows the same rule.
func ExampleIsLocale() {
	for _, l := range []string{"de-DE", "zh-Hant-TW", "de_DE", "de DE"} {
		fmt.Println(l, embedkit.IsLocale(l))
	}
	// Output:
	// de-DE true
	// zh-Hant-TW true
	// de_DE false
	// de DE false
}
