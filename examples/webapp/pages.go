package webapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// render writes a page with status.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		a.log.Error("webapp: rendering a page", "path", r.URL.Path, "err", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	body := buf.Bytes()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// errorPage renders e as a full page for v (nil: signed out), with e's
// status.
func (a *App) errorPage(w http.ResponseWriter, r *http.Request, v *middleware.Viewer, e templates.ErrorView) {
	a.render(w, r, e.Status, templates.ErrorPage(a.page(r, v, e.Title, ""), e))
}

// home is the landing page; a signed-in user goes to their dashboards.
func (a *App) home(w http.ResponseWriter, r *http.Request) {
	_, err := a.viewer(r)
	switch {
	case err == nil:
		http.Redirect(w, r, "/dashboards", http.StatusSeeOther)
		return
	case !errors.Is(err, middleware.ErrNoViewer):
		a.log.Error("webapp: reading the session", "err", err)
	}
	a.render(w, r, http.StatusOK, templates.Home(a.page(r, nil, "", "")))
}

// notFound answers every path the app does not serve.
func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	v, _ := a.viewer(r)
	a.errorPage(w, r, v, templates.ErrorFor(templates.KindNotFound))
}

// dashboardList lists the dashboards the app offers.
func (a *App) dashboardList(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	items := make([]templates.DashboardItem, len(a.dashboards))
	for i, d := range a.dashboards {
		items[i] = templates.DashboardItem{PublicID: d.PublicID, Title: d.Title, Description: d.Description}
	}
	a.render(w, r, http.StatusOK, templates.Dashboards(a.page(r, v, "Dashboards", "dashboards"), items))
}

// dashboardPage shows one registered dashboard. The handler mints the
// embed session as it renders (frameURL): the iframe src is the
// platform's URL, one browser round trip shorter than the frame endpoint,
// and the page is no-store, so a reload or a second tab renders it again
// with a new session. The host script re-mints the frame through the
// session endpoint, by its data-embedkit-target, when the frame loads
// again on its own or its session nears its end.
func (a *App) dashboardPage(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	d, found := a.byID[r.PathValue("publicId")]
	if !found {
		a.errorPage(w, r, v, templates.ErrorFor(templates.KindNotFound))
		return
	}
	src, ok := a.frameURL(w, r, a.dashTargets[d.PublicID])
	if !ok {
		return
	}
	view := a.embedView(r, v, d.Title, dashboardRef(d.PublicID), src)
	view.Filters = filterSelects(d.Filters)
	a.render(w, r, http.StatusOK, templates.DashboardView(a.page(r, v, d.Title, "dashboards"), view))
}

// creator shows the creator-mode workspace to viewers allowed it.
func (a *App) creator(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	if !a.creatorAllowed(v) {
		e := templates.ErrorFor(templates.KindForbidden)
		e.Title = "The workspace is not available to your account"
		e.Detail = "Building dashboards needs creator access for your organisation. Ask an administrator if you need it."
		a.errorPage(w, r, v, e)
		return
	}
	src, ok := a.frameURL(w, r, appTarget)
	if !ok {
		return
	}
	a.render(w, r, http.StatusOK, templates.CreatorView(a.page(r, v, "Workspace", "creator"), a.embedView(r, v, "Workspace", appTarget, src)))
}

// ask serves the analytics chat: questions in plain words, answered from
// the rows the viewer may see (the same security context as the
// dashboards). The page's event log shows each question's ai-query
// events.
func (a *App) ask(w http.ResponseWriter, r *http.Request) {
	v, ok := a.requireViewer(w, r)
	if !ok {
		return
	}
	src, ok := a.frameURL(w, r, askTarget)
	if !ok {
		return
	}
	ev := a.embedView(r, v, "Ask your data", askTarget, src)
	ev.Lead = "Ask in plain words; answers come only from the data your account may see."
	a.render(w, r, http.StatusOK, templates.AskView(a.page(r, v, "Ask", "ask"), ev))
}

// frameURL mints an embed session of the target registered as name for
// the viewer of r and returns the platform URL for the page's iframe,
// the README's default way to embed (middleware.Kit.FrameURL). It runs
// before anything of the page is written: FrameURL marks the response
// no-store, which render keeps. When it fails, the kit answers
// (ServeError: a signed-out viewer is sent to sign in, anything else goes
// to kitError, the app's error page) and ok is false.
//
// A HEAD of the page mints nothing (FrameURL returns no URL for it): no
// body is sent, and link checkers cost no session. Nor does a page that
// another site navigated to (a link in a web mail): FrameURL returns the
// frame endpoint's URL for it, which mints on the iframe's load.
func (a *App) frameURL(w http.ResponseWriter, r *http.Request, name string) (src string, ok bool) {
	t, found := a.kit.Target(name)
	if !found {
		err := fmt.Errorf("webapp: no embed target registered as %q: %w", name, middleware.ErrMisconfigured)
		a.kit.ServeError(w, r, err)
		return "", false
	}
	src, err := a.kit.FrameURL(w, r, t)
	if err != nil {
		a.kit.ServeError(w, r, err)
		return "", false
	}
	return src, true
}

// embedView is the iframe (src, the platform URL frameURL returned) and
// settings panel of the target ref: ref is the iframe's
// data-embedkit-target, the name the session endpoint re-mints it by.
func (a *App) embedView(r *http.Request, v *middleware.Viewer, title, ref, src string) templates.EmbedView {
	return templates.EmbedView{
		Title:          title,
		FrameSrc:       src,
		SessionURL:     middleware.DefaultSessionPath,
		Target:         ref,
		PlatformOrigin: a.kit.PlatformOrigin(),
		HostScriptURL:  a.kit.HostScriptSrc(HostScriptPath),
		Settings:       a.settingsPanel(r, v),
		EventLog:       true,
	}
}

// dashboardRef is a dashboard's data-embedkit-target: its canonical frame
// path, which the session endpoint resolves to the registered target.
func dashboardRef(publicID string) string { return "dashboard/" + publicID }

// filterSelects are the filter bar's selects for a dashboard's filters,
// each led by a choice that clears it.
func filterSelects(filters []FilterChoice) []templates.FilterSelect {
	out := make([]templates.FilterSelect, len(filters))
	for i, f := range filters {
		opts := []templates.Option{{Value: "", Label: "All"}}
		for _, v := range f.Values {
			opts = append(opts, templates.Option{Value: v[0], Label: v[1]})
		}
		out[i] = templates.FilterSelect{Member: f.Member, Label: f.Label, Options: opts}
	}
	return out
}

// refererPath is the same-origin path of the page that made r (the page
// around an iframe), or "/dashboards".
func refererPath(r *http.Request) string {
	ref := r.Header.Get("Referer")
	if ref == "" {
		return "/dashboards"
	}
	host := "//" + r.Host + "/"
	i := strings.Index(ref, host)
	if i < 0 || (ref[:i] != "http:" && ref[:i] != "https:") {
		return "/dashboards"
	}
	p := ref[i+len(host)-1:]
	if safe, ok := middleware.SafeReturnPath(p); ok && !strings.HasPrefix(safe, middleware.DefaultFramePrefix) {
		return safe
	}
	return "/dashboards"
}

// kitError is the kit's ErrorHandler: the app's error pages for failed
// frame loads (the iframe's content, so kept free of the account menu)
// and for pages whose mint failed as they rendered (frameURL, through
// ServeError: the whole page, whose "Try again" loads it again), JSON for
// the session endpoint.
func (a *App) kitError(w http.ResponseWriter, r *http.Request) {
	err := middleware.FailureReason(r)
	status, _ := middleware.ErrorStatus(err)
	if r.URL.Path == middleware.DefaultSessionPath || wantsJSON(r) {
		writeJSONError(w, status, errorText(status))
		return
	}
	e := templates.ErrorFor(kindFor(status))
	e.Status = status
	framed := framedRequest(r)
	// A frame or a page load can be tried again at its own address; a
	// form post (sign-out) cannot.
	retryHere := framed || r.Method == http.MethodGet
	switch {
	case errors.Is(err, middleware.ErrCrossSite):
		e.Title = "Request refused"
		e.Detail = "This request came from another site, so it was not carried out."
	case errors.Is(err, middleware.ErrMethod):
		e.Title = "Method not allowed"
		e.Detail = "This address does not accept that kind of request."
	case errors.Is(err, middleware.ErrMintLimited):
		e.Title = "Too many dashboards opened"
		e.Detail = "Analytics were opened very many times in a short while. Wait a moment, then try again."
		if p, ok := middleware.SafeReturnPath(r.URL.RequestURI()); ok && retryHere {
			e.RetryURL = p
		}
	case e.Kind == templates.KindOutage && retryHere:
		if p, ok := middleware.SafeReturnPath(r.URL.RequestURI()); ok {
			e.RetryURL = p
		}
	case e.Kind == templates.KindLoginExpired:
		e.RetryURL = loginURL(refererPath(r))
	}
	if framed {
		// An outage's "Try again" reloads the frame; every other next step
		// leaves it.
		a.render(w, r, status, templates.FrameErrorPage(e, e.Kind != templates.KindOutage))
		return
	}
	var v *middleware.Viewer
	if !errors.As(err, new(*middleware.UnverifiedViewerError)) {
		// The page's header names the viewer; a login that could not be
		// checked is not looked up twice (Redis does not answer).
		v, _ = a.viewer(r)
	}
	a.errorPage(w, r, v, e)
}

// framedRequest reports whether r loads an iframe's document: the kit's
// frame endpoint, a project page's frame route, or, by its fetch
// metadata, any other address loaded in a frame.
func framedRequest(r *http.Request) bool {
	p := r.URL.Path
	if strings.HasPrefix(p, middleware.DefaultFramePrefix) {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/projects/"); ok {
		if id, _, _ := strings.Cut(rest, "/"); p == projectFramePath(id) {
			return true
		}
	}
	d := r.Header.Get("Sec-Fetch-Dest")
	return d == "iframe" || d == "frame"
}

// authError renders a failed sign-in with the app's error page.
func (a *App) authError(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
	e := templates.ErrorFor(kindFor(status))
	e.Status, e.Title, e.Detail = status, title, detail
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized:
		e.Kind, e.RetryURL, e.RetryLabel = templates.KindLoginExpired, LoginPath, "Sign in again"
	case http.StatusBadGateway:
		e.Kind, e.RetryURL = templates.KindOutage, LoginPath
	}
	a.errorPage(w, r, nil, e)
}

// kindFor maps a status to an error page kind.
func kindFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return templates.KindLoginExpired
	case http.StatusForbidden:
		return templates.KindForbidden
	case http.StatusNotFound:
		return templates.KindNotFound
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge:
		return templates.KindBadRequest
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return templates.KindOutage
	default:
		return templates.KindInternal
	}
}

// errorText is the JSON error message of a status.
func errorText(status int) string {
	e := templates.ErrorFor(kindFor(status))
	return e.Title
}

// writeJSONError answers {"error": msg} with status.
func writeJSONError(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// wantsJSON reports whether the client sent or asked for JSON.
func wantsJSON(r *http.Request) bool {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && ct == "application/json" {
		return true
	}
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// logout ends the host session (POST /logout): a same-origin POST with
// the session's form token; the kit's Logout revokes every embed session
// minted during this login, then the session is cleared and the browser
// goes to the provider's end-session endpoint.
func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		e := templates.ErrorFor(templates.KindBadRequest)
		e.Status, e.Title, e.Detail = http.StatusMethodNotAllowed, "Method not allowed", "Sign out with the Sign out button."
		v, _ := a.viewer(r)
		a.errorPage(w, r, v, e)
		return
	}
	if err := a.cop.Check(r); err != nil {
		a.log.Warn("webapp: cross-origin sign-out refused")
		v, _ := a.viewer(r)
		a.refusedSignOut(w, r, v)
		return
	}
	v, err := a.viewer(r)
	if err != nil {
		if !errors.Is(err, middleware.ErrNoViewer) {
			// The session cannot be read (the list of ended logins is
			// down): the kit reports the embeds it cannot revoke, and
			// the cookie is expired all the same.
			a.kit.Logout(http.HandlerFunc(a.endSession)).ServeHTTP(w, r)
			return
		}
		// Nobody to sign out: make sure the cookie is gone.
		if cerr := a.identity.Clear(w, r); cerr != nil {
			a.log.Warn("webapp: clearing the session", "err", cerr)
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		a.errorPage(w, r, v, templates.ErrorFor(templates.KindBadRequest))
		return
	}
	if !a.validCSRF(v, r.PostForm.Get("csrf_token")) {
		a.log.Warn("webapp: sign-out without a valid form token refused")
		a.refusedSignOut(w, r, v)
		return
	}
	a.kit.Logout(http.HandlerFunc(a.endSession)).ServeHTTP(w, r)
}

// endSession runs after the kit has revoked the embed sessions: it clears
// the host session (and records it as ended, so a copy of the cookie no
// longer signs anyone in) and sends the browser to the provider's
// end-session endpoint with the login's ID token as id_token_hint, which
// comes back to the home page.
func (a *App) endSession(w http.ResponseWriter, r *http.Request) {
	hint := ""
	if v, err := a.viewer(r); err == nil {
		if hint, err = a.hints.take(r.Context(), v.SessionKey); err != nil {
			a.log.Warn("webapp: reading the logout hint", "err", err)
		}
	}
	// Clear expires the cookie whatever happens; an ended login it
	// could not record is logged and counted by the identity itself.
	if err := a.identity.Clear(w, r); err != nil && !errors.Is(err, gorillasession.ErrNotRecorded) {
		a.log.Error("webapp: clearing the session at sign-out", "err", err)
	}
	a.log.Info("webapp: signed out", "hint", hint != "")
	target := a.auth.EndSessionURL(hint, a.cfg.PublicURL+"/")
	if target == "" {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// refusedSignOut answers a sign-out refused for its origin or form token:
// the viewer is still signed in, and the page says so, with the way back
// and the way to sign out (the account menu carries a fresh form).
func (a *App) refusedSignOut(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) {
	if wantsJSON(r) {
		writeJSONError(w, http.StatusForbidden, "Sign-out refused: the form was out of date or sent from another site. You are still signed in; sign out again from the account menu.")
		return
	}
	e := templates.ErrorFor(templates.KindForbidden)
	e.Title = "Sign-out refused"
	if v != nil {
		e.Detail = "You are still signed in. The sign-out form had expired or was sent from another site, " +
			"so nothing was ended. To sign out, use Sign out in the account menu of this page."
		e.RetryURL, e.RetryLabel = "/dashboards", "Back to dashboards"
	} else {
		e.Detail = "The sign-out form had expired or was sent from another site, so it was not used. You are not signed in on this browser."
		e.RetryURL, e.RetryLabel = "/", "Go to the home page"
	}
	a.errorPage(w, r, v, e)
}

// forbiddenForm answers a form post refused for its origin or token.
func (a *App) forbiddenForm(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) {
	if wantsJSON(r) {
		writeJSONError(w, http.StatusForbidden, "The request was refused. Reload the page and try again.")
		return
	}
	e := templates.ErrorFor(templates.KindForbidden)
	e.Title = "Request refused"
	e.Detail = "The form was out of date or sent from another site. Reload the page and try again."
	e.RetryURL, e.RetryLabel = "/dashboards", "Back to dashboards"
	a.errorPage(w, r, v, e)
}
