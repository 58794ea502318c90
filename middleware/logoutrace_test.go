package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/internal/raceplatform"
	"github.com/embedkit/embedkit/middleware"
)

// TestLogoutRacesAMint: a mint that races a logout never leaves a live
// session behind. Checklist 13: logout revokes every embed session id of
// the host session, including one whose record lands after the logout's
// take.
//   - at the platform: the frame load passed its viewer check and the
//     platform made the session, but its answer arrives only after the
//     whole logout ran; the load finds the login ended, revokes the id it
//     just recorded and sends nobody to the platform.
//   - during the revokes: a frame load that starts while the logout is
//     revoking (the host's handler has not ended the login yet) mints and
//     records its id after the take; the logout's second take, after the
//     host's handler, revokes it.
func TestLogoutRacesAMint(t *testing.T) {
	for _, tc := range []string{"at the platform", "during the revokes"} {
		t.Run(tc, func(t *testing.T) {
			plat := newRelPlatform(t)
			em, srv := plat.em, plat.srv
			client, err := embedkit.New(srv.URL, relAPIKey, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			p := &raceplatform.Platform{Client: client}
			cookieStore := gorillasession.SecureCookieStore([]byte("logout race test hash key, 32 by"))
			cookieStore.Options.Secure = false // httptest requests are plain http
			id := gorillasession.New(cookieStore, "host-session")
			id.EndedLogins = gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second)
			kit, err := middleware.New(middleware.Config{
				Platform: p, Identity: id, Store: memstore.New(),
				Policy:      middleware.Policy{DeploymentID: 1},
				PlatformURL: srv.URL,
				Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			mux.Handle("/embed/frame/", kit.FrameHandler())
			mux.Handle("/logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := id.Clear(w, r); err != nil {
					t.Errorf("Clear: %v", err)
				}
				w.WriteHeader(http.StatusNoContent)
			})))

			login := httptest.NewRecorder()
			if err := id.Save(login, httptest.NewRequest(http.MethodPost, "/login", nil), &middleware.Viewer{Subject: "ana"}); err != nil {
				t.Fatal(err)
			}
			cookies := login.Result().Cookies()
			req := func(method, path string) *http.Request {
				r := httptest.NewRequest(method, path, nil)
				for _, c := range cookies {
					r.AddCookie(c)
				}
				r.Header.Set("Sec-Fetch-Site", "same-origin")
				return r
			}
			// An earlier load, so the logout has an id to revoke.
			first := httptest.NewRecorder()
			mux.ServeHTTP(first, req(http.MethodGet, "/embed/frame/sales"))
			if first.Code != http.StatusSeeOther {
				t.Fatalf("first frame load: %d", first.Code)
			}

			logout := func() {
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, req(http.MethodPost, "/logout"))
				if w.Code != http.StatusNoContent {
					t.Errorf("logout: %d", w.Code)
				}
			}
			load := make(chan *httptest.ResponseRecorder, 1)
			startLoad := func() {
				go func() {
					w := httptest.NewRecorder()
					mux.ServeHTTP(w, req(http.MethodGet, "/embed/frame/sales"))
					load <- w
				}()
			}
			var racing *httptest.ResponseRecorder
			switch tc {
			case "at the platform":
				minted, release := p.HoldNextMint()
				startLoad()
				<-minted
				logout()
				release()
				racing = <-load
				if loc := racing.Header().Get("Location"); racing.Code == http.StatusSeeOther {
					if u, err := url.Parse(loc); err == nil && u.Query().Get("session") != "" {
						t.Errorf("the load that raced the logout was sent to the platform with a session (%d)", racing.Code)
					}
				}
			case "during the revokes":
				revoking := p.SlowRevokes(300 * time.Millisecond)
				done := make(chan struct{})
				go func() { logout(); close(done) }()
				<-revoking
				startLoad()
				racing = <-load
				<-done
			}

			// Every session the emulator made for ana is revoked once the
			// logout and the racing load are over.
			sessions := em.Sessions()
			if len(sessions) != 2 {
				t.Fatalf("the emulator made %d sessions, want 2 (the first load's and the racing load's)", len(sessions))
			}
			for _, s := range sessions {
				if s.State != "revoked" {
					t.Errorf("session %s is %q after the logout, want revoked (racing load answered %d)", embedkit.Redact(s.SessionID), s.State, racing.Code)
				}
			}
		})
	}
}
