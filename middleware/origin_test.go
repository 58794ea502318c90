package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestEmbedEndpointsAgreeOnOrigins feeds the same table to the frame
// endpoint and the JSON session endpoint: each accepts a load from the
// host's own origin, a trusted origin or no page at all, and refuses every
// other origin, another origin of the same site included (a sibling
// subdomain with user content, another port of the host).
func TestEmbedEndpointsAgreeOnOrigins(t *testing.T) {
	const own = "http://host.example"
	tests := []struct {
		name    string
		site    string // Sec-Fetch-Site; "" sends none
		source  string // the page's origin, as the browser names it
		require bool   // Config.Origins.RequireFetchMetadata
		ok      bool
	}{
		{"same origin", "same-origin", own, false, true},
		{"no page (typed address)", "none", "", false, true},
		{"sibling origin", "same-site", "http://files.host.example", false, false},
		{"sibling origin naming nothing", "same-site", "", false, false},
		{"another port of the host", "same-site", "http://host.example:8081", false, false},
		{"trusted sibling", "same-site", "https://app2.host.example", false, true},
		{"trusted other site", "cross-site", "https://app2.host.example", false, true},
		{"other site", "cross-site", "https://evil.example", false, false},
		{"other site naming nothing", "cross-site", "", false, false},
		{"old browser, own origin", "", own, false, true},
		{"old browser, other site", "", "https://evil.example", false, false},
		{"old browser, trusted", "", "https://app2.host.example", false, true},
		{"no browser at all", "", "", false, true},
		{"no fetch metadata, required", "", own, true, false},
		{"fetch metadata, required", "same-origin", own, true, true},
	}
	endpoints := []struct {
		name    string
		handler func(*Kit) http.Handler
		request func(site, source string) *http.Request
		okCode  int
	}{
		{"frame", (*Kit).FrameHandler, func(site, source string) *http.Request {
			r := httptest.NewRequest(http.MethodGet, own+"/embed/frame/sales", nil)
			r.Header.Set("Sec-Fetch-Dest", "iframe")
			// A navigation carries no Origin: the page names itself in
			// the Referer, as far as its referrer policy lets it.
			if source != "" {
				r.Header.Set("Referer", source+"/page")
			}
			return withViewer(r, site)
		}, http.StatusSeeOther},
		{"json", (*Kit).SessionHandler, func(site, source string) *http.Request {
			r := httptest.NewRequest(http.MethodPost, own+"/embed/session", strings.NewReader(`{"target":"sales"}`))
			r.Header.Set("Content-Type", "application/json")
			if source != "" {
				r.Header.Set("Origin", source)
			}
			return withViewer(r, site)
		}, http.StatusOK},
	}
	for _, tt := range tests {
		for _, ep := range endpoints {
			t.Run(tt.name+"/"+ep.name, func(t *testing.T) {
				tk := newTestKit(t, func(c *Config) {
					c.Origins.Trusted = []string{"https://app2.host.example"}
					c.Origins.RequireFetchMetadata = tt.require
				})
				w := serve(ep.handler(tk.Kit), ep.request(tt.site, tt.source))
				want := http.StatusForbidden
				if tt.ok {
					want = ep.okCode
				}
				if w.Code != want {
					t.Fatalf("status %d, want %d; body %q", w.Code, want, w.Body)
				}
				if minted := len(tk.platform.mintedIDs()); (minted == 1) != tt.ok {
					t.Errorf("%d sessions minted", minted)
				}
			})
		}
	}
}

// withViewer signs r in as ana and sets its Sec-Fetch-Site, if any.
func withViewer(r *http.Request, site string) *http.Request {
	r.Header.Set("X-User", "ana")
	r.Header.Set("X-Session", "hs-ana")
	if site != "" {
		r.Header.Set("Sec-Fetch-Site", site)
	}
	return r
}

// TestPlainHostPort: the Host a derived parentOrigin is built from is a
// plain host[:port], agreeing with what net/url reads as a host.
func TestPlainHostPort(t *testing.T) {
	for h, want := range map[string]bool{
		"app.example.com": true, "APP.Example.com:8443": true, "127.0.0.1:8080": true, "[::1]:8080": true, "[::1]": true,
		"localhost": true, "": false, ":8080": false, "a:b": false, "a:80:90": false, "user@host": false, "host/path": false,
		"host?q": false, "host#f": false, "a%20b": false, "[::1": false, "[::g]": false, "[::1]x": false, "host:": true, "a b": false,
	} {
		if got := plainHostPort(h); got != want {
			t.Errorf("plainHostPort(%q) = %v, want %v", h, got, want)
		}
		if want {
			u, err := url.Parse("http://" + h)
			if err != nil || u.Host != h {
				t.Errorf("%q passes, but net/url reads host %q (%v)", h, u.Host, err)
			}
		}
	}
}
