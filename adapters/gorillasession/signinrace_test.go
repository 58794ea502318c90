package gorillasession_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/raceplatform"
	"github.com/embedkit/embedkit/middleware"
)

// TestSignInOverRacesAMint: a sign-in over a login leaves none of that
// login's sessions live, even one a frame load of it was minting
// meanwhile:
//   - at the platform: the load's mint is held at the platform while the
//     whole sign-in runs; once it records the id, the Kit finds the login
//     ended and revokes the id;
//   - during the revokes: a load that begins while Save revokes (before
//     the login is ended) records its id after Save's take; Save's second
//     take, after ending the login, revokes it.
func TestSignInOverRacesAMint(t *testing.T) {
	for _, tc := range []string{"at the platform", "during the revokes"} {
		t.Run(tc, func(t *testing.T) {
			id, store := newIdentity(t)
			var p *raceplatform.Platform
			h := newHost(t, id, store, gorillasession.NewMemoryEndedLogins(0), raceplatform.Wrap(t, &p))
			browser := h.signedInWithAFrame(t, "ana")
			// The frame load of ana's login and the sign-in over it are sent
			// with the browser's cookie, straight through the transport, so
			// that they can overlap.
			base, err := url.Parse(h.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			cookies := browser.Jar.Cookies(base)
			transport := h.srv.Client().Transport
			send := func(method, path string) <-chan int {
				code := make(chan int, 1)
				go func() {
					req, _ := http.NewRequest(method, h.srv.URL+path, nil)
					for _, c := range cookies {
						req.AddCookie(c)
					}
					resp, err := transport.RoundTrip(req)
					if err != nil {
						code <- 0
						return
					}
					resp.Body.Close()
					code <- resp.StatusCode
				}()
				return code
			}
			within := func(ch <-chan struct{}, what string) {
				t.Helper()
				select {
				case <-ch:
				case <-time.After(20 * time.Second):
					t.Fatalf("%s: not within 20 s", what)
				}
			}
			signedInOver := func(code int) {
				t.Helper()
				if code != http.StatusOK {
					t.Errorf("sign-in of bea over ana's login: %d", code)
				}
			}
			const framePath, loginPath = middleware.DefaultFramePrefix + "sales", "/login?sub=bea"
			switch tc {
			case "at the platform":
				minted, release := p.HoldNextMint()
				load := send(http.MethodGet, framePath)
				within(minted, "the frame load's mint at the platform")
				signedInOver(<-send(http.MethodPost, loginPath))
				release()
				if code := <-load; code == http.StatusSeeOther {
					t.Errorf("the load that raced the sign-in was sent to the platform (%d)", code)
				}
			case "during the revokes":
				revoking := p.SlowRevokes(300 * time.Millisecond)
				signIn := send(http.MethodPost, loginPath)
				within(revoking, "the sign-in's first revoke")
				if code := <-send(http.MethodGet, framePath); code != http.StatusSeeOther {
					t.Errorf("the load begun during the sign-in's revokes: %d, want 303 (its mint is what the race is about)", code)
				}
				signedInOver(<-signIn)
			}
			embedkittest.AssertRevoked(t, h.p, "ana")
		})
	}
}
