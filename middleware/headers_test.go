package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSecurityHeaders(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	tests := []struct {
		name  string
		opts  HeaderOptions
		outer string
		want  string
	}{
		{"alone", HeaderOptions{}, "",
			"default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'"},
		{"base with frame-src", HeaderOptions{BaseCSP: "script-src 'self' https://cdn.example; frame-src https://video.example"}, "",
			"script-src 'self' https://cdn.example; frame-src https://video.example 'self' https://acme.example.com; default-src 'self'; frame-ancestors 'self'"},
		{"base default-src carried into frame-src", HeaderOptions{BaseCSP: "default-src 'self' https://cdn.example; frame-ancestors 'none'"}, "",
			"default-src 'self' https://cdn.example; frame-ancestors 'none'; frame-src 'self' https://cdn.example https://acme.example.com"},
		{"none replaced", HeaderOptions{BaseCSP: "default-src 'none'"}, "",
			"default-src 'none'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'"},
		{"extra frame source", HeaderOptions{FrameSources: []string{"https://maps.example"}}, "",
			"default-src 'self'; frame-src 'self' https://acme.example.com https://maps.example; frame-ancestors 'self'"},
		{"outer policy composed", HeaderOptions{}, "img-src *; child-src https://old.example",
			"img-src *; child-src https://old.example; default-src 'self'; frame-src https://old.example 'self' https://acme.example.com; frame-ancestors 'self'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := SecurityHeaders("https://acme.example.com/some/path", tt.opts)(ok)
			w := httptest.NewRecorder()
			if tt.outer != "" {
				w.Header().Set("Content-Security-Policy", tt.outer)
			}
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if got := w.Header().Get("Content-Security-Policy"); got != tt.want {
				t.Errorf("CSP\n got %s\nwant %s", got, tt.want)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
				t.Errorf("headers %v", w.Header())
			}
		})
	}
}

func TestSecurityHeadersPanicsOnBadOrigin(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a bad origin")
		}
	}()
	SecurityHeaders("acme.example.com", HeaderOptions{})
}
