package webapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// prefsValue is the key of the app's own value in the session, beside
// the viewer that gorillasession keeps.
const prefsValue = "ledgerly.prefs"

// sessionLifetime is the absolute lifetime of a login: the session
// cookie's MaxAge, which gorillasession.Identity enforces from sign-in by
// default (Identity.MaxLifetime), however often the session is saved
// again (settings). The list of ended logins keeps a record by subject or
// provider session that long.
const sessionLifetime = gorillasession.DefaultMaxAge * time.Second

// Prefs are the display settings a user chose, kept in the host session.
// Empty fields leave the choice to the user's profile.
type Prefs struct {
	Locale   string `json:"l,omitempty"`
	TimeZone string `json:"z,omitempty"`
	Scheme   string `json:"s,omitempty"`
}

// onLogin maps the verified claims to a viewer and starts the host
// session with it, under the login's own session key; the provider's sid
// is kept beside it (Viewer.ProviderSID, by the default Mapping), for a
// back-channel logout that names only the sid.
func (a *App) onLogin(w http.ResponseWriter, r *http.Request, _ *oidc.IDToken, claims map[string]any) error {
	v, err := a.mapping.Viewer(claims)
	if err != nil {
		return err
	}
	sess := LoginSession(r)
	if sess == nil {
		return errors.New("webapp: no login session")
	}
	key, _ := sess.Values[SessionKeyValue].(string)
	if key == "" {
		return errors.New("webapp: login session without a session key")
	}
	v.SessionKey = key
	if err := a.identity.Save(w, r, v); err != nil {
		return err
	}
	// The ID token stays on the server, for sign-out's id_token_hint. A
	// hint that cannot be kept costs the provider its hint, not the login.
	if err := a.hints.keep(r.Context(), key, RawIDToken(r), sessionLifetime); err != nil {
		a.log.Warn("webapp: the logout hint could not be kept", "err", err)
	}
	return nil
}

// endPrevious ends the login a browser holds when it signs in again: its
// embed sessions are revoked (failures queued, as at logout) and its host
// session is recorded as ended, so a copy of the old cookie signs nobody
// in. A browser with no valid login has nothing to end.
func (a *App) endPrevious(w http.ResponseWriter, r *http.Request) error {
	v, err := a.viewer(r)
	if err != nil {
		if errors.Is(err, middleware.ErrNoViewer) {
			return nil
		}
		return err
	}
	if _, err := a.hints.take(r.Context(), v.SessionKey); err != nil {
		a.log.Warn("webapp: dropping the previous login's logout hint", "err", err)
	}
	if err := a.kit.RevokeRequest(w, r); err != nil && !errors.Is(err, middleware.ErrNoViewer) {
		return err
	}
	if err := a.identity.End(r); err != nil {
		return err
	}
	a.log.Info("webapp: the previous login of this browser ended at a new sign-in")
	return nil
}

// session returns the request's host session; a cookie that does not
// decode gives an empty one (gorilla's registry keeps it for the rest of
// the request).
func (a *App) session(r *http.Request) *sessions.Session {
	sess, _ := a.store.Get(r, a.sessionName)
	if sess == nil {
		sess = sessions.NewSession(a.store, a.sessionName)
		opts := *a.store.Options
		sess.Options = &opts
		sess.IsNew = true
	}
	return sess
}

// viewer is the kit's Identity: the viewer gorillasession keeps (which
// it refuses after the login's absolute lifetime, and once the login is
// ended), with the display settings the user saved taking the place of
// their profile's locale and time zone.
func (a *App) viewer(r *http.Request) (*middleware.Viewer, error) {
	v, err := a.identity.Viewer(r)
	if err != nil {
		return nil, err
	}
	p := a.prefs(r)
	if p.Locale != "" {
		v.Locale = p.Locale
	}
	if p.TimeZone != "" {
		v.TimeZone = p.TimeZone
	}
	return v, nil
}

// prefs returns the display settings saved in the session.
func (a *App) prefs(r *http.Request) Prefs {
	var p Prefs
	if raw, ok := a.session(r).Values[prefsValue].(string); ok {
		_ = json.Unmarshal([]byte(raw), &p) // a damaged value means no choice
	}
	return p
}

// savePrefs stores p in the session (before the response header is
// written).
func (a *App) savePrefs(w http.ResponseWriter, r *http.Request, p Prefs) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	sess := a.session(r)
	sess.Values[prefsValue] = string(b)
	return sess.Save(r, w)
}

// csrfToken is the form token of a login session: an HMAC of its session
// key, so it is new at each login and needs no storage.
func (a *App) csrfToken(v *middleware.Viewer) string {
	m := hmac.New(sha256.New, a.csrfKey)
	m.Write([]byte("csrf\x00"))
	m.Write([]byte(v.SessionKey))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF compares a request's form token with the session's, in
// constant time.
func (a *App) validCSRF(v *middleware.Viewer, token string) bool {
	want := a.csrfToken(v)
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1
}

// requireViewer returns the signed-in viewer, or answers the request:
// a redirect to sign-in when nobody is signed in (a cookie that no longer
// decodes, or that was logged out, counts as nobody), the outage page
// (503) when the login cannot be checked, an error page otherwise.
func (a *App) requireViewer(w http.ResponseWriter, r *http.Request) (*middleware.Viewer, bool) {
	v, err := a.viewer(r)
	if err == nil {
		return v, true
	}
	if errors.Is(err, middleware.ErrNoViewer) {
		noStore(w)
		http.Redirect(w, r, loginURL(r.URL.RequestURI()), http.StatusSeeOther)
		return nil, false
	}
	if errors.As(err, new(*middleware.UnverifiedViewerError)) {
		// The login cannot be checked (Redis does not answer): an
		// outage, answered as the kit answers it, 503 with Retry-After.
		a.log.Warn("webapp: the login could not be checked", "err", err)
		a.kit.ServeError(w, r, err)
		return nil, false
	}
	a.log.Error("webapp: reading the session", "err", err)
	a.errorPage(w, r, nil, templates.ErrorFor(templates.KindInternal))
	return nil, false
}

// loginURL is the sign-in URL that comes back to returnTo.
func loginURL(returnTo string) string {
	p, ok := middleware.SafeReturnPath(returnTo)
	if !ok || p == "/" {
		return LoginPath
	}
	return LoginPath + "?return_to=" + url.QueryEscape(p)
}

// page is the layout data of a page for v (nil: signed out).
func (a *App) page(r *http.Request, v *middleware.Viewer, title, section string) templates.Page {
	p := templates.Page{Title: title, AppName: AppName}
	if v == nil {
		return p
	}
	p.User = &templates.User{
		DisplayName: v.DisplayName,
		Email:       v.Email,
		Tenant:      v.Tenant,
		CreatorMode: a.creatorAllowed(v),
	}
	if p.User.DisplayName == "" {
		p.User.DisplayName = v.Email
	}
	p.CSRFToken = a.csrfToken(v)
	p.Scheme = a.prefs(r).Scheme
	p.Nav = []templates.NavItem{{Label: "Dashboards", Href: "/dashboards", Active: section == "dashboards"}}
	p.Nav = append(p.Nav, templates.NavItem{Label: "Ask", Href: "/ask", Active: section == "ask"})
	p.Nav = append(p.Nav, templates.NavItem{Label: "React", Href: ReactPath, Active: section == "react"})
	p.Nav = append(p.Nav, templates.NavItem{Label: "Module", Href: ModulePath, Active: section == "module"})
	if len(a.projects) > 0 {
		p.Nav = append(p.Nav, templates.NavItem{Label: "Projects", Href: "/projects", Active: section == "projects"})
	}
	if a.creatorAllowed(v) {
		p.Nav = append(p.Nav, templates.NavItem{Label: "Workspace", Href: "/creator", Active: section == "creator"})
	}
	return p
}

// creatorAllowed reports whether v may use the creator-mode workspace:
// their profile asks for it and their tenant is allowed it.
func (a *App) creatorAllowed(v *middleware.Viewer) bool {
	return v.CreatorMode && slices.Contains(a.cfg.CreatorTenants, v.Tenant)
}
