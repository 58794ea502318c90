package gorillasession_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
)

// TestPlainHTTPWarning: a Secure session cookie on a request that came
// over plain http is the silent login loop; the Identity says so once, at
// Warn, with the fix, and only then.
func TestPlainHTTPWarning(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	tests := []struct {
		name     string
		secure   bool
		tls      bool
		origin   string // recorded by a trusted proxy (middleware.WithRequestOrigin)
		header   string // an X-Forwarded-Proto sent by the client itself
		wantWarn bool
	}{
		{"Secure cookie over plain http", true, false, "", "", true},
		{"Secure cookie, X-Forwarded-Proto from an untrusted client", true, false, "", "https", true},
		{"Secure cookie, a trusted proxy recorded http", true, false, "http://app.example.com", "", true},
		{"Secure cookie over TLS", true, true, "", "", false},
		{"Secure cookie, a trusted proxy recorded https", true, false, "https://app.example.com", "", false},
		{"development store over plain http", false, false, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := gorillasession.SecureCookieStore(key)
			store.Options.Secure = tt.secure
			var logs bytes.Buffer
			id := gorillasession.New(store, "app")
			id.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			request := func() *http.Request {
				r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/dashboards", nil)
				if tt.tls {
					r.TLS = &tls.ConnectionState{}
				}
				if tt.header != "" {
					r.Header.Set("X-Forwarded-Proto", tt.header)
				}
				if tt.origin != "" {
					r = r.WithContext(middleware.WithRequestOrigin(r.Context(), tt.origin))
				}
				return r
			}
			// A sign-in, then two page loads.
			if err := id.Save(httptest.NewRecorder(), request(), &middleware.Viewer{Subject: "ana", SessionKey: "k1"}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := id.Viewer(request()); err != nil && err != middleware.ErrNoViewer {
					t.Fatal(err)
				}
			}
			got := logs.String()
			if n := strings.Count(got, "level=WARN"); (n == 1) != tt.wantWarn || n > 1 {
				t.Fatalf("%d warnings, want %v:\n%s", n, tt.wantWarn, got)
			}
			if tt.wantWarn {
				for _, s := range []string{"plain http", "store.Options.Secure = false", "X-Forwarded-Proto", "session=app", "path=/dashboards"} {
					if !strings.Contains(got, s) {
						t.Errorf("the warning lacks %q:\n%s", s, got)
					}
				}
			}
		})
	}
}
