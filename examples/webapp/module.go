package webapp

import (
	"encoding/json"
	"net/http"

	"github.com/embedkit/embedkit/hostpage"
	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// ModulePath is the demo's module page: a dashboard embedded by the npm
// package's plain ES module (@embedkit/host), imported as it is, where
// the dashboard pages use the kit's served host script and the React
// page the package's React component.
const ModulePath = "/module"

// ModuleScriptPath is the module page's script (web/static/module.js).
const ModuleScriptPath = "/static/module.js"

// HostModulesPath is where the demo serves the package's ES modules
// (hostpage.Modules), for the module page to import.
const HostModulesPath = "/embed/module/"

// moduleConfig is what the module page's script reads from its root
// element.
type moduleConfig struct {
	// Settings are the kit's host settings, given to configure().
	Settings middleware.HostSettings `json:"settings"`
}

// hostModules serves the package's ES modules under HostModulesPath.
func hostModules() http.Handler {
	files := http.StripPrefix(HostModulesPath[:len(HostModulesPath)-1], http.FileServerFS(hostpage.Modules()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// modulePage serves the module page to a signed-in viewer: the first
// dashboard, minted as the page renders as on /dashboards/{publicId},
// its iframe carrying data-embedkit-target so that the module re-mints
// it through the session endpoint.
func (a *App) modulePage(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	if !a.haveDashboards(w, r, v) {
		return
	}
	cfg, ok := a.pageConfig(w, r, moduleConfig{Settings: a.kit.HostSettings()})
	if !ok {
		return
	}
	d := a.dashboards[0]
	src, ok := a.frameURL(w, r, a.dashTargets[d.PublicID])
	if !ok {
		return
	}
	a.render(w, r, http.StatusOK, templates.ModulePage(a.page(r, v, "Module", "module"), templates.ModuleView{
		Title:      "A dashboard through the ES module",
		Lead:       "The host page's npm package imported as a plain ES module, with no bundler: the frame's state, its events and a refresh that answers.",
		FrameSrc:   src,
		Target:     dashboardRef(d.PublicID),
		FrameTitle: d.Title,
		Config:     cfg,
		ScriptURL:  ModuleScriptPath,
	}))
}

// pageConfig encodes cfg, the settings a page's script reads from its
// root's data-config attribute (JSON). When it cannot, it answers as
// render does and ok is false.
func (a *App) pageConfig(w http.ResponseWriter, r *http.Request, cfg any) (string, bool) {
	b, err := json.Marshal(cfg)
	if err != nil {
		a.log.Error("webapp: encoding a page's settings", "path", r.URL.Path, "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return "", false
	}
	return string(b), true
}

// haveDashboards reports whether the demo has dashboards to show on a page
// that embeds one, and answers a page that says so when it has none.
func (a *App) haveDashboards(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) bool {
	if len(a.dashboards) > 0 {
		return true
	}
	e := templates.ErrorFor(templates.KindNotFound)
	e.Title = "No dashboards yet"
	e.Detail = "Your organisation hasn't shared any dashboards with you."
	a.errorPage(w, r, v, e)
	return false
}
