// Package templates holds the demo host app's pages as templ components:
// the shared layout, the landing page, the dashboards list, an embedded
// dashboard with its display settings, the creator workspace and the
// error pages.
//
// Every page takes a Page (title, signed-in user, navigation, form
// token, flash notice) and a view model of plain structs defined in
// models.go; handlers fill them and call Render:
//
//	p := templates.Page{Title: "Dashboards", User: user, Nav: nav, CSRFToken: token}
//	err := templates.Dashboards(p, items).Render(r.Context(), w)
//
// The pages hold no inline script, no inline style and no style
// attribute, and load only /static/app.css, /static/app.js and the kit's
// host script, so they run under a strict Content-Security-Policy. Text
// is HTML-escaped and every URL taken from a view model (navigation
// links, dashboard links, the iframe src, the host script, error next
// steps) goes through templ.URL, which replaces javascript: and other
// unsafe schemes with a harmless placeholder.
//
// The stable DOM ids the app, its script and its tests rely on are:
// #main, #sign-in, #account-menu, #account-name, #account-tenant,
// #logout-form (marked data-embedkit-logout, so submitting it ends the
// embeds of every tab), #logout-button, #flash, #nav-menu (layout); #sign-in-cta
// or #dashboards-cta (home); #page-title, #dashboards, #dashboards-empty
// (dashboards); #embed-frame, #embed-status, #settings, #locale-select,
// #timezone-select, #scheme-select, #settings-save, #settings-status
// (embedded dashboard and workspace); #error-title, #error-detail and
// one of #error-retry, #error-sign-in, #error-back (error pages).
//
// The *_templ.go files are generated from the .templ files and
// committed. Regenerate them from the module root with "make generate"
// (go tool templ generate -path .): the generated error positions name
// the file relative to the -path given, and the test script checks the
// files against that command's output.
package templates
