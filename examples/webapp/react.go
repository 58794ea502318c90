package webapp

import (
	"net/http"

	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// ReactPath is the demo's React page: the dashboards embedded by the npm
// package's React component (@embedkit/host/react), where the other
// pages use the kit's served host script.
const ReactPath = "/react"

// ReactScriptPath is the React page's script, generated from
// web/static/reactapp by internal/reactbuild.
const ReactScriptPath = "/static/react.js"

// reactConfig is what the React page's script reads from its root
// element.
type reactConfig struct {
	// Settings are the kit's host settings, given to configure().
	Settings middleware.HostSettings `json:"settings"`
	// Dashboards are the frames the page offers, by target.
	Dashboards []reactDashboard `json:"dashboards"`
	// Filters are the live filters above the frame, as the dashboard
	// pages offer them.
	Filters []reactFilter `json:"filters"`
}

type reactDashboard struct {
	Target string `json:"target"`
	Title  string `json:"title"`
}

type reactFilter struct {
	Member string      `json:"member"`
	Label  string      `json:"label"`
	Values [][2]string `json:"values"`
}

// reactPage serves the React page to a signed-in viewer: the same
// dashboards and targets as /dashboards, embedded by <EmbedkitFrame> in
// React's StrictMode. The component's src is the kit's frame endpoint, by
// design: the page is rendered in the browser, not by a handler that
// could mint as it renders, so each mount mints as its frame loads.
func (a *App) reactPage(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	if !a.haveDashboards(w, r, v) {
		return
	}
	cfg := reactConfig{Settings: a.kit.HostSettings(), Dashboards: []reactDashboard{}, Filters: []reactFilter{}}
	for _, d := range a.dashboards {
		cfg.Dashboards = append(cfg.Dashboards, reactDashboard{Target: dashboardRef(d.PublicID), Title: d.Title})
	}
	// The page's filter bar offers the first dashboard's filters; the
	// demo's dashboards share them.
	for _, f := range a.dashboards[0].Filters {
		cfg.Filters = append(cfg.Filters, reactFilter(f))
	}
	config, ok := a.pageConfig(w, r, cfg)
	if !ok {
		return
	}
	a.render(w, r, http.StatusOK, templates.ReactPage(a.page(r, v, "React", "react"), templates.ReactView{
		Title:     "Dashboards in React",
		Lead:      "The same dashboards, embedded by the npm package's React component in StrictMode: one frame, one session per mount.",
		Config:    config,
		ScriptURL: ReactScriptPath,
	}))
}
