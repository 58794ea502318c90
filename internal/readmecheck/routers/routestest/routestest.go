// Package routestest checks, at run time, the routes a router example of
// docs/routers.md builds: TestRouterExamplesCompile adds a test calling
// Check to each example's package, so an example that compiles but
// mounts an endpoint where no request reaches it fails too.
package routestest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// Check builds a kit against the emulator, with no viewer signed in and
// one target, "sales", serves routes(kit, page, logout) and checks that
// every endpoint answers as the kit's own handler does, under
// SecurityHeaders: the page, the frame endpoint (GET and the renewal's
// HEAD probe), the session endpoint, the host script and logout.
func Check(t *testing.T, routes func(kit *middleware.Kit, salesPage http.HandlerFunc, yourLogout http.Handler) http.Handler) {
	t.Helper()
	p := embedkittest.NewPlatform(t)
	cfg := p.KitConfig()
	cfg.Identity = middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) { return nil, middleware.ErrNoViewer })
	cfg.Store = memstore.New()
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	page := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("the sales page")) }
	h := routes(kit, page, http.RedirectHandler("/", http.StatusSeeOther))
	tests := []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/sales", http.StatusOK},
		{http.MethodGet, kit.FramePrefix() + "sales", http.StatusUnauthorized},
		{http.MethodHead, kit.FramePrefix() + "sales", http.StatusUnauthorized},
		{http.MethodPost, kit.SessionPath(), http.StatusUnauthorized},
		{http.MethodGet, kit.SessionPath(), http.StatusMethodNotAllowed},
		{http.MethodGet, kit.HostScriptSrc("/embed/host.js"), http.StatusOK},
		{http.MethodHead, "/embed/host.js", http.StatusOK},
		{http.MethodPost, "/logout", http.StatusSeeOther},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(`{"target":"sales"}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, w.Code, tt.status)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src 'self' "+kit.PlatformOrigin()) {
			t.Errorf("%s %s: Content-Security-Policy %q, want the kit's frame-src", tt.method, tt.path, csp)
		}
	}
}
