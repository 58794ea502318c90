package embedkittest_test

import (
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// A host app's test: start the platform, build the app's Kit on it, open
// the app's dashboard page as a signed-in viewer, log out, and check that
// logout revoked the viewer's sessions. The page is checked for secrets on
// the way, with the session id expected in its iframe src only; the Kit's
// logs are checked too.
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
	sales := middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overview"}
	cfg.Targets = map[string]middleware.Target{"sales": sales}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The app's page, as the README's ten lines write it.
	page := template.Must(template.New("sales").Parse(`<iframe src="{{.Frame.URL}}" data-embedkit data-embedkit-target="sales"></iframe>`))
	salesPage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		frame, err := kit.PageFrame(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = page.Execute(w, map[string]any{"Frame": frame})
	})

	load := embedkittest.NewRecorder(t, p, embedkittest.AllowIframeSrc())
	salesPage.ServeHTTP(load, asUser("ana", http.MethodGet, "/sales"))
	logout := httptest.NewRecorder()
	kit.Logout(http.RedirectHandler("/", http.StatusSeeOther)).ServeHTTP(logout, asUser("ana", http.MethodPost, "/logout"))
	embedkittest.AssertRevoked(t, p, "ana")

	fmt.Println(load.Code, logout.Code, p.Emulator().Sessions()[0].State)
	// Output: 200 303 revoked
}

// asUser is a request of the signed-in user.
func asUser(user, method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Header.Set("X-User", user)
	return r
}
