package middleware

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func TestFrameHandlerRedirects(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Policy.Tenants.Creator = []string{"acme"}
		c.AllowAnyDashboard = true
		c.Targets["orders"] = Target{Kind: KindDashboard, PublicID: "dash-orders", DeploymentPath: true, Locale: "fr", TimeZone: "Europe/Paris"}
	})
	tests := []struct {
		name       string
		path       string
		tenant     string
		wantPath   string
		wantParams url.Values
	}{
		{"registered dashboard by public id", "/embed/frame/dashboard/dash-sales", "", "/embed/dashboard/dash-sales",
			url.Values{"allowExport": {"true"}, "showDashboardHeader": {"false"}}},
		{"registered dashboard by name", "/embed/frame/sales", "", "/embed/dashboard/dash-sales", nil},
		{"deployment path, host locale and zone", "/embed/frame/orders?locale=de-DE&timezone=Asia/Tokyo", "", "/embed/d/1/dashboard/dash-orders",
			url.Values{"locale": {"fr-FR"}, "timezone": {"Europe/Paris"}}},
		{"any dashboard matching the pattern", "/embed/frame/dashboard/Other_1", "", "/embed/dashboard/Other_1", nil},
		{"app", "/embed/frame/app", "acme", "/embed/d/1/app", nil},
		{"chat uses sessionId", "/embed/frame/chat?locale=sv&timezone=Europe/Stockholm", "", "/embed/chat",
			url.Values{"locale": {"sv-SE"}, "timezone": {"Europe/Stockholm"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(http.MethodGet, tt.path, "ana")
			r.Header.Set("X-Tenant", tt.tenant)
			w := serve(tk.FrameHandler(), r)
			if w.Code != http.StatusSeeOther {
				t.Fatalf("status %d, body %q", w.Code, w.Body)
			}
			if cc, rp := w.Header().Get("Cache-Control"), w.Header().Get("Referrer-Policy"); cc != "no-store" || rp != "no-referrer" {
				t.Errorf("Cache-Control %q, Referrer-Policy %q", cc, rp)
			}
			if w.Body.Len() != 0 {
				t.Errorf("redirect has a body of %d bytes; the session id may only travel in Location", w.Body.Len())
			}
			loc, err := url.Parse(w.Header().Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			if loc.Scheme+"://"+loc.Host != "https://acme.example.com" || loc.Path != tt.wantPath {
				t.Errorf("Location %s, want path %s", embedkit.Redact(loc.String()), tt.wantPath)
			}
			q := loc.Query()
			param := "session"
			if strings.HasSuffix(tt.wantPath, "/chat") {
				param = "sessionId"
			}
			ids := tk.platform.mintedIDs()
			if q.Get(param) != ids[len(ids)-1] {
				t.Errorf("%s parameter is not the minted id", param)
			}
			for k, v := range tt.wantParams {
				if q.Get(k) != v[0] {
					t.Errorf("%s = %q, want %q", k, q.Get(k), v[0])
				}
			}
		})
	}
}

func TestFrameHandlerEveryLoadMints(t *testing.T) {
	tk := newTestKit(t, nil)
	h := tk.FrameHandler()
	seen := map[string]bool{}
	for i := range 3 { // two tabs and a reload
		w := serve(h, request(http.MethodGet, "/embed/frame/sales", "ana"))
		if w.Code != http.StatusSeeOther {
			t.Fatalf("load %d: status %d", i, w.Code)
		}
		loc, _ := url.Parse(w.Header().Get("Location"))
		id := loc.Query().Get("session")
		if seen[id] {
			t.Fatalf("load %d reused a session id", i)
		}
		seen[id] = true
	}
	if n := tk.store.count((&Viewer{SessionKey: "hs-ana"}).Key()); n != 3 {
		t.Errorf("store holds %d ids for the host session, want 3", n)
	}
}

func TestFrameHandlerRefusals(t *testing.T) {
	tk := newTestKit(t, nil)
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"POST", func() *http.Request { return request(http.MethodPost, "/embed/frame/sales", "ana") }, 405},
		{"cross-site", func() *http.Request {
			r := request(http.MethodGet, "/embed/frame/sales", "ana")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			return r
		}, 403},
		{"unknown target", func() *http.Request { return request(http.MethodGet, "/embed/frame/nope", "ana") }, 404},
		{"unregistered dashboard", func() *http.Request { return request(http.MethodGet, "/embed/frame/dashboard/other", "ana") }, 404},
		{"outside the prefix", func() *http.Request { return request(http.MethodGet, "/elsewhere/sales", "ana") }, 404},
		{"no viewer", func() *http.Request { return request(http.MethodGet, "/embed/frame/sales", "") }, 401},
		{"identity error", func() *http.Request {
			r := request(http.MethodGet, "/embed/frame/sales", "ana")
			r.Header.Set("X-Broken", "1")
			return r
		}, 500},
		{"app for a tenant without creator mode", func() *http.Request { return request(http.MethodGet, "/embed/frame/app", "ana") }, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(tk.FrameHandler(), tt.req())
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d; body %q", w.Code, tt.status, w.Body)
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Error("error answer is cacheable")
			}
			body := w.Body.String()
			if strings.Contains(body, "claim") || strings.Contains(body, "goroutine") {
				t.Errorf("error page shows details: %q", body)
			}
			if tt.status == 405 && w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", w.Header().Get("Allow"))
			}
		})
	}
	if n := len(tk.platform.mintedIDs()); n != 0 {
		t.Errorf("%d sessions minted by refused requests", n)
	}
	if !strings.Contains(tk.logs.String(), "identity failed") {
		t.Error("identity error not logged")
	}
}

func TestFrameHandlerLoginRedirect(t *testing.T) {
	tk := newTestKit(t, func(c *Config) { c.Paths.Login = "/login?from=embed" })
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales?locale=de", ""))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("status %d", w.Code)
	}
	loc, _ := url.Parse(w.Header().Get("Location"))
	if loc.Path != "/login" || loc.Query().Get("from") != "embed" || loc.Query().Get("next") != "/embed/frame/sales?locale=de" {
		t.Errorf("Location = %s", loc)
	}

	// Inside an iframe the sign-in page could not be shown: the
	// ErrorHandler answers 401 there instead of a redirect.
	r := request(http.MethodGet, "/embed/frame/sales", "")
	r.Header.Set("Sec-Fetch-Dest", "iframe")
	w = serve(tk.FrameHandler(), r)
	if w.Code != http.StatusUnauthorized || w.Header().Get("Location") != "" {
		t.Errorf("iframe load without a viewer: status %d, Location %q; want 401, none", w.Code, w.Header().Get("Location"))
	}
}

func TestFrameHandlerHeadDoesNotMint(t *testing.T) {
	tk := newTestKit(t, nil)
	w := serve(tk.FrameHandler(), request(http.MethodHead, "/embed/frame/sales", "ana"))
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if n := len(tk.platform.mintedIDs()); n != 0 {
		t.Errorf("HEAD minted %d sessions", n)
	}
}

func TestFramePlatformErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"outage", &embedkit.APIError{StatusCode: 503, RetryAfter: 7e9}, 503, "7"},
		{"server error without hint", &embedkit.APIError{StatusCode: 500}, 503, "30"},
		{"rate limited", &embedkit.APIError{StatusCode: 429}, 503, "30"},
		{"circuit open", fmt.Errorf("call: %w", embedkit.ErrCircuitOpen), 503, "30"},
		{"forbidden", &embedkit.APIError{StatusCode: 403, Message: "embedding disabled"}, 403, ""},
		{"bad key", &embedkit.APIError{StatusCode: 401}, 502, ""},
		{"unknown group", &embedkit.APIError{StatusCode: 400, Message: "Groups with names x not found"}, 502, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTestKit(t, nil)
			tk.platform.generateErr = tt.err
			w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
			if w.Code != tt.status || w.Header().Get("Retry-After") != tt.retryAfter {
				t.Fatalf("status %d Retry-After %q, want %d %q", w.Code, w.Header().Get("Retry-After"), tt.status, tt.retryAfter)
			}
			if n := len(tk.platform.requests); n != 1 {
				t.Errorf("generate-session called %d times, want exactly 1 (never retried)", n)
			}
			if !strings.Contains(tk.logs.String(), "mint failed") {
				t.Error("failure not logged")
			}
		})
	}
}

func TestFrameErrorHandlerHook(t *testing.T) {
	var got error
	tk := newTestKit(t, func(c *Config) {
		c.ErrorHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = FailureReason(r)
			status, _ := ErrorStatus(got)
			w.WriteHeader(status)
			_, _ = w.Write([]byte("custom"))
		})
	})
	tk.platform.generateErr = &embedkit.APIError{StatusCode: 502}
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	if w.Code != 503 || w.Body.String() != "custom" || !errors.Is(got, embedkit.ErrServer) {
		t.Errorf("status %d body %q reason %v", w.Code, w.Body, got)
	}
}

func TestStoreFailureRevokesTheNewSession(t *testing.T) {
	tk := newTestKit(t, nil)
	tk.store.addErr = errors.New("redis: connection refused")
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", w.Code)
	}
	minted, revoked := tk.platform.mintedIDs(), tk.platform.revokedIDs()
	if len(minted) != 1 || len(revoked) != 1 || minted[0] != revoked[0] {
		t.Errorf("minted %d, revoked %d: an untracked session must be revoked", len(minted), len(revoked))
	}
}

func TestFrameURL(t *testing.T) {
	tk := newTestKit(t, nil)
	r := request(http.MethodGet, "/reports", "ana")
	r.Header.Set("Accept-Language", "de-AT,de;q=0.9")
	r.Header.Set("X-TZ", "Europe/Vienna")
	page := httptest.NewRecorder()
	page.Header().Set("Cache-Control", "public, max-age=60") // the host's default for its pages
	u, err := tk.FrameURL(page, r, Target{Kind: KindDashboard, PublicID: "dash-sales"})
	if err != nil {
		t.Fatal(err)
	}
	if cc := page.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page that holds the URL is marked Cache-Control %q, want no-store", cc)
	}
	loc, _ := url.Parse(u)
	if loc.Query().Get("locale") != "de-DE" || loc.Query().Get("timezone") != "Europe/Vienna" {
		t.Errorf("query = %v", loc.Query())
	}
	head := httptest.NewRecorder()
	before := len(tk.platform.mintedIDs())
	if u, err := tk.FrameURL(head, request(http.MethodHead, "/reports", "ana"), Target{Kind: KindDashboard, PublicID: "dash-sales"}); err != nil || u != "" {
		t.Errorf("HEAD: FrameURL = %q, %v; want no URL and no error", u, err)
	}
	if n := len(tk.platform.mintedIDs()) - before; n != 0 || head.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("HEAD minted %d sessions, Cache-Control %q; want none, no-store", n, head.Header().Get("Cache-Control"))
	}
	if _, err := tk.FrameURL(httptest.NewRecorder(), request(http.MethodHead, "/reports", ""), Target{Kind: KindDashboard, PublicID: "dash-sales"}); !errors.Is(err, ErrNoViewer) {
		t.Errorf("HEAD, signed out: err = %v, want ErrNoViewer", err)
	}
	if _, err := tk.FrameURL(httptest.NewRecorder(), r, Target{Kind: "video"}); !errors.Is(err, ErrMisconfigured) {
		t.Errorf("bad target: err = %v", err)
	}
	_, err = tk.FrameURL(httptest.NewRecorder(), request(http.MethodGet, "/", ""), Target{Kind: KindChat})
	if status, _ := ErrorStatus(err); status != 401 {
		t.Errorf("no viewer: status %d, err %v", status, err)
	}
}

func TestNewErrors(t *testing.T) {
	base := func() Config {
		return Config{Platform: &fakePlatform{}, Identity: headerIdentity, Store: newMapStore(), Policy: Policy{DeploymentID: 1}, PlatformURL: "https://acme.example.com"}
	}
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no platform", func(c *Config) { c.Platform = nil }, "Config.Platform is required"},
		{"no identity", func(c *Config) { c.Identity = nil }, "Config.Identity is required"},
		{"no store", func(c *Config) { c.Store = nil }, "Config.Store is required (use memstore.New() for one instance)"},
		{"no deployment", func(c *Config) { c.Policy.DeploymentID = 0 }, "Config.Policy.DeploymentID is required"},
		{"no platform URL", func(c *Config) { c.PlatformURL = "" }, "Config.PlatformURL is required"},
		{"http platform URL", func(c *Config) { c.PlatformURL = "http://acme.example.com" }, "Config.PlatformURL: base URL must be https"},
		{"host origin with a path", func(c *Config) { c.Origins.Host = "https://app.example.com/app" }, "Config.Origins.Host must be an origin"},
		{"host origin without scheme", func(c *Config) { c.Origins.Host = "app.example.com" }, "Config.Origins.Host must be an origin"},
		{"host origin outside ASCII", func(c *Config) { c.Origins.Host = "https://bücher.example" }, "write that form"},
		{"host origin with an empty port", func(c *Config) { c.Origins.Host = "https://app.example.com:" }, "Config.Origins.Host must be an origin"},
		{"platform URL with query", func(c *Config) { c.PlatformURL = "https://acme.example.com/?k=v" }, "Config.PlatformURL: base URL must not have a query or fragment"},
		{"bad target name", func(c *Config) { c.Targets = map[string]Target{"Sales!": {Kind: KindChat}} }, `Config.Targets["Sales!"]`},
		{"bad public id", func(c *Config) { c.Targets = map[string]Target{"s": {Kind: KindDashboard, PublicID: "../x"}} }, `Config.Targets["s"].PublicID must match`},
		{"chrome on wrong kind", func(c *Config) {
			c.Targets = map[string]Target{"c": {Kind: KindChat, Chrome: Chrome{AllowExport: true}}}
		}, "allowExport applies to dashboard targets only"},
		{"ambiguous", func(c *Config) {
			c.Targets = map[string]Target{"a": {Kind: KindChat}, "b": {Kind: KindChat}}
		}, "ambiguous"},
		{"reserved name", func(c *Config) { c.Targets = map[string]Target{"app": {Kind: KindChat}} }, "reserved"},
		{"unsupported target locale", func(c *Config) { c.Targets = map[string]Target{"c": {Kind: KindChat, Locale: "zu"}} }, "Locale"},
		{"bad target zone", func(c *Config) { c.Targets = map[string]Target{"c": {Kind: KindChat, TimeZone: "+01:00"}} }, "TimeZone"},
		{"bad default locale", func(c *Config) { c.Locales.Default = "xx" }, "Config.Locales.Default"},
		{"bad default zone", func(c *Config) { c.Locales.TimeZone = "Local" }, "Config.Locales.TimeZone"},
		{"bad locales", func(c *Config) { c.Locales.Supported = []string{"en-US", "not a tag"} }, "Config.Locales.Supported[1]"},
		{"bad tenant", func(c *Config) { c.Policy.Tenants.Creator = []string{"Acme"} }, "Config.Policy.Tenants.Creator[0]"},
		{"bad trusted origin", func(c *Config) { c.Origins.Trusted = []string{"example.com"} }, "Config.Origins.Trusted[0]"},
		{"bad login URL", func(c *Config) { c.Paths.Login = "javascript:alert(1)" }, "Config.Paths.Login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.mod(&c)
			_, err := New(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "middleware: ") {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	c := base()
	c.PlatformURL = "http://127.0.0.1:8080/"
	if _, err := New(c); err != nil {
		t.Errorf("loopback http refused: %v", err)
	}
}

func TestBrowserInputNeverReachesIdentity(t *testing.T) {
	tk := newTestKit(t, nil)
	r := request(http.MethodGet, "/embed/frame/sales?externalId=admin&groups=admins&securityContext=%7B%7D&tenant=other", "ana")
	r.Header.Set("X-Groups", "sales")
	if w := serve(tk.FrameHandler(), r); w.Code != http.StatusSeeOther {
		t.Fatalf("status %d", w.Code)
	}
	req := tk.platform.lastRequest()
	if req.ExternalID != "ana" || len(req.Groups) != 1 || req.Groups[0] != "sales" || req.SecurityContext != nil || req.EmbedTenantName != "" {
		t.Errorf("browser input reached the request: %+v", req)
	}
}

func TestIdentityErrorPage(t *testing.T) {
	tk := newTestKit(t, nil)
	r := request(http.MethodGet, "/embed/frame/sales", "ana")
	r.Header.Set("X-Broken", "1")
	w := serve(tk.FrameHandler(), r)
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "account information could not be read") {
		t.Errorf("status %d body %q", w.Code, w.Body)
	}
	if w.Header().Get("Content-Type") != "text/plain; charset=utf-8" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", w.Header())
	}
}

// cookieStore is a RequestScoped store keeping ids in a cookie-like
// header, to check the kit hands it the response writer.
type cookieStore struct{ plainStore }

type cookieScope struct {
	w     http.ResponseWriter
	inner *mapStore
}

func (c cookieStore) ForRequest(w http.ResponseWriter, _ *http.Request) SessionStore {
	return cookieScope{w: w, inner: c.s}
}

func (c cookieScope) Add(ctx context.Context, key string, m Minted) error {
	c.w.Header().Add("Set-Cookie", "embed_ids=updated")
	return c.inner.Add(ctx, key, m)
}

func (c cookieScope) Take(ctx context.Context, key string) ([]Minted, error) {
	c.w.Header().Add("Set-Cookie", "embed_ids=; Max-Age=0")
	return c.inner.Take(ctx, key)
}

func TestRequestScopedStore(t *testing.T) {
	inner := newMapStore()
	tk := newTestKit(t, func(c *Config) { c.Store = cookieStore{plainStore{inner}} })
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	if w.Code != http.StatusSeeOther || w.Header().Get("Set-Cookie") != "embed_ids=updated" {
		t.Fatalf("status %d, Set-Cookie %q", w.Code, w.Header().Get("Set-Cookie"))
	}
	w = serve(tk.Logout(&hostLogout{}), request(http.MethodPost, "/logout", "ana"))
	if w.Header().Get("Set-Cookie") != "embed_ids=; Max-Age=0" || len(tk.platform.revokedIDs()) != 1 {
		t.Errorf("logout: Set-Cookie %q, revoked %d", w.Header().Get("Set-Cookie"), len(tk.platform.revokedIDs()))
	}
}

func TestMintLogsAndMetrics(t *testing.T) {
	metrics := &countingMetrics{}
	tk := newTestKit(t, func(c *Config) { c.Metrics = metrics })
	serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	logs := tk.logs.String()
	for _, want := range []string{`"msg":"embedkit: session minted"`, `"outcome":"ok"`, `"latency":`, `"session":"sha256:`, `"viewer":"hmac:`, `"target":"sales"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("mint log lacks %s:\n%s", want, logs)
		}
	}
	if metrics.mints.Load() != 1 {
		t.Errorf("Metrics.Mint called %d times", metrics.mints.Load())
	}
}

// TestFrameParentOrigin: the iframe URL names the host page's origin, the
// only origin the embedded page talks to over postMessage.
func TestFrameParentOrigin(t *testing.T) {
	tests := []struct {
		name       string
		hostOrigin string
		host       string
		tls        bool
		want       string
	}{
		{"derived from the request", "", "app.example.com", false, "http://app.example.com"},
		{"derived over TLS, with a port", "", "App.Example.com:8443", true, "https://app.example.com:8443"},
		{"configured wins over the request", "https://portal.example.com/", "internal:8080", false, "https://portal.example.com"},
		{"a malformed Host is left out", "", "evil.example/x", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTestKit(t, func(c *Config) { c.Origins.Host = tt.hostOrigin })
			r := request(http.MethodGet, "/embed/frame/sales", "ana")
			r.Host = tt.host
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			loc := frameLocation(t, serve(tk.FrameHandler(), r))
			if got := loc.Query().Get("parentOrigin"); got != tt.want {
				t.Errorf("parentOrigin = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMintRefusesAnIDRevokeCannotTake: a session id that logout could not
// revoke is neither handed to the browser nor kept.
func TestMintRefusesAnIDRevokeCannotTake(t *testing.T) {
	tk := newTestKit(t, nil)
	tk.platform.badIDs = true
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	if w.Code != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", w.Code)
	}
	if loc := w.Header().Get("Location"); loc != "" {
		t.Errorf("redirected to %q", loc)
	}
	if n := tk.store.count((&Viewer{SessionKey: "hs-ana"}).Key()); n != 0 {
		t.Errorf("%d ids stored", n)
	}
	if logs := tk.logs.String(); !strings.Contains(logs, "revoke cannot take") {
		t.Errorf("the refusal is not logged:\n%s", logs)
	}
}

// TestViewerFingerprintIsKeyed: the viewer in the kit's logs is a keyed
// hash (Config.LogKey), not the unkeyed Redact of its key, which a list
// of emails would reverse. Kits sharing a LogKey name a viewer alike;
// without one each process has its own key.
func TestViewerFingerprintIsKeyed(t *testing.T) {
	shared := []byte("0123456789abcdef0123456789abcdef")
	viewerOf := func(t *testing.T, key []byte) string {
		t.Helper()
		tk := newTestKit(t, func(c *Config) { c.LogKey = key })
		r := request(http.MethodGet, "/embed/frame/sales", "ana@example.com")
		r.Header.Del("X-Session") // the store key is then "u:" + the subject
		if w := serve(tk.FrameHandler(), r); w.Code != http.StatusSeeOther {
			t.Fatalf("frame: %d", w.Code)
		}
		_, rest, ok := strings.Cut(tk.logs.String(), `"viewer":"`)
		if !ok {
			t.Fatalf("no viewer in the logs:\n%s", tk.logs.String())
		}
		fp, _, _ := strings.Cut(rest, `"`)
		if want := tk.RedactViewer("u:ana@example.com"); fp != want {
			t.Errorf("viewer %q in the logs, want RedactViewer's %q", fp, want)
		}
		return fp
	}
	a, b := viewerOf(t, shared), viewerOf(t, shared)
	if a != b {
		t.Errorf("two kits with one LogKey name the viewer %q and %q", a, b)
	}
	if a == embedkit.Redact("u:ana@example.com") || !strings.HasPrefix(a, "hmac:") {
		t.Errorf("viewer %q is the unkeyed hash of the subject", a)
	}
	if c, d := viewerOf(t, nil), viewerOf(t, nil); c == d || c == a {
		t.Errorf("kits without a LogKey share the fingerprint %q (with a shared key %q)", c, a)
	}
	_, err := New(Config{Platform: &fakePlatform{}, Identity: headerIdentity, Store: newMapStore(), Policy: Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com", LogKey: []byte("short")})
	if err == nil || !strings.Contains(err.Error(), "Config.LogKey") {
		t.Errorf("New with a 5-byte LogKey: %v, want an error naming Config.LogKey", err)
	}
}
