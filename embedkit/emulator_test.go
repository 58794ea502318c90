package embedkit_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/testkit"
)

// The *_emulator_test.go files run the client against the in-memory
// platform, area by area beside each area's own tests: the client was
// written against the specification and tested with hand-written
// handlers, the emulator was written against the same specification and
// tested with raw HTTP. There each one checks the other. This file holds
// their shared set-up.

// The dev-only keys of the emulator's demo fixture.
const (
	keyAdminAll = "ek_dev_only_admin_all"
	keyAdminD1  = "ek_dev_only_admin_d1"
	keyPersonal = "ek_dev_only_personal"
	// keyAdminPersonal is a personal key of the admin user, added by
	// emuFixture: admin rights, but personal keys cannot mint sessions.
	keyAdminPersonal = "ek_test_admin_personal"
)

// emuEnv is an emulator behind an httptest server, with a virtual wall
// clock shared by the emulator (as its base clock) and the client, so
// expiries computed on both sides line up. The clock stands still unless a
// test moves it; the emulator's Advance moves only the emulator.
type emuEnv struct {
	emu   *emulator.Server
	url   string
	clock *testkit.Clock
}

// emuStart is the instant the shared clock shows in every test.
var emuStart = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// emuFixture is the demo fixture with two more deployments, so that
// offset pagination has pages to turn and the d1-scoped key has a
// deployment outside its scope, and with a personal key of the admin.
func emuFixture() *emulator.Fixture {
	f := emulator.DemoFixture()
	f.APIKeys = append(f.APIKeys, emulator.APIKey{Key: keyAdminPersonal, User: "admin", Personal: true})
	f.Deployments = append(f.Deployments,
		emulator.Deployment{ID: 2, Name: "Finance", CreatedAt: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)},
		emulator.Deployment{ID: 3, Name: "Operations", CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
	)
	return f
}

// startEmulator serves a fresh emulator with emuFixture for one test.
func startEmulator(t *testing.T) *emuEnv {
	t.Helper()
	clk := testkit.NewClock(emuStart)
	emu, err := emulator.New(emuFixture(), emulator.WithClock(clk.Now))
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	ts := httptest.NewServer(emu)
	t.Cleanup(ts.Close)
	return &emuEnv{emu: emu, url: ts.URL, clock: clk}
}

// client returns a client of the emulator with key, sharing the clock,
// polling exports quickly and never retrying (every answer the tests
// expect is the first one).
func (e *emuEnv) client(t *testing.T, key string, opts ...embedkit.Option) *embedkit.Client {
	t.Helper()
	base := []embedkit.Option{
		embedkit.WithClock(e.clock.Now),
		embedkit.WithExportPollInterval(time.Millisecond, 5*time.Millisecond),
		embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}),
	}
	c, err := embedkit.New(e.url, key, append(base, opts...)...)
	if err != nil {
		t.Fatalf("embedkit.New: %v", err)
	}
	return c
}

// mustSession mints a session for an external viewer of deployment 1.
func (e *emuEnv) mustSession(t *testing.T, c *embedkit.Client, externalID string) *embedkit.Session {
	t.Helper()
	s, err := c.GenerateSession(context.Background(), &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: externalID})
	if err != nil {
		t.Fatalf("GenerateSession: %v", err)
	}
	return s
}

// sessionInfo returns the emulator's record of a session id.
func (e *emuEnv) sessionInfo(t *testing.T, id string) emulator.SessionInfo {
	t.Helper()
	for _, si := range e.emu.Sessions() {
		if si.SessionID == id {
			return si
		}
	}
	t.Fatalf("the emulator holds no session with the minted id (%d sessions)", len(e.emu.Sessions()))
	return emulator.SessionInfo{}
}

// wantAPIError checks that err is an *APIError with status and a message
// containing msg.
func wantAPIError(t *testing.T, err error, status int, msg string) *embedkit.APIError {
	t.Helper()
	var ae *embedkit.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *embedkit.APIError %d", err, err, status)
	}
	if ae.StatusCode != status {
		t.Fatalf("status = %d (%s), want %d", ae.StatusCode, ae.Message, status)
	}
	if !strings.Contains(ae.Message, msg) {
		t.Fatalf("message = %q, want it to contain %q", ae.Message, msg)
	}
	return ae
}

// wantValidation checks that err is a *ValidationError naming field.
func wantValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *embedkit.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *embedkit.ValidationError", err, err)
	}
	if !errors.Is(err, embedkit.ErrInvalidRequest) {
		t.Fatalf("errors.Is(%v, ErrInvalidRequest) = false", err)
	}
	if _, ok := ve.Field(field); !ok {
		t.Fatalf("validation error %v does not name %s", err, field)
	}
}

// jwtClaims decodes the payload of a signed token without verifying it;
// the tests read lifetimes out of it and never print it.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts, want 3", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("token payload is not base64url: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatalf("token payload is not JSON: %v", err)
	}
	return claims
}

// lifetime is exp − iat of a token, in seconds.
func lifetime(t *testing.T, token string) int64 {
	t.Helper()
	c := jwtClaims(t, token)
	exp, _ := c["exp"].(float64)
	iat, _ := c["iat"].(float64)
	return int64(exp - iat)
}

var sessionIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)
