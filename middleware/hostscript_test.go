package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHostScript(t *testing.T) {
	tk := newTestKit(t, nil)
	w := serve(tk.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("status %d type %q", w.Code, w.Header().Get("Content-Type"))
	}
	js := w.Body.String()
	for _, want := range []string{
		`{"platformOrigin":"https://acme.example.com","sessionURL":"/embed/session"}`,
		`event.origin !== ORIGIN`,
		`msg.source !== SOURCE`,
		`"platform:event:session-expiring"`,
		`"platform:action:renew-session"`,
		`"platform:action:set-locale"`, `"platform:action:set-timezone"`,
		`"platform:action:set-color-scheme"`, `"platform:action:set-theme"`,
		`"embedkit:ready"`, `"embedkit:session-ended"`,
		`data-embedkit-target`, `data-embedkit-session-url`,
		`}, ORIGIN);`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("script lacks %s", want)
		}
	}
	if strings.Contains(js, `"*"`) || strings.Contains(js, "'*'") {
		t.Error("script posts to any origin")
	}
	if strings.Contains(js, "EMBEDKIT_CONFIG") {
		t.Error("settings placeholder left in the script")
	}

	r := httptest.NewRequest(http.MethodGet, "/embed/host.js", nil)
	r.Header.Set("If-None-Match", w.Header().Get("ETag"))
	if w := serve(tk.HostScript(), r); w.Code != http.StatusNotModified {
		t.Errorf("conditional GET: status %d", w.Code)
	}
	if w := serve(tk.HostScript(), httptest.NewRequest(http.MethodPost, "/embed/host.js", nil)); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", w.Code)
	}
}
