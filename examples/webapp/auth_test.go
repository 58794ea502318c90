package webapp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/gorilla/sessions"
	"golang.org/x/oauth2"

	"github.com/embedkit/embedkit/internal/devidp"
	"github.com/embedkit/embedkit/internal/testkit"
)

const (
	testClientID     = "webapp"
	testClientSecret = "webapp-dev-secret"
	sessionName      = "app"
)

type clock = testkit.Clock

type syncBuffer = testkit.SyncBuffer

// harness runs an identity provider and the app, each on its own
// httptest server, and a browser with a cookie jar that does not follow
// redirects.
type harness struct {
	t       *testing.T
	clock   *clock
	logs    *syncBuffer
	idpSrv  *httptest.Server
	appSrv  *httptest.Server
	auth    *Auth
	store   sessions.Store
	browser *http.Client

	tokenCalls atomic.Int32
	onLogins   atomic.Int32

	mu          sync.Mutex
	tokenForms  []url.Values
	secrets     []string // values that must never show in logs or app pages
	appBodies   []string
	errorPages  []int
	sameSession bool // OnLogin: Sessions.Get returned LoginSession(r)

	// onLogin replaces the default OnLogin body when set.
	onLogin func(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, claims map[string]any) error
}

type harnessOptions struct {
	// idp builds the identity provider's handler once both URLs are known.
	// Nil means devidp with the demo users.
	idp func(t *testing.T, issuer, appURL string, clk *clock) http.Handler
	// plainErrors keeps Auth's default ErrorPage.
	plainErrors bool
	// store replaces the default cookie store.
	store   sessions.Store
	onLogin func(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, claims map[string]any) error
}

func devIdP(t *testing.T, issuer, appURL string, clk *clock) http.Handler {
	t.Helper()
	p, err := devidp.New(devidp.Config{
		Issuer: issuer,
		Clients: []devidp.Client{{
			ID:                     testClientID,
			Secret:                 testClientSecret,
			RedirectURIs:           []string{appURL + "/auth/callback"},
			PostLogoutRedirectURIs: []string{appURL + "/"},
		}},
		Now:    clk.Now,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("devidp.New: %v", err)
	}
	return p
}

func newHarness(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	if opts.idp == nil {
		opts.idp = devIdP
	}
	h := &harness{t: t, clock: testkit.NewClock(time.Now()), logs: &syncBuffer{}, onLogin: opts.onLogin}
	h.idpSrv = httptest.NewUnstartedServer(nil)
	h.appSrv = httptest.NewUnstartedServer(nil)
	issuer := "http://" + h.idpSrv.Listener.Addr().String()
	appURL := "http://" + h.appSrv.Listener.Addr().String()
	idp := opts.idp(t, issuer, appURL, h.clock)
	h.idpSrv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" {
			idp.ServeHTTP(w, r)
			return
		}
		h.tokenCalls.Add(1)
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		h.mu.Lock()
		h.tokenForms = append(h.tokenForms, form)
		h.secrets = append(h.secrets, form.Get("code"), form.Get("code_verifier"))
		h.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		idp.ServeHTTP(rec, r)
		var tok struct {
			Access string `json:"access_token"`
			ID     string `json:"id_token"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &tok)
		h.addSecrets(tok.Access, tok.ID)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	h.idpSrv.Start()
	t.Cleanup(h.idpSrv.Close)

	h.store = opts.store
	if h.store == nil {
		cs := sessions.NewCookieStore([]byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210"))
		cs.Options = &sessions.Options{Path: "/", MaxAge: 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode}
		h.store = cs
	}
	cfg := AuthConfig{
		Issuer:       issuer,
		ClientID:     testClientID,
		ClientSecret: testClientSecret,
		RedirectURL:  appURL + "/auth/callback",
		Sessions:     h.store,
		SessionName:  sessionName,
		OnLogin:      h.handleLogin,
		HTTPClient:   h.idpSrv.Client(),
		Logger:       slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:          h.clock.Now,
	}
	if !opts.plainErrors {
		cfg.ErrorPage = func(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
			h.mu.Lock()
			h.errorPages = append(h.errorPages, status)
			h.mu.Unlock()
			w.WriteHeader(status)
			fmt.Fprintf(w, "<h1>%s</h1><p>%s</p>", html.EscapeString(title), html.EscapeString(detail))
		}
	}
	var err error
	h.auth, err = NewAuth(t.Context(), cfg)
	if err != nil {
		t.Fatalf("NewAuth: %v", err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", h.auth.Login)
	mux.HandleFunc("/auth/callback", h.auth.Callback)
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		s, err := h.store.Get(r, sessionName)
		if err != nil {
			http.Error(w, "bad session", http.StatusUnauthorized)
			return
		}
		out := map[string]string{}
		for k, v := range s.Values {
			out[fmt.Sprint(k)] = fmt.Sprint(v)
		}
		_ = json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("GET /seed", func(w http.ResponseWriter, r *http.Request) {
		s, _ := h.store.Get(r, sessionName)
		s.Values["pre"] = "planted"
		_ = s.Save(r, w)
	})
	// Like a typical app, load the session before every handler, so Auth
	// meets a session already in gorilla's per-request registry.
	h.appSrv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = h.store.Get(r, sessionName)
		rec := &bodyRecorder{ResponseWriter: w}
		mux.ServeHTTP(rec, r)
		h.mu.Lock()
		if r.URL.Path != "/login" { // /login's redirect carries state, nonce and challenge by design
			h.appBodies = append(h.appBodies, rec.body.String(), fmt.Sprint(w.Header()["Location"]))
		}
		h.mu.Unlock()
	})
	h.appSrv.Start()
	t.Cleanup(h.appSrv.Close)

	h.browser = newBrowser()
	t.Cleanup(h.checkNoSecretsLeaked)
	return h
}

type bodyRecorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (b *bodyRecorder) Write(p []byte) (int, error) {
	b.body.Write(p)
	return b.ResponseWriter.Write(p)
}

func newBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (h *harness) addSecrets(s ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range s {
		if len(v) >= 8 {
			h.secrets = append(h.secrets, v)
		}
	}
}

// checkNoSecretsLeaked: no code, state, nonce, verifier or token reaches
// the app's logs, pages or redirect targets (the callback's own Location
// to the return path included).
func (h *harness) checkNoSecretsLeaked() {
	h.mu.Lock()
	defer h.mu.Unlock()
	logs := h.logs.String()
	for _, s := range h.secrets {
		if len(s) < 8 {
			continue
		}
		if strings.Contains(logs, s) {
			h.t.Errorf("logs contain a secret value %.6s…", s)
		}
		for _, b := range h.appBodies {
			if strings.Contains(b, s) {
				h.t.Errorf("an app response contains a secret value %.6s…: %.300q", s, b)
				break
			}
		}
	}
}

func (h *harness) handleLogin(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, claims map[string]any) error {
	h.onLogins.Add(1)
	sess := LoginSession(r)
	got, _ := h.store.Get(r, sessionName)
	h.mu.Lock()
	h.sameSession = sess != nil && got == sess
	h.mu.Unlock()
	h.addSecrets(RawIDToken(r))
	if h.onLogin != nil {
		return h.onLogin(w, r, tok, claims)
	}
	sess.Values["sub"] = tok.Subject
	sess.Values["name"], _ = claims["name"].(string)
	sess.Values["tenant"], _ = claims["tenant"].(string)
	sess.Values["creator"] = fmt.Sprint(claims["creator_mode"])
	sess.Values["groups"] = fmt.Sprint(claims["groups"])
	return nil
}

func (h *harness) get(t *testing.T, c *http.Client, rawURL string) (*http.Response, string) {
	t.Helper()
	if strings.HasPrefix(rawURL, "/") {
		rawURL = h.appSrv.URL + rawURL
	}
	resp, err := c.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// startLogin asks the app for /login and returns the authorization URL it
// redirects to.
func (h *harness) startLogin(t *testing.T, c *http.Client, returnTo string) *url.URL {
	t.Helper()
	resp, _ := h.get(t, c, "/login?"+url.Values{"return_to": {returnTo}}.Encode())
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("/login: status %d", resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(u.String(), h.idpSrv.URL) {
		t.Fatalf("/login redirected to %q", resp.Header.Get("Location"))
	}
	q := u.Query()
	h.addSecrets(q.Get("state"), q.Get("nonce"), q.Get("code_challenge"))
	return u
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// signInAtIdP fills devidp's sign-in form and returns the callback URL the
// provider redirects to.
func (h *harness) signInAtIdP(t *testing.T, c *http.Client, authURL *url.URL, user, pass string) string {
	t.Helper()
	resp, body := h.get(t, c, authURL.String())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign-in page: status %d", resp.StatusCode)
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	form.Set("username", user)
	form.Set("password", pass)
	resp, err := c.PostForm(h.idpSrv.URL+"/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("sign-in POST: status %d", resp.StatusCode)
	}
	cb := resp.Header.Get("Location")
	if !strings.HasPrefix(cb, h.appSrv.URL+"/auth/callback?") {
		t.Fatalf("provider redirected to %q", cb)
	}
	u, _ := url.Parse(cb)
	h.addSecrets(u.Query().Get("code"))
	return cb
}

// login runs the whole flow and returns the callback URL and the app's
// answer to it.
func (h *harness) login(t *testing.T, c *http.Client, user, pass, returnTo string) (string, *http.Response, string) {
	t.Helper()
	cb := h.signInAtIdP(t, c, h.startLogin(t, c, returnTo), user, pass)
	resp, body := h.get(t, c, cb)
	return cb, resp, body
}

func (h *harness) me(t *testing.T, c *http.Client) map[string]string {
	t.Helper()
	resp, body := h.get(t, c, "/me")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/me: status %d", resp.StatusCode)
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("/me: %v", err)
	}
	return out
}

func setCookieNamed(resp *http.Response, name string) *http.Cookie {
	var last *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == name {
			last = c
		}
	}
	return last
}

func TestLoginFlow(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	_, resp, body := h.login(t, h.browser, "chloe", "chloe-dev-pass", "/reports?tab=2")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/reports?tab=2" {
		t.Fatalf("callback: status %d location %q body %q", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("callback Cache-Control %q", cc)
	}
	me := h.me(t, h.browser)
	if me["sub"] != "chloe" || me["name"] != "Chloé Martin" || me["tenant"] != "contoso-labs" ||
		me["creator"] != "true" || me["groups"] != "[analysts apac]" || me[SessionKeyValue] == "" {
		t.Errorf("session after login = %v", me)
	}
	if !h.sameSession {
		t.Errorf("during OnLogin, Sessions.Get did not return LoginSession(r)")
	}
	if n := h.tokenCalls.Load(); n != 1 {
		t.Errorf("token endpoint called %d times", n)
	}
}

// Checklist 4: S256 PKCE, the verifier matches the challenge, fresh values
// for each login; and the login cookie's attributes.
func TestLoginUsesFreshPKCEStateAndNonce(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	seen := map[string]bool{}
	for i := range 2 {
		c := newBrowser()
		resp, _ := h.get(t, c, "/login?return_to=/x")
		lc := setCookieNamed(resp, sessionName+"_login")
		if lc == nil || !lc.HttpOnly || lc.SameSite != http.SameSiteLaxMode || lc.MaxAge <= 0 || lc.MaxAge > int(LoginTTL/time.Second) || lc.Path != "/" {
			t.Fatalf("login cookie %+v: want HttpOnly, SameSite=Lax, 0 < MaxAge <= %v", lc, LoginTTL)
		}
		if setCookieNamed(resp, sessionName) != nil {
			t.Errorf("/login touched the main session cookie")
		}
		auth, _ := url.Parse(resp.Header.Get("Location"))
		q := auth.Query()
		if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
			t.Fatalf("authorization URL lacks an S256 challenge: %v", q)
		}
		if q.Get("response_type") != "code" || q.Get("client_id") != testClientID || !strings.Contains(q.Get("scope"), "openid") {
			t.Errorf("authorization URL: %v", q)
		}
		if len(q.Get("state")) < 43 || len(q.Get("nonce")) < 43 {
			t.Errorf("state %d and nonce %d characters, want 32 random bytes each", len(q.Get("state")), len(q.Get("nonce")))
		}
		for _, k := range []string{"state", "nonce", "code_challenge"} {
			if seen[q.Get(k)] {
				t.Errorf("login %d reuses a %s", i, k)
			}
			seen[q.Get(k)] = true
		}
		h.addSecrets(q.Get("state"), q.Get("nonce"))
		cb := h.signInAtIdP(t, c, auth, "ana", "ana-dev-pass")
		if resp, body := h.get(t, c, cb); resp.StatusCode != http.StatusFound {
			t.Fatalf("callback: %d %s", resp.StatusCode, body)
		}
		h.mu.Lock()
		form := h.tokenForms[len(h.tokenForms)-1]
		h.mu.Unlock()
		v := form.Get("code_verifier")
		if oauth2.S256ChallengeFromVerifier(v) != q.Get("code_challenge") {
			t.Errorf("token request's code_verifier does not hash to the challenge")
		}
		if seen[v] {
			t.Errorf("login %d reuses a verifier", i)
		}
		seen[v] = true
	}
}

func TestLoginCookieSecureOnHTTPS(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	a, err := NewAuth(t.Context(), AuthConfig{
		Issuer: h.idpSrv.URL, ClientID: testClientID, ClientSecret: testClientSecret,
		RedirectURL: "https://app.test/auth/callback", Sessions: h.store, SessionName: sessionName,
		OnLogin:    func(http.ResponseWriter, *http.Request, *oidc.IDToken, map[string]any) error { return nil },
		HTTPClient: h.idpSrv.Client(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	a.Login(rec, httptest.NewRequest(http.MethodGet, "https://app.test/login", nil))
	lc := setCookieNamed(rec.Result(), sessionName+"_login")
	if lc == nil || !lc.Secure {
		t.Errorf("login cookie %+v, want Secure", lc)
	}
}

// Checklist 1: a missing or mismatched state answers 400 and the token
// endpoint is never called.
func TestCallbackStateChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run gets a browser whose login is pending and the callback URL
		// the provider issued; it returns the URL to call and the browser.
		run func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client)
		// pendingSurvives: the real callback still works afterwards.
		pendingSurvives bool
	}{
		{"state missing", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			q := cb.Query()
			q.Del("state")
			cb.RawQuery = q.Encode()
			return cb.String(), c
		}, true},
		{"state empty", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			q := cb.Query()
			q.Set("state", "")
			cb.RawQuery = q.Encode()
			return cb.String(), c
		}, true},
		{"state mismatch", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			q := cb.Query()
			q.Set("state", randomString())
			cb.RawQuery = q.Encode()
			return cb.String(), c
		}, true},
		{"no login cookie (link sent to another browser)", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			return cb.String(), newBrowser()
		}, true},
		{"tampered login cookie", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			other := newBrowser()
			app, _ := url.Parse(h.appSrv.URL)
			for _, ck := range c.Jar.Cookies(app) {
				if ck.Name == sessionName+"_login" {
					ck.Value = ck.Value[:len(ck.Value)-4] + "AAAA"
					other.Jar.SetCookies(app, []*http.Cookie{ck})
				}
			}
			return cb.String(), other
		}, true},
		{"login replaced by a later login in another tab", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			h.startLogin(t, c, "/")
			return cb.String(), c
		}, false},
		{"login expired", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			h.clock.Advance(LoginTTL + time.Second)
			return cb.String(), c
		}, false},
		{"provider error with valid state", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			q := cb.Query()
			q.Del("code")
			q.Set("error", "access_denied")
			cb.RawQuery = q.Encode()
			return cb.String(), c
		}, false},
		{"iss parameter of another provider", func(t *testing.T, h *harness, c *http.Client, cb *url.URL) (string, *http.Client) {
			q := cb.Query()
			q.Set("iss", "https://evil.test")
			cb.RawQuery = q.Encode()
			return cb.String(), c
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{})
			c := newBrowser()
			real := h.signInAtIdP(t, c, h.startLogin(t, c, "/after"), "ben", "ben-dev-pass")
			cb, _ := url.Parse(real)
			target, client := tc.run(t, h, c, cb)
			resp, body := h.get(t, client, target)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400 (%s)", resp.StatusCode, body)
			}
			if n := h.tokenCalls.Load(); n != 0 {
				t.Fatalf("token endpoint called %d times", n)
			}
			if h.onLogins.Load() != 0 || setCookieNamed(resp, sessionName) != nil {
				t.Fatalf("a session was issued")
			}
			if len(h.errorPages) == 0 {
				t.Errorf("the ErrorPage hook was not used")
			}
			if tc.pendingSurvives {
				if resp, body := h.get(t, c, real); resp.StatusCode != http.StatusFound {
					t.Errorf("the pending login no longer completes: %d %s", resp.StatusCode, body)
				}
			}
		})
	}
}

// Checklist 5: a callback URL that was used once fails when replayed.
func TestCallbackReplay(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	c := newBrowser()
	auth := h.startLogin(t, c, "/")
	app, _ := url.Parse(h.appSrv.URL)
	loginCookies := c.Jar.Cookies(app) // what an attacker copying the browser would hold
	cb := h.signInAtIdP(t, c, auth, "ana", "ana-dev-pass")
	if resp, body := h.get(t, c, cb); resp.StatusCode != http.StatusFound {
		t.Fatalf("first callback: %d %s", resp.StatusCode, body)
	}
	before := h.me(t, c)

	t.Run("same browser", func(t *testing.T) {
		resp, _ := h.get(t, c, cb)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("replay: status %d, want 400", resp.StatusCode)
		}
		if n := h.tokenCalls.Load(); n != 1 {
			t.Errorf("replay reached the token endpoint (%d calls)", n)
		}
		if after := h.me(t, c); after[SessionKeyValue] != before[SessionKeyValue] {
			t.Errorf("replay changed the session")
		}
	})
	t.Run("with the login cookie kept aside", func(t *testing.T) {
		other := newBrowser()
		other.Jar.SetCookies(app, loginCookies)
		resp, _ := h.get(t, other, cb)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("replay: status %d, want 400", resp.StatusCode)
		}
		if h.onLogins.Load() != 1 || setCookieNamed(resp, sessionName) != nil {
			t.Errorf("replay logged in")
		}
	})
}

// Checklist 6: the return path given at login is honoured only when safe.
func TestLoginReturnPath(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct{ in, want string }{
		{"/reports?tab=2#top", "/reports?tab=2#top"},
		{"/dash/sales", "/dash/sales"},
		{"", "/"},
		{"//evil.test/x", "/"},
		{"https://evil.test", "/"},
		{"/\\evil.test", "/"},
		{"/\t/evil.test", "/"},
		{"/%2F%2Fevil.test", "/"},
		{"/%5Cevil.test", "/"},
		{"/%2e//..%3f", "/"},        // a browser reads %2e as ".": the pathname "//..%3f"
		{"/a/.%2e//evil.test", "/"}, // likewise: "//evil.test"
		{"/a/%2e%2e/b", "/a/%2e%2e/b"},
		{"javascript:alert(1)", "/"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, resp, _ := h.login(t, newBrowser(), "ben", "ben-dev-pass", tc.in)
			if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || got != tc.want {
				t.Errorf("status %d location %q, want %q", resp.StatusCode, got, tc.want)
			}
		})
	}
}

// Checklist 7: login issues a new session cookie and drops what the
// session held before.
func TestLoginReplacesSession(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	c := h.browser
	resp, _ := h.get(t, c, "/seed")
	planted := setCookieNamed(resp, sessionName)
	if planted == nil {
		t.Fatal("no seeded session cookie")
	}
	if h.me(t, c)["pre"] != "planted" {
		t.Fatal("seed not stored")
	}

	_, resp, _ = h.login(t, c, "ana", "ana-dev-pass", "/")
	issued := setCookieNamed(resp, sessionName)
	if issued == nil || issued.Value == planted.Value || issued.MaxAge <= 0 {
		t.Fatalf("login did not issue a new session cookie: %+v", issued)
	}
	if !issued.HttpOnly || issued.SameSite != http.SameSiteLaxMode {
		t.Errorf("session cookie %+v lacks the store's options", issued)
	}
	first := h.me(t, c)
	if _, ok := first["pre"]; ok {
		t.Errorf("value stored before login survived: %v", first)
	}
	if first["sub"] != "ana" || first[SessionKeyValue] == "" {
		t.Errorf("session after login = %v", first)
	}

	// The planted cookie, replayed, holds none of the login.
	other := newBrowser()
	app, _ := url.Parse(h.appSrv.URL)
	other.Jar.SetCookies(app, []*http.Cookie{{Name: sessionName, Value: planted.Value}})
	if got := h.me(t, other); got["sub"] != "" {
		t.Errorf("the pre-login cookie carries the login: %v", got)
	}

	_, _, _ = h.login(t, c, "ben", "ben-dev-pass", "/")
	second := h.me(t, c)
	if second["sub"] != "ben" || second[SessionKeyValue] == first[SessionKeyValue] {
		t.Errorf("second login: %v, want sub ben and a new session key", second)
	}
}

// With a server-side store, the pre-login record is deleted and the
// session gets a new id.
func TestLoginReplacesServerSideSession(t *testing.T) {
	dir := t.TempDir()
	fs := sessions.NewFilesystemStore(dir, []byte("0123456789abcdef0123456789abcdef"))
	fs.Options = &sessions.Options{Path: "/", MaxAge: 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	h := newHarness(t, harnessOptions{store: fs})
	files := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	resp, _ := h.get(t, h.browser, "/seed")
	planted := setCookieNamed(resp, sessionName)
	before := files()
	if len(before) != 1 || planted == nil {
		t.Fatalf("after seeding: files %v, cookie %v", before, planted)
	}
	if _, resp, body := h.login(t, h.browser, "ana", "ana-dev-pass", "/"); resp.StatusCode != http.StatusFound {
		t.Fatalf("login: %d %s", resp.StatusCode, body)
	}
	after := files()
	if len(after) != 1 || after[0] == before[0] {
		t.Errorf("session files before %v, after %v: want the old record replaced by one new record (login cookie record gone too)", before, after)
	}
	me := h.me(t, h.browser)
	if me["sub"] != "ana" || me["pre"] != "" {
		t.Errorf("session after login = %v", me)
	}
	other := newBrowser()
	app, _ := url.Parse(h.appSrv.URL)
	other.Jar.SetCookies(app, []*http.Cookie{{Name: sessionName, Value: planted.Value}})
	if resp, body := h.get(t, other, "/me"); resp.StatusCode == http.StatusOK && strings.Contains(body, "ana") {
		t.Errorf("the pre-login session id reaches the login: %s", body)
	}
}

// A session whose previous cookie no longer decodes (rotated keys) is
// replaced like any other.
func TestLoginOverUndecodableSession(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	app, _ := url.Parse(h.appSrv.URL)
	h.browser.Jar.SetCookies(app, []*http.Cookie{{Name: sessionName, Value: "made-with-an-old-key"}})
	_, resp, body := h.login(t, h.browser, "ana", "ana-dev-pass", "/")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if h.me(t, h.browser)["sub"] != "ana" {
		t.Errorf("not logged in")
	}
}

// Checklist 10: a session too large for a cookie is reported, not a crash
// or a half-login.
func TestLoginSessionTooLarge(t *testing.T) {
	h := newHarness(t, harnessOptions{onLogin: func(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, _ map[string]any) error {
		s := LoginSession(r)
		s.Values["sub"] = tok.Subject
		s.Values["groups"] = strings.Repeat("group-with-a-long-name,", 300)
		return nil
	}})
	_, resp, body := h.login(t, h.browser, "ana", "ana-dev-pass", "/")
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "too large") {
		t.Fatalf("status %d body %q, want 500 telling the user", resp.StatusCode, body)
	}
	if c := setCookieNamed(resp, sessionName); c != nil && c.MaxAge >= 0 {
		t.Errorf("a session cookie was issued: %+v", c)
	}
	if h.me(t, h.browser)["sub"] != "" {
		t.Errorf("logged in despite the failure")
	}
}

func TestOnLoginError(t *testing.T) {
	h := newHarness(t, harnessOptions{onLogin: func(http.ResponseWriter, *http.Request, *oidc.IDToken, map[string]any) error {
		return fmt.Errorf("app: tenant not provisioned")
	}})
	_, resp, _ := h.login(t, h.browser, "ana", "ana-dev-pass", "/")
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	if h.me(t, h.browser)["sub"] != "" {
		t.Errorf("logged in despite OnLogin failing")
	}
}

func TestDefaultErrorPageIsPlainText(t *testing.T) {
	h := newHarness(t, harnessOptions{plainErrors: true})
	resp, body := h.get(t, h.browser, "/auth/callback?code=abcdefgh12345678")
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(body, "Sign-in failed") {
		t.Errorf("status %d type %q body %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if strings.Contains(body, "abcdefgh12345678") {
		t.Errorf("error page echoes the code")
	}
}

func TestEndSessionURL(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	var rawID string
	h.onLogin = func(_ http.ResponseWriter, r *http.Request, tok *oidc.IDToken, _ map[string]any) error {
		rawID = RawIDToken(r)
		LoginSession(r).Values["sub"] = tok.Subject
		return nil
	}
	h.login(t, h.browser, "ana", "ana-dev-pass", "/")
	if rawID == "" {
		t.Fatal("RawIDToken empty during OnLogin")
	}
	back := h.appSrv.URL + "/"
	u, err := url.Parse(h.auth.EndSessionURL(rawID, back))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != h.idpSrv.URL+"/logout" {
		t.Fatalf("EndSessionURL = %v (%v)", u, err)
	}
	q := u.Query()
	if q.Get("id_token_hint") != rawID || q.Get("client_id") != testClientID || q.Get("post_logout_redirect_uri") != back {
		t.Errorf("EndSessionURL query = %v", q)
	}
	resp, _ := h.get(t, h.browser, u.String())
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != back {
		t.Errorf("provider answered %d %q, want a redirect back", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := h.auth.EndSessionURL("", ""); strings.Contains(got, "id_token_hint") || !strings.Contains(got, "client_id=") {
		t.Errorf("EndSessionURL without hint = %q", got)
	}
}

func TestNewAuthRejectsConfig(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	good := AuthConfig{
		Issuer: h.idpSrv.URL, ClientID: testClientID, ClientSecret: testClientSecret,
		RedirectURL: h.appSrv.URL + "/auth/callback", Sessions: h.store, SessionName: sessionName,
		OnLogin:    func(http.ResponseWriter, *http.Request, *oidc.IDToken, map[string]any) error { return nil },
		HTTPClient: h.idpSrv.Client(),
	}
	if _, err := NewAuth(t.Context(), good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*AuthConfig)
	}{
		{"no issuer", func(c *AuthConfig) { c.Issuer = "" }},
		{"issuer mismatch", func(c *AuthConfig) { c.Issuer = h.idpSrv.URL + "/" }},
		{"unreachable issuer", func(c *AuthConfig) { c.Issuer = "http://127.0.0.1:1" }},
		{"no client id", func(c *AuthConfig) { c.ClientID = "" }},
		{"no secret", func(c *AuthConfig) { c.ClientSecret = "" }},
		{"relative redirect", func(c *AuthConfig) { c.RedirectURL = "/auth/callback" }},
		{"no store", func(c *AuthConfig) { c.Sessions = nil }},
		{"no session name", func(c *AuthConfig) { c.SessionName = "" }},
		{"no OnLogin", func(c *AuthConfig) { c.OnLogin = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			if _, err := NewAuth(t.Context(), cfg); err == nil || !strings.HasPrefix(err.Error(), "webapp: ") {
				t.Errorf("NewAuth error = %v", err)
			}
		})
	}
}

// oidcRelaxers are go-oidc's switches that turn a check of ID token
// verification off (checklist 3).
var oidcRelaxers = []string{"SkipClientIDCheck", "SkipExpiryCheck", "SkipIssuerCheck", "InsecureSkipSignatureCheck", "InsecureIssuerURLContext"}

// TestNoRelaxedTokenVerification (checklist 3): no configuration can turn
// on go-oidc's Skip* and Insecure* switches, because no code sets them.
// It reads every non-test Go file of each package of the module that
// imports go-oidc (this one builds the login verifier; adapters/oidcclaims
// checks back-channel logout tokens with it) and fails, naming file and
// line, on any use of a switch's name: a field in an oidc.Config literal
// or assignment, or a call. It also runs the same scan on a module of its
// own that sets one, so the scan is known to find one.
func TestNoRelaxedTokenVerification(t *testing.T) {
	t.Run("this module", func(t *testing.T) {
		root := filepath.Join("..", "..")
		if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module github.com/embedkit/embedkit\n") {
			t.Fatalf("%s is not the module's root (go.mod: %v)", root, err)
		}
		scanned, uses := findOIDCRelaxers(t, root)
		for _, u := range uses {
			t.Errorf("%s: go-oidc's verification must not be relaxed (checklist 3)", u)
		}
		for _, pkg := range []string{"examples/webapp", "adapters/oidcclaims"} {
			if !slices.Contains(scanned, pkg) {
				t.Errorf("%s was not scanned (scanned %q): the scan no longer finds the packages that use go-oidc", pkg, scanned)
			}
		}
	})
	t.Run("a module that sets one", func(t *testing.T) {
		root := t.TempDir()
		files := map[string]string{
			"go.mod": "module example.com/relaxed\n",
			"auth/verify.go": "package auth\n\nimport \"github.com/coreos/go-oidc/v3/oidc\"\n\n" +
				"func verifier(ks oidc.KeySet) *oidc.IDTokenVerifier {\n" +
				"\treturn oidc.NewVerifier(\"https://idp.example\", ks, &oidc.Config{ClientID: \"app\", SkipExpiryCheck: true})\n}\n",
			// A file of the same package without the import: an alias
			// of oidc.Config can carry a switch there.
			"auth/alias.go":       "package auth\n\nfunc relax(c *config) { c.InsecureSkipSignatureCheck = true }\n",
			"auth/verify_test.go": "package auth\n\nvar _ = oidc.Config{SkipIssuerCheck: true}\n",
			"other/other.go":      "package other\n\n// SkipExpiryCheck in a comment, and in a package without go-oidc:\nvar SkipClientIDCheck = true\n",
		}
		for name, text := range files {
			path := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		scanned, uses := findOIDCRelaxers(t, root)
		want := []string{
			"auth/alias.go:3:27: InsecureSkipSignatureCheck",
			"auth/verify.go:6:83: SkipExpiryCheck",
		}
		if !slices.Equal(scanned, []string{"auth"}) || !slices.Equal(uses, want) {
			t.Errorf("scanned %q, found\n%q\nwant\n%q", scanned, uses, want)
		}
	})
}

// findOIDCRelaxers returns the packages under root (as slash paths from
// root) whose non-test files import go-oidc, and every use of a name in
// oidcRelaxers in their non-test files, as "file:line:column: name" with
// file a slash path from root.
func findOIDCRelaxers(t *testing.T, root string) (scanned, uses []string) {
	t.Helper()
	fset := token.NewFileSet()
	byDir := map[string][]*ast.File{}
	importers := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		byDir[dir] = append(byDir[dir], f)
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/coreos/go-oidc") {
				importers[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range importers {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		scanned = append(scanned, filepath.ToSlash(rel))
		for _, f := range byDir[dir] {
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && slices.Contains(oidcRelaxers, id.Name) {
					pos := fset.Position(id.Pos())
					file, err := filepath.Rel(root, pos.Filename)
					if err != nil {
						file = pos.Filename
					}
					uses = append(uses, fmt.Sprintf("%s:%d:%d: %s", filepath.ToSlash(file), pos.Line, pos.Column, id.Name))
				}
				return true
			})
		}
	}
	slices.Sort(scanned)
	slices.Sort(uses)
	return scanned, uses
}

// fakeIdP is a minimal provider whose ID tokens each test crafts, signed
// with a key of the test's own.
type fakeIdP struct {
	issuer     string
	key        *rsa.PrivateKey
	kid        string
	noEndpoint bool
	mint       func(f *fakeIdP, nonce string) string
	// userInfo, when set, is published as userinfo_endpoint and answers
	// it, given the request's Authorization header.
	userInfo func(authorization string) (status int, body string)

	mu    sync.Mutex
	nonce string
}

func (f *fakeIdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		doc := map[string]any{
			"issuer":                                f.issuer,
			"authorization_endpoint":                f.issuer + "/authorize",
			"token_endpoint":                        f.issuer + "/token",
			"jwks_uri":                              f.issuer + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		}
		if !f.noEndpoint {
			doc["end_session_endpoint"] = f.issuer + "/logout"
		}
		if f.userInfo != nil {
			doc["userinfo_endpoint"] = f.issuer + "/userinfo"
		}
		_ = json.NewEncoder(w).Encode(doc)
	case "/jwks":
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &f.key.PublicKey, KeyID: f.kid, Algorithm: "RS256", Use: "sig"},
		}})
	case "/authorize":
		q := r.URL.Query()
		f.mu.Lock()
		f.nonce = q.Get("nonce")
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {"fake-code-0123456789"}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	case "/token":
		f.mu.Lock()
		nonce := f.nonce
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": "fake-access-token-0123456789",
			"token_type":   "Bearer",
			"expires_in":   3600,
			"id_token":     f.mint(f, nonce),
		})
	case "/userinfo":
		if f.userInfo == nil {
			http.NotFound(w, r)
			return
		}
		status, body := f.userInfo(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeIdP) claims(nonce string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": f.issuer, "aud": testClientID, "sub": "mallory", "nonce": nonce,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func signJWT(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	payload, _ := json.Marshal(claims)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := jws.CompactSerialize()
	return out
}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Checklists 2 and 3: ID tokens with a wrong nonce, issuer, audience,
// expiry, algorithm, key or signature are rejected.
func TestCallbackRejectsBadIDTokens(t *testing.T) {
	providerKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	foreignKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	type mintFunc func(t *testing.T, f *fakeIdP, nonce string) string
	rs := func(edit func(c map[string]any)) mintFunc {
		return func(t *testing.T, f *fakeIdP, nonce string) string {
			c := f.claims(nonce)
			edit(c)
			return signJWT(t, jose.RS256, f.key, f.kid, c)
		}
	}
	for _, tc := range []struct {
		name string
		mint mintFunc
		ok   bool
	}{
		{"valid (control)", rs(func(map[string]any) {}), true},
		{"nonce of another login", rs(func(c map[string]any) { c["nonce"] = randomString() }), false},
		{"nonce missing", rs(func(c map[string]any) { delete(c, "nonce") }), false},
		{"wrong issuer", rs(func(c map[string]any) { c["iss"] = "https://evil.test" }), false},
		{"wrong audience", rs(func(c map[string]any) { c["aud"] = "another-client" }), false},
		{"audience missing", rs(func(c map[string]any) { delete(c, "aud") }), false},
		{"expired", rs(func(c map[string]any) {
			c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
			c["exp"] = time.Now().Add(-time.Hour).Unix()
		}), false},
		{"alg none", func(t *testing.T, f *fakeIdP, nonce string) string {
			return b64(map[string]string{"alg": "none", "typ": "JWT"}) + "." + b64(f.claims(nonce)) + "."
		}, false},
		{"alg none with kid", func(t *testing.T, f *fakeIdP, nonce string) string {
			return b64(map[string]string{"alg": "none", "kid": f.kid}) + "." + b64(f.claims(nonce)) + "."
		}, false},
		{"HS256 keyed with the public key", func(t *testing.T, f *fakeIdP, nonce string) string {
			return signJWT(t, jose.HS256, f.key.PublicKey.N.Bytes(), f.kid, f.claims(nonce))
		}, false},
		{"unknown kid", func(t *testing.T, f *fakeIdP, nonce string) string {
			return signJWT(t, jose.RS256, f.key, "not-published", f.claims(nonce))
		}, false},
		{"foreign key with the published kid", func(t *testing.T, f *fakeIdP, nonce string) string {
			return signJWT(t, jose.RS256, foreignKey, f.kid, f.claims(nonce))
		}, false},
		{"payload swapped after signing", func(t *testing.T, f *fakeIdP, nonce string) string {
			parts := strings.Split(signJWT(t, jose.RS256, f.key, f.kid, f.claims(nonce)), ".")
			c := f.claims(nonce)
			c["sub"] = "admin"
			return parts[0] + "." + b64(c) + "." + parts[2]
		}, false},
		{"not a JWT", func(*testing.T, *fakeIdP, string) string { return "not-a-jwt" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fake *fakeIdP
			h := newHarness(t, harnessOptions{idp: func(t *testing.T, issuer, _ string, _ *clock) http.Handler {
				fake = &fakeIdP{issuer: issuer, key: providerKey, kid: "provider-key-1",
					mint: func(f *fakeIdP, nonce string) string { return tc.mint(t, f, nonce) }}
				return fake
			}})
			c := newBrowser()
			auth := h.startLogin(t, c, "/x")
			resp, _ := h.get(t, c, auth.String())
			cb := resp.Header.Get("Location")
			resp, body := h.get(t, c, cb)
			if tc.ok {
				if resp.StatusCode != http.StatusFound || h.onLogins.Load() != 1 {
					t.Fatalf("valid token refused: %d %s\n%s", resp.StatusCode, body, h.logs)
				}
				return
			}
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
			want := "ID token rejected"
			if strings.HasPrefix(tc.name, "nonce") {
				want = "nonce mismatch"
			}
			if !strings.Contains(h.logs.String(), want) {
				t.Errorf("logs do not say %q:\n%s", want, h.logs)
			}
			if h.onLogins.Load() != 0 || setCookieNamed(resp, sessionName) != nil {
				t.Errorf("a session was issued for a bad ID token")
			}
			if h.tokenCalls.Load() != 1 {
				t.Errorf("token endpoint called %d times", h.tokenCalls.Load())
			}
		})
	}
}

// TestCallbackUserInfo: a provider that keeps the profile out of the ID
// token (OpenID Connect Core 5.4) still gives a full sign-in: the user
// info endpoint is asked with the access token, and its claims fill the
// gaps. An answer about another user, or no answer, fails the sign-in.
func TestCallbackUserInfo(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const profile = `"name":"Mallory Doe","email":"m@example.com","locale":"de-DE","zoneinfo":"Europe/Berlin","tenant":"northwind","groups":["sales"]`
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		wantStatus int
		wantName   string
	}{
		{"profile from user info", 200, `{"sub":"mallory",` + profile + `}`, http.StatusFound, "Mallory Doe"},
		{"another user's answer", 200, `{"sub":"eve",` + profile + `}`, http.StatusUnauthorized, ""},
		{"user info fails", 503, `{"error":"temporarily_unavailable"}`, http.StatusBadGateway, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gotAuth atomic.Value
			var claims map[string]any
			h := newHarness(t, harnessOptions{
				idp: func(t *testing.T, issuer, _ string, _ *clock) http.Handler {
					return &fakeIdP{issuer: issuer, key: key, kid: "k",
						mint: func(f *fakeIdP, nonce string) string { return signJWT(t, jose.RS256, f.key, f.kid, f.claims(nonce)) },
						userInfo: func(a string) (int, string) {
							gotAuth.Store(a)
							return tc.status, tc.body
						}}
				},
				onLogin: func(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, c map[string]any) error {
					claims = c
					LoginSession(r).Values["sub"] = tok.Subject
					return nil
				},
			})
			c := newBrowser()
			auth := h.startLogin(t, c, "/x")
			resp, _ := h.get(t, c, auth.String())
			resp, body := h.get(t, c, resp.Header.Get("Location"))
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("callback: %d, want %d\n%s\n%s", resp.StatusCode, tc.wantStatus, body, h.logs)
			}
			if a, _ := gotAuth.Load().(string); a != "Bearer fake-access-token-0123456789" {
				t.Errorf("user info asked with Authorization %q, want the access token", a)
			}
			if tc.wantStatus != http.StatusFound {
				if h.onLogins.Load() != 0 || setCookieNamed(resp, sessionName) != nil {
					t.Error("a session was issued")
				}
				return
			}
			for k, want := range map[string]any{"name": tc.wantName, "email": "m@example.com", "locale": "de-DE", "zoneinfo": "Europe/Berlin", "tenant": "northwind"} {
				if claims[k] != want {
					t.Errorf("claim %s = %v, want %v", k, claims[k], want)
				}
			}
		})
	}
}

func TestEndSessionURLWithoutEndpoint(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOptions{idp: func(t *testing.T, issuer, _ string, _ *clock) http.Handler {
		return &fakeIdP{issuer: issuer, key: key, kid: "k", noEndpoint: true}
	}})
	if got := h.auth.EndSessionURL("hint", "http://app.test/"); got != "" {
		t.Errorf("EndSessionURL = %q, want empty", got)
	}
}

func TestVerifierChecksLogoutTokens(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	idp, err := devidp.New(devidp.Config{
		Issuer:  issuer,
		Clients: []devidp.Client{{ID: testClientID, Secret: testClientSecret, RedirectURIs: []string{"http://app.test/cb"}}},
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = idp
	srv.Start()
	defer srv.Close()
	a, err := NewAuth(context.Background(), AuthConfig{
		Issuer: issuer, ClientID: testClientID, ClientSecret: testClientSecret,
		RedirectURL: "http://app.test/cb", Sessions: sessions.NewCookieStore([]byte("0123456789abcdef0123456789abcdef")),
		SessionName: sessionName, HTTPClient: srv.Client(), Logger: slog.New(slog.DiscardHandler),
		OnLogin: func(http.ResponseWriter, *http.Request, *oidc.IDToken, map[string]any) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := idp.LogoutToken(testClientID, "ana", "sid-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	lt, err := a.Verifier().VerifyLogout(t.Context(), tok)
	if err != nil || lt.Subject != "ana" || lt.SessionID != "sid-1" {
		t.Errorf("VerifyLogout = %+v, %v", lt, err)
	}
}
