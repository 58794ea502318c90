package gorillasession_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
)

// TestNoEndedLoginsWarning: a logout on a cookie store without
// EndedLogins does not stick (a copy of the cookie signs in until its
// MaxAge), and nothing else says so: the first such Clear of a login logs
// one warning, naming the fix. A list of ended logins, a server-side
// store (which deletes the session) and a Clear with nobody signed in
// warn of nothing.
func TestNoEndedLoginsWarning(t *testing.T) {
	tests := []struct {
		name     string
		store    func(t *testing.T) sessions.Store
		ended    bool // EndedLogins set
		signIn   bool
		wantWarn bool
	}{
		{"cookie store without EndedLogins", cookieStore, false, true, true},
		{"cookie store with EndedLogins", cookieStore, true, true, false},
		{"server-side store without EndedLogins", func(t *testing.T) sessions.Store {
			return sessions.NewFilesystemStore(t.TempDir(), keyNew)
		}, false, true, false},
		{"logout with nobody signed in", cookieStore, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			id := gorillasession.New(tt.store(t), cookieName)
			id.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			if tt.ended {
				id.EndedLogins = gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second)
			}
			// Two viewers sign in and out.
			for _, sub := range []string{"ana", "bea"} {
				b := newBrowser(t)
				if tt.signIn {
					login(t, b, id, &middleware.Viewer{Subject: sub})
				}
				b.do(func(w http.ResponseWriter, r *http.Request) {
					if err := id.Clear(w, r); err != nil {
						t.Errorf("Clear: %v", err)
					}
				})
			}
			got := logs.String()
			if n := strings.Count(got, "level=WARN"); (n == 1) != tt.wantWarn || n > 1 {
				t.Fatalf("%d warnings, want %v:\n%s", n, tt.wantWarn, got)
			}
			if tt.wantWarn {
				for _, s := range []string{"Identity.EndedLogins is nil", "NewMemoryEndedLogins", "redisstore.NewEndedLogins", "session=" + cookieName, "max_age_seconds=28800"} {
					if !strings.Contains(got, s) {
						t.Errorf("the warning lacks %q:\n%s", s, got)
					}
				}
			}
		})
	}
}

// cookieStore is SecureCookieStore's.
func cookieStore(*testing.T) sessions.Store { return gorillasession.SecureCookieStore(keyNew) }
