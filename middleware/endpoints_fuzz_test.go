package middleware

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzKitEndpoints sends the kit's browser-facing endpoints (the session
// endpoint, the frame endpoint, the host script) any method, path,
// query, body, Content-Type and fetch metadata, from a signed-in viewer
// or none: each answers with a 2xx, 3xx or 4xx and never a panic or a 5xx
// (the platform and the store here never fail); a session endpoint that
// answers 200 gives JSON whose url is the platform's; a frame endpoint
// that answers 303 sends the browser to the platform only.
func FuzzKitEndpoints(f *testing.F) {
	f.Add(uint8(0), "", "", `{"target":"sales"}`, "application/json", "same-origin", true)
	f.Add(uint8(0), "", "", `{"target":"sales","locale":"de-DE","timezone":"Europe/Berlin"}`, "application/json; charset=utf-8", "same-origin", true)
	f.Add(uint8(0), "", "", `{"target":"dashboard/dash-sales"}{}`, "application/json", "cross-site", true)
	f.Add(uint8(0), "", "", `[[[[`, "text/plain", "", false)
	f.Add(uint8(1), "sales", "locale=xx&timezone=%00&arrival=1", "", "", "cross-site", true)
	f.Add(uint8(1), "sales", "", "", "", "same-origin", true)
	f.Add(uint8(1), "dashboard%2Fdash-sales", "locale=de-DE", "", "", "", true)
	f.Add(uint8(1), "..%2f..%2fetc", "", "", "", "none", true)
	f.Add(uint8(2), "sales", "", "", "", "same-origin", true)
	f.Add(uint8(3), "", "v=0", "", "", "", false)
	p := &fakePlatform{}
	k, err := New(Config{
		Platform:    p,
		Identity:    headerIdentity,
		Store:       newMapStore(),
		Policy:      Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com",
		Targets: map[string]Target{
			"sales": {Kind: KindDashboard, PublicID: "dash-sales"},
			"chat":  {Kind: KindChat},
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		f.Fatal(err)
	}
	session, frame, script := k.SessionHandler(), k.FrameHandler(), k.HostScript()
	f.Fuzz(func(t *testing.T, route uint8, segment, query, body, ctype, fetchSite string, signedIn bool) {
		var (
			method = http.MethodPost
			path   = DefaultSessionPath
			h      = session
			kind   = route % 4
		)
		switch kind {
		case 1:
			method, path, h = http.MethodGet, DefaultFramePrefix+url.PathEscape(segment), frame
		case 2:
			method, path, h = http.MethodHead, DefaultFramePrefix+url.PathEscape(segment), frame
		case 3:
			method, path, h = http.MethodGet, "/embed/host.js", script
		}
		r, err := http.NewRequest(method, "https://host.example.com"+path+"?"+query, strings.NewReader(body))
		if err != nil {
			return // not a request a browser can send
		}
		r.Header.Set("Content-Type", ctype)
		r.Header.Set("Sec-Fetch-Site", fetchSite)
		if signedIn {
			// The identity is the host's, not the browser's: a viewer it
			// reads is a valid one (an invalid one is a 500, the host's
			// fault).
			r.Header.Set("X-User", "ana")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s?%s (%q, %q): %d %s", method, path, query, ctype, body, w.Code, w.Body)
		}
		switch {
		case kind == 0 && w.Code == http.StatusOK:
			var s struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil || !strings.HasPrefix(s.URL, "https://acme.example.com/embed/") {
				t.Fatalf("session endpoint answered 200 with %q", w.Body)
			}
		case (kind == 1 || kind == 2) && w.Code == http.StatusSeeOther:
			if loc := w.Header().Get("Location"); !strings.HasPrefix(loc, "https://acme.example.com/embed/") {
				t.Fatalf("frame endpoint redirected to %q", loc)
			}
		}
	})
}
