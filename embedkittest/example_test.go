package embedkittest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// A host app's test: start the platform, build the app's Kit on it, load
// a frame as a signed-in viewer, log out, and check that logout revoked
// the viewer's sessions. The frame load is checked for secrets on the
// way, with the session id expected in the redirect only; the Kit's logs
// are checked too.
func Example() {
	t := newExampleT() // in a host app's test, the test's *testing.T
	defer t.finish()

	p := embedkittest.NewPlatform(t)
	cfg := p.KitConfig()
	cfg.Identity = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
		if user := r.Header.Get("X-User"); user != "" { // stands in for the host's session
			return &middleware.Viewer{Subject: user}, nil
		}
		return nil, middleware.ErrNoViewer
	})
	cfg.Store = memstore.New()
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}

	load := embedkittest.NewRecorder(t, p, embedkittest.AllowFrameRedirect())
	kit.FrameHandler().ServeHTTP(load, asUser("ana", http.MethodGet, "/embed/frame/sales"))
	logout := httptest.NewRecorder()
	kit.Logout(http.RedirectHandler("/", http.StatusSeeOther)).ServeHTTP(logout, asUser("ana", http.MethodPost, "/logout"))
	embedkittest.AssertRevoked(t, p, "ana")

	fmt.Println(load.Code, logout.Code, p.Emulator().Sessions()[0].State)
	// Output: 303 303 revoked
}

// asUser is a request of the signed-in user.
func asUser(user, method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Header.Set("X-User", user)
	return r
}
