package webapp

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"slices"

	"github.com/embedkit/embedkit/middleware"
	"github.com/embedkit/embedkit/web/templates"
)

// Locales are the languages and regions offered in the settings panel:
// the platform's shipped locales.
var Locales = []templates.Option{
	{Value: "en-US", Label: "English (United States)"},
	{Value: "de-DE", Label: "Deutsch (Deutschland)"},
	{Value: "es-ES", Label: "Español (España)"},
	{Value: "es-MX", Label: "Español (México)"},
	{Value: "fr-FR", Label: "Français (France)"},
	{Value: "it-IT", Label: "Italiano (Italia)"},
	{Value: "ja-JP", Label: "日本語 (日本)"},
	{Value: "nb-NO", Label: "Norsk bokmål (Norge)"},
	{Value: "pt-BR", Label: "Português (Brasil)"},
	{Value: "pt-PT", Label: "Português (Portugal)"},
	{Value: "sv-SE", Label: "Svenska (Sverige)"},
	{Value: "vi-VN", Label: "Tiếng Việt (Việt Nam)"},
}

// TimeZones are the time zones offered in the settings panel.
var TimeZones = []templates.Option{
	{Value: "UTC", Label: "UTC"},
	{Value: "Europe/London", Label: "London"},
	{Value: "Europe/Berlin", Label: "Berlin"},
	{Value: "Europe/Paris", Label: "Paris"},
	{Value: "Europe/Madrid", Label: "Madrid"},
	{Value: "America/New_York", Label: "New York"},
	{Value: "America/Chicago", Label: "Chicago"},
	{Value: "America/Denver", Label: "Denver"},
	{Value: "America/Los_Angeles", Label: "Los Angeles"},
	{Value: "America/Mexico_City", Label: "Mexico City"},
	{Value: "America/Sao_Paulo", Label: "São Paulo"},
	{Value: "Asia/Tokyo", Label: "Tokyo"},
	{Value: "Asia/Singapore", Label: "Singapore"},
	{Value: "Asia/Kolkata", Label: "Kolkata"},
	{Value: "Australia/Sydney", Label: "Sydney"},
}

// settingsBody is the JSON form of a settings change. Absent fields keep
// their saved value.
type settingsBody struct {
	Locale    *string `json:"locale"`
	TimeZone  *string `json:"timezone"`
	Scheme    *string `json:"scheme"`
	CSRFToken string  `json:"csrf_token"`
}

// settingsPanel is the settings form of v: the saved choice, else the
// profile's.
func (a *App) settingsPanel(r *http.Request, v *middleware.Viewer) templates.SettingsPanel {
	p := a.prefs(r)
	sp := templates.SettingsPanel{
		Locale:    v.Locale,
		TimeZone:  v.TimeZone,
		Scheme:    p.Scheme,
		Locales:   Locales,
		TimeZones: TimeZones,
		Schemes:   templates.DefaultSchemes,
	}
	if !offered(Locales, sp.Locale) {
		sp.Locale = ""
	}
	if sp.TimeZone != "" && !offered(TimeZones, sp.TimeZone) && !middleware.ValidTimeZone(sp.TimeZone) {
		sp.TimeZone = ""
	}
	if sp.Scheme == "" {
		sp.Scheme = "auto"
	}
	return sp
}

// offered reports whether value is one of opts.
func offered(opts []templates.Option, value string) bool {
	return slices.ContainsFunc(opts, func(o templates.Option) bool { return o.Value == value })
}

// settings saves display settings (POST /settings) from the form or a
// JSON body. Each value must be one of those offered; the form token and
// the same-origin check apply as for sign-out. It answers 204 to a client
// that asks for JSON, and otherwise redirects back to the page in
// return_to (default the dashboards list). The saved locale and time zone
// apply to every embed minted from then on; the page applies them at once
// through the host script.
func (a *App) settings(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	asJSON := wantsJSON(r)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		if asJSON {
			writeJSONError(w, http.StatusMethodNotAllowed, "Method not allowed.")
			return
		}
		e := templates.ErrorFor(templates.KindBadRequest)
		e.Status, e.Title = http.StatusMethodNotAllowed, "Method not allowed"
		v, _ := a.viewer(r)
		a.errorPage(w, r, v, e)
		return
	}
	if err := a.cop.Check(r); err != nil {
		a.log.Warn("webapp: cross-origin settings change refused")
		a.forbiddenForm(w, r, nil)
		return
	}
	v, err := a.viewer(r)
	if err != nil {
		if asJSON && errors.Is(err, middleware.ErrNoViewer) {
			writeJSONError(w, http.StatusUnauthorized, "Your session has ended. Sign in again.")
			return
		}
		a.requireViewer(w, r)
		return
	}

	var body settingsBody
	returnTo := "/dashboards"
	token := r.Header.Get("X-CSRF-Token")
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			a.badSettings(w, r, v, asJSON)
			return
		}
		if body.CSRFToken != "" {
			token = body.CSRFToken
		}
	} else {
		// app.js posts FormData (multipart); a plain form is URL-encoded.
		parse := r.ParseForm
		if ct == "multipart/form-data" {
			parse = func() error { return r.ParseMultipartForm(maxRequestBody) }
		}
		if err := parse(); err != nil {
			a.badSettings(w, r, v, asJSON)
			return
		}
		for _, f := range []struct {
			name string
			dst  **string
		}{{"locale", &body.Locale}, {"timezone", &body.TimeZone}, {"scheme", &body.Scheme}} {
			if r.PostForm.Has(f.name) {
				s := r.PostForm.Get(f.name)
				*f.dst = &s
			}
		}
		if p, ok := middleware.SafeReturnPath(r.PostForm.Get("return_to")); ok && r.PostForm.Get("return_to") != "" {
			returnTo = p
		}
		if t := r.PostForm.Get("csrf_token"); t != "" {
			token = t
		}
	}
	if !a.validCSRF(v, token) {
		a.log.Warn("webapp: settings change without a valid form token refused")
		a.forbiddenForm(w, r, v)
		return
	}

	p := a.prefs(r)
	if body.Locale != nil {
		if !offered(Locales, *body.Locale) {
			a.badSettings(w, r, v, asJSON)
			return
		}
		p.Locale = *body.Locale
	}
	if body.TimeZone != nil {
		if !offered(TimeZones, *body.TimeZone) {
			a.badSettings(w, r, v, asJSON)
			return
		}
		p.TimeZone = *body.TimeZone
	}
	if body.Scheme != nil {
		if !offered(templates.DefaultSchemes, *body.Scheme) {
			a.badSettings(w, r, v, asJSON)
			return
		}
		p.Scheme = *body.Scheme
	}
	if err := a.savePrefs(w, r, p); err != nil {
		a.log.Error("webapp: saving settings", "err", err)
		if asJSON {
			writeJSONError(w, http.StatusInternalServerError, "Your settings could not be saved.")
			return
		}
		a.errorPage(w, r, v, templates.ErrorFor(templates.KindInternal))
		return
	}
	if asJSON {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, returnTo, http.StatusSeeOther)
}

// badSettings answers a settings change that is malformed or names a
// value not offered.
func (a *App) badSettings(w http.ResponseWriter, r *http.Request, v *middleware.Viewer, asJSON bool) {
	if asJSON {
		writeJSONError(w, http.StatusBadRequest, "That setting is not one of the choices offered.")
		return
	}
	e := templates.ErrorFor(templates.KindBadRequest)
	e.Detail = "That setting is not one of the choices offered. Reload the page and try again."
	a.errorPage(w, r, v, e)
}
