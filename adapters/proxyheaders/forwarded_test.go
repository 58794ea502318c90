package proxyheaders_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/proxyheaders"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// platform mints fixed-shape session ids in memory.
type platform struct{}

func (platform) GenerateSession(context.Context, *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	return &embedkit.Session{SessionID: "5e55c0ffee0ddba11f00dcafe1a70001", ExpiresAt: time.Now().Add(5 * time.Minute)}, nil
}

func (platform) RevokeSession(context.Context, string) error { return nil }

// newKit returns a kit whose viewer is always jane, whatever the request's
// address, so that only the origin depends on the proxy.
func newKit(t *testing.T, hostOrigin string) *middleware.Kit {
	t.Helper()
	kit, err := middleware.New(middleware.Config{
		Platform: platform{},
		Identity: middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) {
			return &middleware.Viewer{Subject: "jane", SessionKey: "hs-jane"}, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1},
		PlatformURL: "https://platform.example",
		Origins:     middleware.OriginOptions{Host: hostOrigin},
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return kit
}

// TestForwardedOriginParentOrigin: behind ForwardedOrigin, the iframe
// URL's parentOrigin takes its scheme from the X-Forwarded-Proto of a
// trusted proxy only; without the adapter, X-Forwarded-Proto is ignored.
func TestForwardedOriginParentOrigin(t *testing.T) {
	proto := func(v string) [2]string { return [2]string{"X-Forwarded-Proto", v} }
	tests := []struct {
		name       string
		noAdapter  bool
		hostOrigin string
		remote     string
		tls        bool
		headers    [][2]string
		want       string
		warns      bool
	}{
		{name: "trusted proxy, https", remote: "10.1.2.3:5555", headers: [][2]string{proto("https")}, want: "https://app.example.com"},
		{name: "trusted ipv6 proxy, https", remote: "[fd00::7]:443", headers: [][2]string{proto("https")}, want: "https://app.example.com"},
		{name: "trusted mapped proxy, https", remote: "[::ffff:10.0.0.9]:443", headers: [][2]string{proto("https")}, want: "https://app.example.com"},
		{name: "trusted proxy, upper case", remote: "10.1.2.3:5555", headers: [][2]string{proto(" HTTPS ")}, want: "https://app.example.com"},
		{name: "trusted proxy, http over TLS", remote: "10.1.2.3:5555", tls: true, headers: [][2]string{proto("http")}, want: "http://app.example.com"},
		{name: "trusted proxy, no header", remote: "10.1.2.3:5555", want: "http://app.example.com"},
		{name: "trusted proxy, no header, TLS", remote: "10.1.2.3:5555", tls: true, want: "https://app.example.com"},
		{name: "trusted proxy, a list", remote: "10.1.2.3:5555", headers: [][2]string{proto("https, http")}, want: "http://app.example.com", warns: true},
		{name: "trusted proxy, sent twice", remote: "10.1.2.3:5555", headers: [][2]string{proto("https"), proto("https")}, want: "http://app.example.com", warns: true},
		{name: "trusted proxy, other scheme", remote: "10.1.2.3:5555", headers: [][2]string{proto("wss")}, want: "http://app.example.com", warns: true},
		{name: "trusted proxy, X-Forwarded-Host not read", remote: "10.1.2.3:5555",
			headers: [][2]string{proto("https"), {"X-Forwarded-Host", "evil.example"}}, want: "https://app.example.com"},
		{name: "untrusted peer", remote: "192.0.2.10:5555", headers: [][2]string{proto("https")}, want: "http://app.example.com"},
		{name: "untrusted peer over TLS", remote: "192.0.2.10:5555", tls: true, headers: [][2]string{proto("http")}, want: "https://app.example.com"},
		{name: "unparsable peer", remote: "@", headers: [][2]string{proto("https")}, want: "http://app.example.com"},
		{name: "HostOrigin wins", hostOrigin: "https://portal.example.com", remote: "10.1.2.3:5555", headers: [][2]string{proto("http")}, want: "https://portal.example.com"},
		{name: "without the adapter", noAdapter: true, remote: "10.1.2.3:5555", headers: [][2]string{proto("https")}, want: "http://app.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, logs := newIdentity(t, nil)
			h := newKit(t, tt.hostOrigin).FrameHandler()
			if !tt.noAdapter {
				h = id.ForwardedOrigin(h)
			}
			r := request(t, tt.remote, tt.headers...)
			r.URL.Path = "/embed/frame/sales"
			r.Host = "app.example.com"
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusSeeOther {
				t.Fatalf("status %d, body %q", w.Code, w.Body)
			}
			loc, err := url.Parse(w.Header().Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			if got := loc.Query().Get("parentOrigin"); got != tt.want {
				t.Errorf("parentOrigin = %q, want %q", got, tt.want)
			}
			if got := strings.Contains(logs.String(), "X-Forwarded-Proto from a trusted proxy"); got != tt.warns {
				t.Errorf("warned = %v, want %v: %s", got, tt.warns, logs)
			}
		})
	}
}

// TestForwardedOriginWarnsOnce: a trusted proxy that keeps sending an
// unusable X-Forwarded-Proto is reported once.
func TestForwardedOriginWarnsOnce(t *testing.T) {
	id, logs := newIdentity(t, nil)
	h := id.ForwardedOrigin(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for range 3 {
		h.ServeHTTP(httptest.NewRecorder(), request(t, "10.1.2.3:1", [2]string{"X-Forwarded-Proto", "https,http"}))
	}
	if n := strings.Count(logs.String(), "X-Forwarded-Proto from a trusted proxy"); n != 1 {
		t.Errorf("warnings = %d, want 1: %s", n, logs)
	}
}

// TestForwardedOriginThroughServer: through a real server whose peer is the
// trusted loopback proxy, X-Forwarded-Proto: https makes the parent origin
// https with the Host the proxy passed through.
func TestForwardedOriginThroughServer(t *testing.T) {
	id, _ := newIdentity(t, func(c *proxyheaders.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	srv := httptest.NewServer(id.ForwardedOrigin(newKit(t, "").FrameHandler()))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/embed/frame/sales", nil)
	req.Host = "app.example.com"
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, Location %q, %v", resp.StatusCode, resp.Header.Get("Location"), err)
	}
	if got := loc.Query().Get("parentOrigin"); got != "https://app.example.com" {
		t.Errorf("parentOrigin = %q, want https://app.example.com", got)
	}
}
