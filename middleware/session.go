package middleware

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// maxSessionBody bounds the JSON endpoint's request body.
const maxSessionBody = 1 << 10

// sessionRequest is the JSON endpoint's request body. Only the target is
// required; locale and timezone are a page's choice among the supported
// values, checked like the frame endpoint's query string.
type sessionRequest struct {
	Target   string `json:"target"`
	Locale   string `json:"locale,omitempty"`
	Timezone string `json:"timezone,omitempty"`
}

// sessionResponse is the JSON endpoint's answer.
type sessionResponse struct {
	URL       string    `json:"url"`
	SessionID string    `json:"sessionId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// SessionHandler serves the JSON endpoint for single-page apps and for
// renewing a session in place (the host script calls it when an embed
// says its session is expiring). Mount it at Config.Paths.Session.
//
// It accepts only POST (405 otherwise) from the same origin or
// Config.Origins.Trusted (http.CrossOriginProtection; 403 otherwise), with
// a body of at most 1 KiB:
//
//	{"target": "sales"}                          a registered target name or frame path
//	{"target": "sales", "locale": "de-DE", "timezone": "Europe/Berlin"}
//
// Unknown fields are refused (400): identity never comes from the body.
// The answer, with Cache-Control: no-store, is
//
//	{"url": "https://…", "sessionId": "…", "expiresAt": "2006-01-02T15:04:05Z"}
//
// This and the iframe URL are the only places a session id reaches the
// browser, by design: it is single-use and short-lived. Failures go to
// Config.ErrorHandler, by default a JSON {"error": "..."} with the status
// of ErrorStatus.
func (k *Kit) SessionHandler() http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body sessionRequest
		r.Body = http.MaxBytesReader(w, r.Body, maxSessionBody)
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			k.fail(w, r, fmt.Errorf("%w: %w", ErrBadRequest, err), true)
			return
		}
		if dec.More() {
			k.fail(w, r, fmt.Errorf("%w: trailing data after the JSON object", ErrBadRequest), true)
			return
		}
		name, t, found := k.resolve(body.Target)
		if !found {
			k.fail(w, r, ErrUnknownTarget, true)
			return
		}
		v, err := k.viewer(r)
		if err != nil {
			k.fail(w, r, err, true)
			return
		}
		f, err := k.mint(w, r, v, name, t, body.Locale, body.Timezone, false)
		if err != nil {
			k.fail(w, r, err, true)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(sessionResponse{URL: f.URL, SessionID: f.SessionID, ExpiresAt: f.ExpiresAt.UTC()}); err != nil {
			k.cfg.Logger.LogAttrs(r.Context(), slog.LevelWarn, "embedkit: writing the session answer failed", slog.String("error", err.Error()))
		}
	})
	return k.postOnly(k.requireFetchMetadata(k.cop.Handler(h)), true)
}

// requireFetchMetadata refuses a request without Sec-Fetch-Site when
// Config.Origins.RequireFetchMetadata is set, as the frame endpoints do.
func (k *Kit) requireFetchMetadata(next http.Handler) http.Handler {
	if !k.cfg.Origins.RequireFetchMetadata {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") == "" {
			k.denyCrossOrigin(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// postOnly answers 405 with Allow: POST to every other method, and sets
// Cache-Control: no-store on every answer.
func (k *Kit) postOnly(next http.Handler, asJSON bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			k.fail(w, r, fmt.Errorf("%w: %s", ErrMethod, r.Method), asJSON)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// denyCrossOrigin answers requests http.CrossOriginProtection refused.
func (k *Kit) denyCrossOrigin(w http.ResponseWriter, r *http.Request) {
	k.cfg.Logger.LogAttrs(r.Context(), slog.LevelWarn, "embedkit: cross-origin request refused", slog.String("path", r.URL.Path))
	k.fail(w, r, ErrCrossSite, wantsJSON(r))
}

// wantsJSON reports whether the caller asked for JSON.
func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") ||
		strings.Contains(r.Header.Get("Accept"), "application/json")
}
