package webapp

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// Project is one of the customer projects a Ledgerly user works on. Its
// analytics page embeds a dashboard scoped to the project: the host
// checks that the viewer may see the project named by the route, then
// signs the project into the embed session's security context, so the
// platform's row-level security shows that project's figures only.
type Project struct {
	// ID is the project's id, the {id} of /projects/{id}.
	ID string
	// Name is the page heading.
	Name string
	// Description is shown on the list.
	Description string
	// Region is the sales region the project belongs to; viewers of that
	// region (their "region" attribute) may see it.
	Region string
	// Dashboard is the public id of the dashboard its page embeds. It is
	// registered as a RouteScoped target: only the project routes serve
	// it, always with the project signed in, so it must not also be one
	// of Config.Dashboards.
	Dashboard string
}

// DemoProjects are the projects of the built-in demo, two per region so
// that a viewer can see a project, and a neighbour's, side by side.
func DemoProjects() []Project {
	return []Project{
		{ID: "nordics-rollout", Name: "Nordics rollout", Description: "Invoicing for the Nordic subsidiaries.", Region: "EMEA", Dashboard: "project-analytics"},
		{ID: "iberia-pilot", Name: "Iberia pilot", Description: "The Spanish and Portuguese pilot customers.", Region: "EMEA", Dashboard: "project-analytics"},
		{ID: "great-lakes-retail", Name: "Great Lakes retail", Description: "Retail chains around the Great Lakes.", Region: "AMER", Dashboard: "project-analytics"},
		{ID: "andes-logistics", Name: "Andes logistics", Description: "Freight customers in the Andean countries.", Region: "AMER", Dashboard: "project-analytics"},
		{ID: "kansai-partners", Name: "Kansai partners", Description: "Reseller partners in the Kansai region.", Region: "APAC", Dashboard: "project-analytics"},
		{ID: "anz-services", Name: "ANZ services", Description: "Service contracts in Australia and New Zealand.", Region: "APAC", Dashboard: "project-analytics"},
	}
}

// projectsFor returns the projects v may see, in list order.
func (a *App) projectsFor(v *middleware.Viewer) []Project {
	region, _ := v.Attributes["region"].(string)
	var out []Project
	for _, p := range a.projects {
		if region != "" && strings.EqualFold(p.Region, region) {
			out = append(out, p)
		}
	}
	return out
}

// visibleProject is the host's own authorization check for project
// routes: the project named by the route, if v may see it.
func (a *App) visibleProject(v *middleware.Viewer, id string) (Project, bool) {
	for _, p := range a.projectsFor(v) {
		if p.ID == id {
			return p, true
		}
	}
	return Project{}, false
}

// projectList lists the projects the viewer may open.
func (a *App) projectList(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	var items []templates.ProjectItem
	for _, p := range a.projectsFor(v) {
		items = append(items, templates.ProjectItem{ID: p.ID, Name: p.Name, Description: p.Description})
	}
	a.render(w, r, http.StatusOK, templates.Projects(a.page(r, v, "Projects", "projects"), items))
}

// projectPage shows one project's analytics, its iframe pointing at the
// project's own frame route (projectFrame). A project the viewer may not
// see is not found, whether it exists or not.
//
// Unlike the dashboard pages, this page keeps the frame endpoint as its
// src rather than minting while it renders (FrameURL): the point of the
// route is its own check, which runs again on every load of the frame,
// and its target is RouteScoped, so the session endpoint cannot re-mint
// it by name. A frame whose platform URL was used up would have no way
// back but a reload of the page; the route re-mints by itself.
func (a *App) projectPage(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	p, found := a.visibleProject(v, r.PathValue("id"))
	if !found {
		a.errorPage(w, r, v, templates.ErrorFor(templates.KindNotFound))
		return
	}
	view := a.embedView(r, v, p.Name, projectFramePath(p.ID), projectFramePath(p.ID))
	view.Lead = "Figures of " + p.Name + " only: the project is signed into the embed session."
	a.render(w, r, http.StatusOK, templates.ProjectView(a.page(r, v, p.Name, "projects"), p.Name, view))
}

// projectFramePath is the iframe src of a project's embed.
func projectFramePath(id string) string { return "/projects/" + id + "/analytics/frame" }

// projectFrame resolves the target of a project page's iframe (its
// route is projectFramePath): after the same check as the page, the
// project's dashboard with the project signed into the session's security
// context. A viewer who edits the route reaches only projects the check
// allows; any other is not found.
func (a *App) projectFrame(r *http.Request, v *middleware.Viewer) (middleware.Target, error) {
	p, found := a.visibleProject(v, r.PathValue("id"))
	if !found {
		return middleware.Target{}, middleware.ErrUnknownTarget
	}
	t, ok := a.kit.Target(projectTargets(a.projects)[p.Dashboard])
	if !ok {
		return middleware.Target{}, fmt.Errorf("webapp: no target registered for the dashboard %s of project %s", p.Dashboard, p.ID)
	}
	t.SecurityContext = map[string]any{"project": p.ID}
	return t, nil
}

// projectTargets returns the names of the targets registered for the
// dashboards of projects, by public id: "project-1", "project-2", ... in
// the order the dashboards first appear. They are RouteScoped, so that
// only the project routes serve them.
func projectTargets(projects []Project) map[string]string {
	names := map[string]string{}
	for _, p := range projects {
		if _, ok := names[p.Dashboard]; !ok {
			names[p.Dashboard] = fmt.Sprintf("project-%d", len(names)+1)
		}
	}
	return names
}
