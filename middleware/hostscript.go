package middleware

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

//go:embed hostscript.js
var hostScriptSource []byte

// hostScriptPlaceholder is replaced with the kit's settings when served.
var hostScriptPlaceholder = []byte("/*EMBEDKIT_CONFIG*/ {}")

// renderHostScript fills in the host script's settings and returns it
// with its ETag.
func renderHostScript(platformOrigin, sessionPath string) ([]byte, string) {
	cfg, err := json.Marshal(struct {
		PlatformOrigin string `json:"platformOrigin"`
		SessionURL     string `json:"sessionURL"`
	}{platformOrigin, sessionPath})
	if err != nil {
		panic("middleware: encoding the host script settings: " + err.Error())
	}
	js := bytes.Replace(hostScriptSource, hostScriptPlaceholder, cfg, 1)
	sum := sha256.Sum256(js)
	return js, `"` + hex.EncodeToString(sum[:8]) + `"`
}

// HostScript serves the host script, a small dependency-free JavaScript
// file for the host's pages (mount it at, for example, /embed/host.js and
// load it with <script src="/embed/host.js" defer>). It carries the
// platform origin and Config.SessionPath, and:
//
//   - accepts messages only from the platform origin with source
//     "platform-embed", and posts only to that origin (never "*");
//   - on "platform:event:session-expiring" from an <iframe data-embedkit
//     data-embedkit-target="name"> it POSTs {"target": name} to the
//     session endpoint (data-embedkit-session-url, else SessionPath) and
//     sends "platform:action:renew-session" {sessionId} to that iframe;
//   - dispatches the DOM events "embedkit:ready" and
//     "embedkit:session-ended" on the iframe element;
//   - defines window.embedkit.setLocale(locale), setTimezone(tz),
//     setColorScheme(scheme) and setTheme(theme), which send
//     "platform:action:set-locale" {locale}, "platform:action:set-timezone"
//     {timezone}, "platform:action:set-color-scheme" {scheme} and
//     "platform:action:set-theme" {...theme} to every embed on the page.
//
// Every message is {source: "platform-embed", direction: "action", type,
// payload, timestamp}.
func (k *Kit) HostScript() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", k.hostJSTag)
		if r.Header.Get("If-None-Match") == k.hostJSTag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(k.hostJS)
	})
}
