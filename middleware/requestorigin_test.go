package middleware

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestParentOriginFromRequestOrigin: with Config.Origins.Host empty, the
// iframe URL's parentOrigin is the origin recorded by WithRequestOrigin
// when there is one, else the request's own scheme and Host; the
// middleware never reads X-Forwarded-* headers itself.
func TestParentOriginFromRequestOrigin(t *testing.T) {
	tests := []struct {
		name       string
		hostOrigin string
		recorded   string // "" records none
		tls        bool
		headers    map[string]string
		want       string
	}{
		{"X-Forwarded-Proto alone is ignored", "", "", false,
			map[string]string{"X-Forwarded-Proto": "https"}, "http://app.example.com"},
		{"X-Forwarded-Host alone is ignored", "", "", false,
			map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example", "Forwarded": "proto=https;host=evil.example"}, "http://app.example.com"},
		{"recorded origin", "", "https://app.example.com", false, nil, "https://app.example.com"},
		{"recorded origin, canonical", "", "HTTPS://App.Example.com:8443/", false, nil, "https://app.example.com:8443"},
		{"recorded http wins over TLS", "", "http://app.example.com", true, nil, "http://app.example.com"},
		{"recorded origin wins over headers", "", "https://app.example.com", false,
			map[string]string{"X-Forwarded-Proto": "http"}, "https://app.example.com"},
		{"configured wins over recorded", "https://portal.example.com", "https://app.example.com", false, nil, "https://portal.example.com"},
		{"recorded with a path is left out", "", "https://app.example.com/x", false, nil, ""},
		{"recorded without a host is left out", "", "https://", false, nil, ""},
		{"recorded other scheme is left out", "", "javascript://app.example.com", false, nil, ""},
		{"recorded with credentials is left out", "", "https://u@app.example.com", false, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTestKit(t, func(c *Config) { c.Origins.Host = tt.hostOrigin })
			r := request(http.MethodGet, "/embed/frame/sales", "ana")
			r.Host = "app.example.com"
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if tt.recorded != "" {
				r = r.WithContext(WithRequestOrigin(r.Context(), tt.recorded))
			}
			loc := frameLocation(t, serve(tk.FrameHandler(), r))
			if got := loc.Query().Get("parentOrigin"); got != tt.want {
				t.Errorf("parentOrigin = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOwnOriginFromRequestOrigin: a browser without fetch metadata that
// names the host page's origin may load a frame; that origin is the
// recorded one when there is one, so the https page behind a proxy that
// terminates TLS is the host's own, and the plain http one is not.
func TestOwnOriginFromRequestOrigin(t *testing.T) {
	tests := []struct {
		name     string
		recorded string
		referer  string
		want     int
	}{
		{"https page, no record", "", "https://app.example.com/page", http.StatusForbidden},
		{"http page, no record", "", "http://app.example.com/page", http.StatusSeeOther},
		{"https page, https recorded", "https://app.example.com", "https://app.example.com/page", http.StatusSeeOther},
		{"http page, https recorded", "https://app.example.com", "http://app.example.com/page", http.StatusForbidden},
		{"any page, malformed record", "https://app.example.com/x", "https://app.example.com/page", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTestKit(t, nil)
			r := request(http.MethodGet, "/embed/frame/sales", "ana")
			r.Host = "app.example.com"
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Set("Referer", tt.referer)
			r.Header.Set("X-Forwarded-Proto", "https") // never read by the middleware
			ctx := context.Background()
			if tt.recorded != "" {
				ctx = WithRequestOrigin(ctx, tt.recorded)
			}
			if w := serve(tk.FrameHandler(), r.WithContext(ctx)); w.Code != tt.want {
				t.Errorf("status %d, want %d; body %q", w.Code, tt.want, w.Body)
			}
		})
	}
}

// TestRequestOrigin: RequestOrigin reads back what WithRequestOrigin
// recorded, "" for a malformed origin, and reports none recorded.
func TestRequestOrigin(t *testing.T) {
	tests := []struct {
		name     string
		ctx      context.Context
		want     string
		recorded bool
	}{
		{"none recorded", context.Background(), "", false},
		{"https origin", WithRequestOrigin(context.Background(), "https://app.example.com"), "https://app.example.com", true},
		{"malformed origin", WithRequestOrigin(context.Background(), "https://app.example.com/path"), "", true},
		// A browser never sends these as an origin (an empty port, a host
		// not in ASCII, an IPv6 zone); parseHostOrigin took them (found by
		// FuzzParseOrigins).
		{"empty port", WithRequestOrigin(context.Background(), "https://app.example.com:"), "", true},
		{"host not in ASCII", WithRequestOrigin(context.Background(), "https://bücher.example"), "", true},
		{"IPv6 zone", WithRequestOrigin(context.Background(), "https://[fe80::1%25en0]"), "", true},
		{"port", WithRequestOrigin(context.Background(), "HTTPS://[::1]:8443/"), "https://[::1]:8443", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RequestOrigin(tt.ctx)
			if got != tt.want || ok != tt.recorded {
				t.Errorf("RequestOrigin = %q, %v; want %q, %v", got, ok, tt.want, tt.recorded)
			}
		})
	}
}

func TestOverPlainHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tls    bool
		origin string // recorded by a trusted proxy; "" records none
		header string // X-Forwarded-Proto sent by the client
		want   bool
	}{
		{name: "plain http", want: true},
		{name: "TLS", tls: true},
		{name: "a trusted proxy said https", origin: "https://app.example.com"},
		{name: "a trusted proxy said http", origin: "http://app.example.com", want: true},
		{name: "a client's X-Forwarded-Proto alone", header: "https", want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://app.example.com/", nil)
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tc.origin != "" {
				r = r.WithContext(WithRequestOrigin(r.Context(), tc.origin))
			}
			if tc.header != "" {
				r.Header.Set("X-Forwarded-Proto", tc.header)
			}
			if got := OverPlainHTTP(r); got != tc.want {
				t.Errorf("OverPlainHTTP = %v, want %v", got, tc.want)
			}
		})
	}
}
