package webapp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/devidp"
	"github.com/embedkit/embedkit/middleware"
)

// secretSet collects values that must never appear in logs, pages or
// app headers, by label.
type secretSet struct {
	mu     sync.Mutex
	values map[string]string // value → label
}

func (s *secretSet) add(label, v string) {
	if len(v) < 8 { // too short to search for meaningfully
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values = map[string]string{}
	}
	s.values[v] = label
}

func (s *secretSet) label(v string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[v]
}

func (s *secretSet) labels() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[string]int{}
	for _, l := range s.values {
		n[l]++
	}
	return n
}

func (s *secretSet) snapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.values))
	for k, v := range s.values {
		out[k] = v
	}
	return out
}

// captureTransport records the credentials the app sends to the platform
// and the provider, and the tokens the provider answers.
type captureTransport struct {
	secrets *secretSet
	base    http.RoundTripper
	// keyFetches counts the app's requests for the provider's keys.
	keyFetches atomic.Int32

	mu sync.Mutex
	// mints are the bodies of the app's generate-session requests.
	mints []string
}

// mintBodies returns the bodies of the generate-session requests so far.
func (c *captureTransport) mintBodies() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.mints)
}

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/jwks") {
		c.keyFetches.Add(1)
	}
	if strings.HasSuffix(req.URL.Path, "/embed/generate-session") && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(body)
			c.mu.Lock()
			c.mints = append(c.mints, string(b))
			c.mu.Unlock()
		}
	}
	if auth, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok {
		// The platform's API key; the provider's user info endpoint is
		// sent the access token, captured from the token answer already.
		if !strings.HasSuffix(req.URL.Path, "/userinfo") {
			c.secrets.add("API key", auth)
		}
	}
	if _, pass, ok := req.BasicAuth(); ok {
		if p, err := url.QueryUnescape(pass); err == nil {
			pass = p
		}
		c.secrets.add("client secret", pass)
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/token") || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	var tok struct {
		Access string `json:"access_token"`
		ID     string `json:"id_token"`
	}
	if json.Unmarshal(body, &tok) == nil {
		c.secrets.add("ID token", tok.ID)
		c.secrets.add("access token", tok.Access)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// flow is a running demo and everything the test saw of it.
type flow struct {
	t         *testing.T
	d         *Demo
	logs      *syncBuffer
	secrets   *secretSet
	transport *captureTransport

	mu   sync.Mutex
	seen []string // app bodies and headers, provider bodies
}

func startFlow(t *testing.T, getenv func(string) string) *flow {
	t.Helper()
	return startFlowWith(t, DemoOptions{Getenv: getenv})
}

// startFlowWith is startFlow with more of the demo's options; Listen,
// Logger and HTTPClient are the flow's.
func startFlowWith(t *testing.T, opts DemoOptions) *flow {
	t.Helper()
	f := &flow{t: t, logs: &syncBuffer{}, secrets: &secretSet{}}
	f.transport = &captureTransport{secrets: f.secrets, base: http.DefaultTransport.(*http.Transport).Clone()}
	hc := &http.Client{
		Timeout:   10 * time.Second,
		Transport: f.transport,
	}
	opts.Listen = "127.0.0.1:0"
	opts.Logger = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.HTTPClient = hc
	d, err := RunDemo(t.Context(), opts)
	if err != nil {
		t.Fatalf("RunDemo: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	f.d = d
	return f
}

// browser is a cookie jar that follows no redirects by itself.
type browser struct {
	f   *flow
	jar *cookiejar.Jar
	c   *http.Client
	// callback is the app's last answer to the sign-in callback.
	callback *http.Response
}

func (f *flow) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{f: f, jar: jar, c: &http.Client{
		Jar:           jar,
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// do sends req and returns the answer with its body read. App answers
// are checked for the security headers and kept, headers included
// (except the frame endpoint's redirect to the platform, which carries
// the single-use id by design, and sign-out's redirect to the provider,
// which carries the ID token as id_token_hint by design); provider
// answers' bodies are kept.
func (b *browser) do(req *http.Request) (*http.Response, string) {
	t := b.f.t
	t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL.Path, err)
	}
	app, _ := url.Parse(b.f.d.AppURL)
	idp, _ := url.Parse(b.f.d.IssuerURL)
	b.f.mu.Lock()
	defer b.f.mu.Unlock()
	if req.URL.Host == app.Host && req.URL.Path == CallbackPath {
		b.callback = resp
	}
	switch req.URL.Host {
	case app.Host:
		// A page's iframe src is the platform URL its handler minted,
		// with the single-use id by design; the rest of the page is
		// kept.
		b.f.seen = append(b.f.seen, b.f.withoutFrameSrc(string(body)))
		byDesign := resp.StatusCode == http.StatusSeeOther &&
			(strings.HasPrefix(req.URL.Path, "/embed/frame/") || req.URL.Path == LogoutPath && strings.HasPrefix(resp.Header.Get("Location"), b.f.d.IssuerURL+"/"))
		for k, vs := range resp.Header {
			if k == "Location" && byDesign {
				continue
			}
			b.f.seen = append(b.f.seen, k+": "+strings.Join(vs, ", "))
		}
		b.f.checkHeaders(req, resp)
	case idp.Host:
		b.f.seen = append(b.f.seen, string(body))
	}
	return resp, string(body)
}

// checkHeaders asserts the security headers of every app answer.
func (f *flow) checkHeaders(req *http.Request, resp *http.Response) {
	t := f.t
	t.Helper()
	emu, _ := url.Parse(f.d.PlatformURL)
	csp := resp.Header.Get("Content-Security-Policy")
	if req.URL.Path == BackChannelLogoutPath {
		return
	}
	if !strings.Contains(csp, "frame-src 'self' "+emu.Scheme+"://"+emu.Host) || !strings.Contains(csp, "frame-ancestors 'self'") {
		t.Errorf("%s %s: Content-Security-Policy %q lacks frame-src of the platform or frame-ancestors 'self'", req.Method, req.URL.Path, csp)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%s %s: X-Content-Type-Options %q", req.Method, req.URL.Path, resp.Header.Get("X-Content-Type-Options"))
	}
	if resp.Header.Get("Referrer-Policy") == "" {
		t.Errorf("%s %s: no Referrer-Policy", req.Method, req.URL.Path)
	}
}

func (b *browser) get(u string) (*http.Response, string) {
	b.f.t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.f.t.Fatal(err)
	}
	return b.do(req)
}

func (b *browser) post(u string, form url.Values, header http.Header) (*http.Response, string) {
	b.f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		b.f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, vs := range header {
		req.Header[k] = vs
	}
	return b.do(req)
}

// follow resolves redirects from resp, GETting each Location, and
// returns the final answer.
func (b *browser) follow(resp *http.Response, body string) (*http.Response, string) {
	b.f.t.Helper()
	for range 10 {
		if resp.StatusCode < 300 || resp.StatusCode > 399 {
			return resp, body
		}
		next, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		if err != nil {
			b.f.t.Fatalf("bad Location %q", resp.Header.Get("Location"))
		}
		resp, body = b.get(next.String())
	}
	b.f.t.Fatal("too many redirects")
	return nil, ""
}

var (
	idpHiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	csrfInput      = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
)

// login signs user in through the provider's form and returns the page
// the app lands on.
func (b *browser) login(user, password string) (*http.Response, string) {
	t := b.f.t
	t.Helper()
	resp, _ := b.get(b.f.d.AppURL + LoginPath)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("GET /login: %d, want 302", resp.StatusCode)
	}
	authorize := resp.Header.Get("Location")
	if !strings.HasPrefix(authorize, b.f.d.IssuerURL+"/authorize?") {
		t.Fatalf("GET /login: Location %q is not the provider's authorize endpoint", authorize)
	}
	resp, body := b.get(authorize)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET authorize: %d", resp.StatusCode)
	}
	form := url.Values{"username": {user}, "password": {password}}
	for _, m := range idpHiddenInput.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	resp, _ = b.post(b.f.d.IssuerURL+"/authorize", form, nil)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("POST authorize: %d, want 302", resp.StatusCode)
	}
	cb, _ := url.Parse(resp.Header.Get("Location"))
	b.f.secrets.add("auth code", cb.Query().Get("code"))
	return b.follow(resp, "")
}

// sessionCookie returns the browser's host session cookie; the test
// fails when there is none.
func (b *browser) sessionCookie() *http.Cookie {
	b.f.t.Helper()
	for _, c := range b.jar.Cookies(mustURL(b.f.t, b.f.d.AppURL)) {
		if c.Name == SessionName {
			return c
		}
	}
	b.f.t.Fatal("the browser holds no session cookie")
	return nil
}

// signedInWith reports whether a request carrying only cookie c is
// signed in at f's app (200 for /dashboards) or sent to sign in; any
// other answer fails the test.
func (f *flow) signedInWith(c *http.Cookie) bool {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.d.AppURL+"/dashboards", nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		return true
	case resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), LoginPath):
		return false
	}
	f.t.Fatalf("GET /dashboards with a saved cookie: %d", resp.StatusCode)
	return false
}

// sessionStates counts user's embed sessions at the emulator: revoked, and
// live (every other state).
func (f *flow) sessionStates(user string) (live, revoked int) {
	f.t.Helper()
	for _, s := range f.sessions() {
		switch {
		case s.ExternalID != user:
		case s.State == "revoked":
			revoked++
		default:
			live++
		}
	}
	return live, revoked
}

// subjectOf returns the sub claim of a JWT, unverified.
func subjectOf(t *testing.T, jwt string) string {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Sub string `json:"sub"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.Sub
}

// csrf returns the form token of a page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no csrf_token in the page")
	}
	return html.UnescapeString(m[1])
}

// sessions returns the emulator's sessions.
func (f *flow) sessions() []emulator.SessionInfo {
	f.t.Helper()
	ss := f.d.Emulator.Sessions()
	for _, s := range ss {
		f.secrets.add("embed session id", s.SessionID)
	}
	return ss
}

// exchange redeems a session id at the emulator, as the iframe does.
func (f *flow) exchange(id string) (int, string) {
	f.t.Helper()
	body, _ := json.Marshal(map[string]string{"sessionId": id})
	resp, err := http.Post(f.d.PlatformURL+"/api/v1/embed/session/token", "application/json", bytes.NewReader(body))
	if err != nil {
		f.t.Fatalf("exchange: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	f.secrets.add("embed token", out.Token)
	return resp.StatusCode, out.Token
}

// withoutFrameSrc is page with the value of every src attribute that
// is a platform URL left out.
func (f *flow) withoutFrameSrc(page string) string {
	re := regexp.MustCompile(`src="` + regexp.QuoteMeta(f.d.PlatformURL) + `/[^"]*"`)
	return re.ReplaceAllLiteralString(page, `src="(a platform URL)"`)
}

// framePageSrc matches the iframe of an embed page (the dashboard,
// workspace and chat pages' #embed-frame, the module page's
// #module-frame) and its src (the module page's in data-module-src, which
// its module sets as the src once it listens).
var framePageSrc = regexp.MustCompile(`<iframe\s[^>]*?\bid="(?:embed|module)-frame"[^>]*?\s(?:data-module-)?src="([^"]*)"`)

// framePage loads an embed page whose handler mints as it renders
// (FrameURL), checks that it answers 200 with Cache-Control no-store, and
// returns the platform URL of its iframe src and the page.
func (b *browser) framePage(path string) (*url.URL, string) {
	t := b.f.t
	t.Helper()
	resp, body := b.get(b.f.d.AppURL + path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, want 200; body %.300s\nlogs: %s", path, resp.StatusCode, body, lastLines(b.f.logs.String(), 8))
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET %s: Cache-Control %q, want no-store (the page carries a single-use session id)", path, got)
	}
	m := framePageSrc.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET %s: no embed iframe with a src; body %.600s", path, body)
	}
	src := html.UnescapeString(m[1])
	loc, err := url.Parse(src)
	if err != nil || !strings.HasPrefix(src, b.f.d.PlatformURL+"/") {
		t.Fatalf("GET %s: the iframe src is not on the platform (%v)", path, err)
	}
	for _, k := range []string{"session", "sessionId"} {
		b.f.secrets.add("embed session id", loc.Query().Get(k))
	}
	return loc, body
}

// frameTarget matches an embed page's data-embedkit-target.
var frameTarget = regexp.MustCompile(`\sdata-embedkit-target="([^"]*)"`)

// remint asks the session endpoint for a new session of the target the
// page names in its iframe's data-embedkit-target, as the host script
// does when the frame's session is used up, and returns the platform URL
// it answers. The answer carries a session id by design, so it is read
// outside the recorded flow.
func (b *browser) remint(page string) *url.URL {
	t := b.f.t
	t.Helper()
	m := frameTarget.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page's iframe has no data-embedkit-target")
	}
	target := html.UnescapeString(m[1])
	body, _ := json.Marshal(map[string]string{"target": target})
	req, _ := http.NewRequest(http.MethodPost, b.f.d.AppURL+middleware.DefaultSessionPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		URL       string `json:"url"`
		SessionID string `json:"sessionId"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	b.f.secrets.add("embed session id", out.SessionID)
	u, perr := url.Parse(out.URL)
	if err != nil || perr != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(out.URL, b.f.d.PlatformURL+"/") {
		t.Fatalf("session endpoint for the page's target %q: %d (%v)", target, resp.StatusCode, err)
	}
	return u
}

// frameRedirect loads an embed's frame URL and returns the platform URL
// it redirects to.
func (b *browser) frameRedirect(path string) *url.URL {
	t := b.f.t
	t.Helper()
	resp, body := b.get(b.f.d.AppURL + path)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET %s: %d, want 303; body %.300s\nlogs: %s", path, resp.StatusCode, body, lastLines(b.f.logs.String(), 8))
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), b.f.d.PlatformURL+"/") {
		t.Fatalf("GET %s: Location is not on the platform (%v)", path, err)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET %s: Cache-Control %q, want no-store", path, got)
	}
	if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("GET %s: Referrer-Policy %q, want no-referrer", path, got)
	}
	b.f.secrets.add("embed session id", loc.Query().Get("session"))
	return loc
}

func TestDemoFlow(t *testing.T) {
	f := startFlow(t, nil)
	app := f.d.AppURL
	ana, ben, chloe := f.browser(), f.browser(), f.browser()

	// Signed out: the home page offers sign-in; protected pages send to it.
	resp, body := ana.get(app + "/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="sign-in-cta"`) || !strings.Contains(body, `href="/login"`) {
		t.Fatalf("GET / signed out: %d, no sign-in link", resp.StatusCode)
	}
	resp, _ = ana.get(app + "/dashboards")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?return_to=%2Fdashboards" {
		t.Fatalf("GET /dashboards signed out: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// An embed page is sent to sign in, back to itself after, and mints
	// nothing.
	for _, p := range []string{"/dashboards/sales-overview", "/ask", "/creator", ModulePath} {
		resp, _ = ana.get(app + p)
		if want := "/login?return_to=" + url.QueryEscape(p); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want ||
			resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s signed out: %d %q, Cache-Control %q, want 303 to %s", p, resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Cache-Control"), want)
		}
	}
	if n := len(f.sessions()); n != 0 {
		t.Errorf("signed-out page loads minted %d sessions", n)
	}

	// Sign in: the app lands on the dashboards list.
	resp, body = ana.login("ana", "ana-dev-pass")
	if resp.Request.URL.Path != "/dashboards" || resp.StatusCode != http.StatusOK {
		t.Fatalf("after login: %s %d", resp.Request.URL.Path, resp.StatusCode)
	}
	for _, want := range []string{"Sales overview", "Regional performance", `href="/dashboards/sales-overview"`, `href="/dashboards/regional-performance"`} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboards page lacks %q", want)
		}
	}
	checkSessionCookie(t, ana.callback, app)
	if resp, _ := ana.get(app + "/"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboards" {
		t.Errorf("GET / signed in: %d %q, want 303 /dashboards", resp.StatusCode, resp.Header.Get("Location"))
	}

	// The dashboard page mints as it renders: its iframe src is the
	// platform URL with a new session, the viewer's locale and zone, and
	// the page is no-store. Every load mints again.
	before := len(f.sessions())
	loc, body := ana.framePage("/dashboards/sales-overview")
	if n := len(f.sessions()) - before; n != 1 {
		t.Errorf("a load of the dashboard page minted %d sessions, want 1", n)
	}
	q := loc.Query()
	if loc.Path != "/embed/dashboard/sales-overview" || q.Get("session") == "" || q.Get("locale") != "de-DE" || q.Get("timezone") != "Europe/Berlin" {
		t.Fatalf("dashboard page iframe: path %s, session present %t, locale %q, timezone %q", loc.Path, q.Has("session"), q.Get("locale"), q.Get("timezone"))
	}
	// The host script is loaded from its content-hashed URL, which it is
	// served immutable at; the frame's target is the name the session
	// endpoint re-mints it by.
	for _, want := range []string{"data-embedkit", `data-embedkit-target="dashboard/sales-overview"`, `data-embedkit-session-url="/embed/session"`, `src="` + f.d.App.kit.HostScriptSrc(HostScriptPath) + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard page lacks %q", want)
		}
	}
	// The session endpoint re-mints the frame by that name.
	if again := ana.remint(body); again.Path != loc.Path || again.Query().Get("session") == q.Get("session") {
		t.Errorf("re-mint of the dashboard page's target: path %s, want %s with a new session", again.Path, loc.Path)
	}
	before = len(f.sessions())
	reload, _ := ana.framePage("/dashboards/sales-overview")
	if id := reload.Query().Get("session"); id == "" || id == q.Get("session") {
		t.Error("a second load of the dashboard page did not mint a new session id")
	}
	if n := len(f.sessions()) - before; n != 1 {
		t.Errorf("a second load of the dashboard page minted %d sessions, want 1", n)
	}
	// A HEAD of the page mints nothing.
	req, _ := http.NewRequest(http.MethodHead, app+"/dashboards/sales-overview", nil)
	if resp, _ := ana.do(req); resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" || len(f.sessions())-before != 1 {
		t.Errorf("HEAD of the dashboard page: %d, Cache-Control %q, %d sessions minted, want none", resp.StatusCode, resp.Header.Get("Cache-Control"), len(f.sessions())-before-1)
	}
	anaToken := csrfOf(t, body)
	before = len(f.sessions())
	if resp, _ := ana.get(app + "/dashboards/no-such-board"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown dashboard: %d, want 404", resp.StatusCode)
	}
	if n := len(f.sessions()) - before; n != 0 {
		t.Errorf("an unknown dashboard's page minted %d sessions", n)
	}
	if resp, _ := ana.get(app + "/embed/frame/dashboard/broken-board"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unregistered dashboard at the frame endpoint: %d, want 404", resp.StatusCode)
	}

	// The frame endpoint, kept for the project pages, the React page and
	// <embedkit-frame>, mints on every load: a 303 to the platform with
	// the viewer's locale and zone; the id redeems once; a reload gets a
	// new id.
	loc = ana.frameRedirect("/embed/frame/dashboard/sales-overview")
	q = loc.Query()
	if loc.Path != "/embed/dashboard/sales-overview" || q.Get("session") == "" || q.Get("locale") != "de-DE" || q.Get("timezone") != "Europe/Berlin" {
		t.Fatalf("frame redirect: path %s, locale %q, timezone %q", loc.Path, q.Get("locale"), q.Get("timezone"))
	}
	first := q.Get("session")
	if code, tok := f.exchange(first); code != http.StatusOK || tok == "" {
		t.Fatalf("first exchange: %d", code)
	}
	if code, _ := f.exchange(first); code == http.StatusOK {
		t.Fatal("second exchange of the same id succeeded")
	}
	second := ana.frameRedirect("/embed/frame/dashboard/sales-overview").Query().Get("session")
	if second == "" || second == first {
		t.Fatal("reload did not mint a new session id")
	}
	ana.frameRedirect("/embed/frame/dashboard/regional-performance")

	// Ben signs in too, and loads a dashboard.
	if resp, _ := ben.login("ben", "ben-dev-pass"); resp.Request.URL.Path != "/dashboards" {
		t.Fatalf("ben's login landed on %s", resp.Request.URL.Path)
	}
	benLoc := ben.frameRedirect("/embed/frame/dashboard/sales-overview")
	if benLoc.Query().Get("locale") != "en-US" || benLoc.Query().Get("timezone") != "America/New_York" {
		t.Errorf("ben's frame: locale %q timezone %q", benLoc.Query().Get("locale"), benLoc.Query().Get("timezone"))
	}

	// Settings: validated against the offered lists, behind the form
	// token; the saved choice applies to the next mint.
	_, benPage := ben.get(app + "/dashboards/regional-performance")
	benToken := csrfOf(t, benPage)
	jsonHdr := http.Header{"Accept": {"application/json"}}
	if resp, _ := ben.post(app+SettingsPath, url.Values{"locale": {"fr-FR"}}, jsonHdr); resp.StatusCode != http.StatusForbidden {
		t.Errorf("settings without token: %d, want 403", resp.StatusCode)
	}
	if resp, _ := ben.post(app+SettingsPath, url.Values{"csrf_token": {benToken}, "locale": {"xx-XX"}}, jsonHdr); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("settings with a locale not offered: %d, want 400", resp.StatusCode)
	}
	if resp, _ := ben.post(app+SettingsPath, url.Values{"csrf_token": {benToken}, "timezone": {"Mars/Olympus"}}, jsonHdr); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("settings with a zone not offered: %d, want 400", resp.StatusCode)
	}
	resp, _ = ben.post(app+SettingsPath, url.Values{"csrf_token": {benToken}, "locale": {"fr-FR"}, "timezone": {"Asia/Tokyo"}, "scheme": {"dark"}}, jsonHdr)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("settings as JSON: %d, want 204", resp.StatusCode)
	}
	resp, _ = ben.post(app+SettingsPath, url.Values{"csrf_token": {benToken}, "scheme": {"dark"}, "return_to": {"/dashboards/regional-performance"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboards/regional-performance" {
		t.Errorf("settings form: %d %q, want 303 back", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ = http.NewRequest(http.MethodPost, app+SettingsPath, strings.NewReader(`{"locale":"fr-FR","csrf_token":"`+benToken+`"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, body := ben.do(req); resp.StatusCode != http.StatusNoContent {
		t.Errorf("settings with a JSON body: %d %s", resp.StatusCode, body)
	}
	benLoc = ben.frameRedirect("/embed/frame/dashboard/sales-overview")
	if benLoc.Query().Get("locale") != "fr-FR" || benLoc.Query().Get("timezone") != "Asia/Tokyo" {
		t.Errorf("after settings: locale %q timezone %q, want fr-FR Asia/Tokyo", benLoc.Query().Get("locale"), benLoc.Query().Get("timezone"))
	}
	_, benPage = ben.get(app + "/dashboards/sales-overview")
	if !strings.Contains(benPage, `data-scheme="dark"`) || !strings.Contains(benPage, `<option value="fr-FR" selected>`) {
		t.Error("the page does not show the saved settings")
	}

	// The analytics chat: every signed-in viewer; its frame mints a chat
	// session with the viewer's own security context.
	loc, body = ben.framePage("/ask")
	if loc.Path != "/embed/chat" || loc.Query().Get("sessionId") == "" ||
		!strings.Contains(body, `data-embedkit-target="ask"`) || !strings.Contains(body, `href="/ask" aria-current="page"`) {
		t.Errorf("GET /ask as ben: iframe path %s, sessionId present %t; body %.300s", loc.Path, loc.Query().Has("sessionId"), body)
	}
	if again := ben.remint(body); again.Path != "/embed/chat" {
		t.Errorf("re-mint of the ask page's target: path %s, want /embed/chat", again.Path)
	}
	if loc := ben.frameRedirect("/embed/frame/ask"); loc.Path != "/embed/chat" || loc.Query().Get("sessionId") == "" {
		t.Errorf("chat frame redirect path %s, sessionId present %t", loc.Path, loc.Query().Has("sessionId"))
	}

	// Creator workspace: only for creator-mode tenants.
	if resp, body := ben.get(app + "/creator"); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `data-kind="forbidden"`) {
		t.Errorf("GET /creator as ben: %d, want the 403 page", resp.StatusCode)
	}
	chloe.login("chloe", "chloe-dev-pass")
	if loc, body := chloe.framePage("/creator"); loc.Path != "/embed/d/1/app" || loc.Query().Get("session") == "" || !strings.Contains(body, `data-embedkit-target="app"`) {
		t.Errorf("GET /creator as chloe: iframe path %s, session present %t", loc.Path, loc.Query().Has("session"))
	} else if again := chloe.remint(body); again.Path != loc.Path {
		t.Errorf("re-mint of the workspace's target: path %s, want %s", again.Path, loc.Path)
	}
	if loc, body := chloe.framePage(ModulePath); loc.Path != "/embed/dashboard/sales-overview" || loc.Query().Get("session") == "" {
		t.Errorf("GET %s as chloe: iframe path %s, session present %t", ModulePath, loc.Path, loc.Query().Has("session"))
	} else if again := chloe.remint(body); again.Path != loc.Path {
		t.Errorf("re-mint of the module page's target: path %s, want %s", again.Path, loc.Path)
	}
	if loc := chloe.frameRedirect("/embed/frame/app"); loc.Path != "/embed/d/1/app" {
		t.Errorf("creator frame redirect path %s", loc.Path)
	}
	if resp, _ := ben.get(app + "/embed/frame/app"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("creator frame for ben: %d, want 403", resp.StatusCode)
	}

	// Platform outage: the dashboard page answers the app's outage page,
	// 503, whose "Try again" loads the page again; the frame endpoint
	// answers the in-frame one.
	f.d.Emulator.InjectFault(emulator.Fault{Method: http.MethodPost, Path: "/api/v1/embed/generate-session", Status: http.StatusServiceUnavailable})
	resp, body = ben.get(app + "/dashboards/sales-overview")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `data-kind="outage"`) ||
		!strings.Contains(body, `href="/dashboards/sales-overview"`) || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("Cache-Control") != "no-store" || !strings.Contains(body, `class="site-header"`) || strings.Contains(body, "<iframe") {
		t.Errorf("dashboard page in an outage: %d, Retry-After %q, Cache-Control %q; body %.400s",
			resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Cache-Control"), body)
	}
	resp, body = ben.get(app + "/embed/frame/dashboard/sales-overview")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `data-kind="outage"`) ||
		!strings.Contains(body, `href="/embed/frame/dashboard/sales-overview"`) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("outage: %d, Retry-After %q; body %.400s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for _, unwanted := range []string{`class="site-header"`, `id="sign-in"`, `class="site-footer"`, `<base target="_top">`, `href="/"`} {
		if strings.Contains(body, unwanted) {
			t.Errorf("the in-frame outage page has %s", unwanted)
		}
	}
	if !strings.Contains(body, `href="/static/app.css"`) {
		t.Error("the in-frame outage page has no stylesheet")
	}
	// A project page's frame route answers the in-frame page too.
	resp, body = ana.get(app + "/projects/nordics-rollout/analytics/frame")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `data-kind="outage"`) ||
		!strings.Contains(body, `href="/projects/nordics-rollout/analytics/frame"`) || strings.Contains(body, `class="site-header"`) {
		t.Errorf("project frame route in an outage: %d; body %.600s", resp.StatusCode, body)
	}
	f.d.Emulator.ClearFaults()

	// Inside an iframe, a signed-out viewer gets a page that signs in
	// in the top window.
	stranger := f.browser()
	req, _ = http.NewRequest(http.MethodGet, app+"/embed/frame/dashboard/sales-overview", nil)
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	req.Header.Set("Referer", app+"/dashboards/sales-overview")
	resp, body = stranger.do(req)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `<base target="_top">`) ||
		!strings.Contains(body, `href="/login?return_to=%2Fdashboards%2Fsales-overview"`) {
		t.Errorf("signed-out frame: %d; body %.600s", resp.StatusCode, body)
	}
	if strings.Contains(body, `class="site-header"`) {
		t.Error("the in-frame sign-in page has the site header")
	}

	// Logout: GET is 405, a cross-site POST and a POST without the form
	// token are 403, and none of them ends anything.
	if resp, _ := ana.get(app + LogoutPath); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost {
		t.Errorf("GET /logout: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	// A person who lands on the refusal reads what happened and finds a
	// way back and a fresh sign-out form.
	if resp, body := ana.post(app+LogoutPath, url.Values{}, nil); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "Sign-out refused") || !strings.Contains(body, "You are still signed in") ||
		!strings.Contains(body, `href="/dashboards">Back to dashboards</a>`) || !strings.Contains(body, `id="logout-form"`) {
		t.Errorf("POST /logout without token: %d, want 403 with an explanation and a way back; body %.3000s", resp.StatusCode, body)
	}
	if resp, _ := ana.post(app+LogoutPath, url.Values{"csrf_token": {"wrong" + anaToken}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /logout with a wrong token: %d, want 403", resp.StatusCode)
	}
	crossSite := http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}
	if resp, _ := ana.post(app+LogoutPath, url.Values{"csrf_token": {anaToken}}, crossSite); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST /logout: %d, want 403", resp.StatusCode)
	}
	for _, s := range f.sessions() {
		if s.State == "revoked" {
			t.Fatalf("a refused logout revoked session of %s", s.ExternalID)
		}
	}

	preLogout := ana.jar.Cookies(mustURL(t, app))
	resp, _ = ana.post(app+LogoutPath, url.Values{"csrf_token": {anaToken}}, nil)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), f.d.IssuerURL+"/logout?") {
		t.Fatalf("POST /logout: %d %q, want 303 to the provider", resp.StatusCode, resp.Header.Get("Location"))
	}
	end, _ := url.Parse(resp.Header.Get("Location"))
	if got := end.Query().Get("post_logout_redirect_uri"); got != app+"/" {
		t.Errorf("post_logout_redirect_uri %q", got)
	}
	// The login's ID token, kept on the server since sign-in, is the hint.
	if hint := end.Query().Get("id_token_hint"); f.secrets.label(hint) != "ID token" || subjectOf(t, hint) != "ana" {
		t.Errorf("id_token_hint is not ana's ID token (present: %t)", hint != "")
	}
	resp, body = ana.follow(resp, "")
	if resp.Request.URL.String() != app+"/" || !strings.Contains(body, `id="sign-in-cta"`) {
		t.Errorf("after logout: %s", resp.Request.URL)
	}
	anaCount, benCount := 0, 0
	for _, s := range f.sessions() {
		switch s.ExternalID {
		case "ana":
			anaCount++
			if s.State != "revoked" {
				t.Errorf("ana's session %s after logout", s.State)
			}
		case "ben":
			benCount++
			if s.State == "revoked" {
				t.Error("ben's session was revoked by ana's logout")
			}
		}
	}
	if anaCount < 3 || benCount < 2 {
		t.Errorf("sessions: ana %d, ben %d", anaCount, benCount)
	}

	// Replaying ana's pre-logout cookie reaches nothing protected.
	replay := f.browser()
	replay.jar.SetCookies(mustURL(t, app), preLogout)
	for _, p := range []string{"/dashboards", "/dashboards/sales-overview", "/embed/frame/dashboard/sales-overview", "/creator"} {
		resp, _ := replay.get(app + p)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Errorf("replayed cookie at %s: %d %q, want a redirect to sign-in", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// Ben is still signed in.
	if resp, _ := ben.get(app + "/dashboards"); resp.StatusCode != http.StatusOK {
		t.Errorf("ben after ana's logout: %d", resp.StatusCode)
	}

	// Back-channel logout alone (chloe signs out at the provider) ends
	// her host session and revokes her embed sessions.
	chloePre := chloe.jar.Cookies(mustURL(t, app))
	// Without a hint the provider asks first, and ends nothing until the
	// user confirms.
	backChannels := strings.Count(f.logs.String(), `msg="webapp: back-channel logout"`)
	if resp, body := chloe.get(f.d.IssuerURL + "/logout"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("provider logout without a hint: %d, want its confirmation page", resp.StatusCode)
	}
	if strings.Count(f.logs.String(), `msg="webapp: back-channel logout"`) != backChannels {
		t.Error("the provider ended chloe's session before she confirmed")
	}
	resp, _ = chloe.post(f.d.IssuerURL+"/logout", url.Values{"confirm": {"yes"}}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("provider logout confirmed: %d", resp.StatusCode)
	}
	if strings.Count(f.logs.String(), `msg="webapp: back-channel logout"`) == backChannels {
		t.Error("no back-channel logout reached the app")
	}
	for _, s := range f.sessions() {
		if s.ExternalID == "chloe" && s.State != "revoked" {
			t.Errorf("chloe's session %s after back-channel logout", s.State)
		}
	}
	replay = f.browser()
	replay.jar.SetCookies(mustURL(t, app), chloePre)
	if resp, _ := replay.get(app + "/creator"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("chloe's cookie after back-channel logout: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := ben.post(app+BackChannelLogoutPath, url.Values{"logout_token": {"not-a-token"}}, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("back-channel logout with a bad token: %d, want 400", resp.StatusCode)
	}

	// Request bodies are bounded.
	big := url.Values{"csrf_token": {benToken}, "scheme": {"dark"}, "pad": {strings.Repeat("x", maxRequestBody)}}
	if resp, _ := ben.post(app+SettingsPath, big, jsonHdr); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("oversized settings body: %d, want 400", resp.StatusCode)
	}

	// The host script's session endpoint mints for a registered target
	// named by its frame path. (Its answer carries a session id by design,
	// so it is read outside the recorded flow.)
	req, _ = http.NewRequest(http.MethodPost, app+"/embed/session", strings.NewReader(`{"target":"dashboard/sales-overview"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if resp, err := ben.c.Do(req); err != nil {
		t.Fatal(err)
	} else {
		var out struct {
			URL       string `json:"url"`
			SessionID string `json:"sessionId"`
		}
		err := json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		f.secrets.add("embed session id", out.SessionID)
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(out.URL, f.d.PlatformURL+"/embed/dashboard/sales-overview?") {
			t.Errorf("session endpoint: %d %v", resp.StatusCode, err)
		}
	}

	// The JSON session endpoint answers JSON errors.
	req, _ = http.NewRequest(http.MethodPost, app+"/embed/session", strings.NewReader(`{"target":"nope"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, body = ben.do(req)
	if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("session endpoint, unknown target: %d %s", resp.StatusCode, body)
	}
	if resp, _ := ben.get(app + "/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
	if resp, _ := ben.get(app + "/static/app.css"); resp.StatusCode != http.StatusOK {
		t.Errorf("static: %d", resp.StatusCode)
	}
	if resp, _ := ben.get(app + "/no/such/page"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}

	f.checkSecrets()
}

// checkSecrets asserts that no captured secret appears in a log record,
// an app page or header, or a provider page.
func (f *flow) checkSecrets() {
	t := f.t
	t.Helper()
	f.sessions()
	labels := f.secrets.labels()
	for _, want := range []string{"API key", "client secret", "auth code", "ID token", "access token", "embed session id", "embed token"} {
		if labels[want] == 0 {
			t.Errorf("the test captured no %s", want)
		}
	}
	logs := f.logs.String()
	f.mu.Lock()
	seen := strings.Join(f.seen, "\n")
	f.mu.Unlock()
	if logs == "" || seen == "" {
		t.Fatal("nothing captured")
	}
	for v, label := range f.secrets.snapshot() {
		if strings.Contains(logs, v) {
			t.Errorf("a log record contains the %s", label)
		}
		if strings.Contains(seen, v) {
			t.Errorf("a response contains the %s", label)
		}
	}
}

// checkSessionCookie asserts the session cookie's attributes on the
// sign-in callback's answer, which sets it (checklist 8).
func checkSessionCookie(t *testing.T, callback *http.Response, app string) {
	t.Helper()
	if callback == nil {
		t.Fatal("no sign-in callback seen")
	}
	var found bool
	for _, c := range callback.Cookies() {
		if c.Name != SessionName || c.MaxAge < 0 {
			continue
		}
		found = true
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != strings.HasPrefix(app, "https:") || c.MaxAge <= 0 || c.Path != "/" {
			t.Errorf("session cookie: HttpOnly %v SameSite %v Secure %v MaxAge %d Path %q", c.HttpOnly, c.SameSite, c.Secure, c.MaxAge, c.Path)
		}
	}
	if !found {
		t.Error("the sign-in callback set no session cookie")
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// sessionKeys returns a SESSION_KEYS entry: random hash and block keys.
func sessionKeys() string {
	h, b := make([]byte, 32), make([]byte, 32)
	_, _ = rand.Read(h)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(h) + ":" + base64.StdEncoding.EncodeToString(b)
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSecureCookiesOnHTTPS(t *testing.T) {
	d, err := RunDemo(t.Context(), DemoOptions{Listen: "127.0.0.1:0", PublicURL: "https://127.0.0.1:8443", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(context.Background())
	if !d.App.store.Options.Secure || !d.App.store.Options.HttpOnly || d.App.store.Options.SameSite != http.SameSiteLaxMode {
		t.Errorf("session cookie options %+v", *d.App.store.Options)
	}
	// The listener is plain http behind the https URL, as behind a proxy.
	req, _ := http.NewRequest(http.MethodGet, "http://"+d.ListenAddr+LoginPath, nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if len(cs) == 0 {
		t.Fatal("GET /login set no cookie")
	}
	for _, c := range cs {
		if !c.Secure || !c.HttpOnly || !strings.HasPrefix(c.Name, "__Host-") || c.Path != "/" || c.Domain != "" {
			t.Errorf("cookie %s: Secure %v HttpOnly %v Path %q Domain %q; want a __Host- cookie", c.Name, c.Secure, c.HttpOnly, c.Path, c.Domain)
		}
	}

	// A sibling origin can set a cookie without the prefix for the whole
	// site; a valid session value planted under that name signs nobody in.
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:8443/", nil)
	if err := d.App.identity.Save(rec, r, &middleware.Viewer{Subject: "mallory"}); err != nil {
		t.Fatal(err)
	}
	var value string
	for _, c := range rec.Result().Cookies() {
		if c.Name == SecureSessionName {
			value = c.Value
		}
	}
	if value == "" {
		t.Fatalf("Save set no %s cookie", SecureSessionName)
	}
	for _, tc := range []struct {
		name     string
		signedIn bool
	}{
		{SecureSessionName, true},
		{SessionName, false},
	} {
		r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:8443/", nil)
		r.AddCookie(&http.Cookie{Name: tc.name, Value: value})
		_, err := d.App.identity.Viewer(r)
		if got := err == nil; got != tc.signedIn {
			t.Errorf("a session under the name %s: signed in %v, want %v (%v)", tc.name, got, tc.signedIn, err)
		}
	}
}

func TestRotatedSessionKeys(t *testing.T) {
	oldKeys, newKeys := sessionKeys(), sessionKeys()
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: oldKeys}))
	b := f.browser()
	if resp, _ := b.login("ana", "ana-dev-pass"); resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	cookie := b.sessionCookie()

	for _, tc := range []struct {
		name     string
		keys     string
		signedIn bool
	}{
		{"new key only", newKeys, false},
		{"new and old keys", newKeys + "," + oldKeys, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startFlow(t, envOf(map[string]string{EnvSessionKeys: tc.keys}))
			for _, p := range []string{"/dashboards", "/embed/frame/dashboard/sales-overview"} {
				req, _ := http.NewRequest(http.MethodGet, g.d.AppURL+p, nil)
				req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
				resp, err := http.DefaultTransport.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				loc := resp.Header.Get("Location")
				switch {
				case resp.StatusCode >= 500:
					t.Errorf("%s: %d, a server error", p, resp.StatusCode)
				case tc.signedIn && p == "/dashboards" && resp.StatusCode != http.StatusOK:
					t.Errorf("%s: %d, want 200", p, resp.StatusCode)
				case tc.signedIn && p != "/dashboards" && !strings.HasPrefix(loc, g.d.PlatformURL):
					t.Errorf("%s: %d %q, want a mint", p, resp.StatusCode, loc)
				case !tc.signedIn && (resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login")):
					t.Errorf("%s: %d %q, want a redirect to sign-in", p, resp.StatusCode, loc)
				}
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	keys := sessionKeys()
	full := map[string]string{
		EnvBaseURL: "https://acme.example.com", EnvAPIKey: "ek_live_secret_value", EnvDeploymentID: "7",
		EnvDashboards: "sales:Sales,ops:Operations",
		EnvOIDCIssuer: "https://id.example.com", EnvOIDCClientID: "ledgerly", EnvOIDCSecret: "client-secret-value",
		EnvSessionKeys: keys, EnvRedisAddr: "127.0.0.1:6379",
	}
	with := func(changes map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for k, v := range changes {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr string // "" means no error
	}{
		{"empty", map[string]string{}, ""},
		{"everything", full, ""},
		{"API key missing", with(map[string]string{EnvAPIKey: ""}), "EMBEDKIT_API_KEY is required when EMBEDKIT_BASE_URL is set"},
		{"deployment missing", with(map[string]string{EnvDeploymentID: ""}), "EMBEDKIT_DEPLOYMENT_ID is required when EMBEDKIT_BASE_URL is set"},
		{"deployment not a number", with(map[string]string{EnvDeploymentID: "one"}), "EMBEDKIT_DEPLOYMENT_ID must be a positive integer"},
		{"deployment zero", with(map[string]string{EnvDeploymentID: "0"}), "EMBEDKIT_DEPLOYMENT_ID must be a positive integer"},
		{"base URL http", with(map[string]string{EnvBaseURL: "http://acme.example.com"}), "EMBEDKIT_BASE_URL: base URL must be https"},
		{"base URL missing, key set", map[string]string{EnvAPIKey: "k"}, "EMBEDKIT_BASE_URL is required when EMBEDKIT_API_KEY is set"},
		{"base URL missing, deployment set", map[string]string{EnvDeploymentID: "1"}, "EMBEDKIT_BASE_URL is required when EMBEDKIT_DEPLOYMENT_ID is set"},
		{"dashboards without platform", map[string]string{EnvDashboards: "a:A"}, "EMBEDKIT_BASE_URL is required when EMBEDKIT_DASHBOARDS is set"},
		{"dashboards malformed", with(map[string]string{EnvDashboards: "a:A,,b"}), "EMBEDKIT_DASHBOARDS: entry 2 is empty"},
		{"dashboards bad id", with(map[string]string{EnvDashboards: "../x:X"}), "EMBEDKIT_DASHBOARDS: entry 1: public id"},
		{"dashboards duplicate", with(map[string]string{EnvDashboards: "a:A,a:B"}), "EMBEDKIT_DASHBOARDS: entry 2: public id \"a\" is listed twice"},
		{"client id missing", with(map[string]string{EnvOIDCClientID: ""}), "OIDC_CLIENT_ID is required when OIDC_ISSUER is set"},
		{"client secret missing", with(map[string]string{EnvOIDCSecret: ""}), "OIDC_CLIENT_SECRET is required when OIDC_ISSUER is set"},
		{"issuer missing, client id set", map[string]string{EnvOIDCClientID: "x"}, "OIDC_ISSUER is required when OIDC_CLIENT_ID is set"},
		{"issuer missing, secret set", map[string]string{EnvOIDCSecret: "x"}, "OIDC_ISSUER is required when OIDC_CLIENT_SECRET is set"},
		{"issuer not a URL", with(map[string]string{EnvOIDCIssuer: "id.example.com"}), "OIDC_ISSUER must be an absolute https URL"},
		{"session keys malformed", map[string]string{EnvSessionKeys: "not base64!"}, "SESSION_KEYS: gorillasession: session key 1"},
		{"session key short", map[string]string{EnvSessionKeys: base64.StdEncoding.EncodeToString([]byte("short"))}, "SESSION_KEYS: gorillasession: session key 1: hash key is 5 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigFromEnv(envOf(tc.env))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			for _, secret := range []string{"ek_live_secret_value", "client-secret-value", keys} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes a secret: %v", err)
				}
			}
			_ = c
		})
	}

	c, err := ConfigFromEnv(envOf(full))
	if err != nil {
		t.Fatal(err)
	}
	if c.PlatformURL != "https://acme.example.com" || c.APIKey != "ek_live_secret_value" || c.DeploymentID != 7 ||
		len(c.Dashboards) != 2 || !reflect.DeepEqual(c.Dashboards[1], Dashboard{PublicID: "ops", Title: "Operations"}) ||
		c.OIDCIssuer != "https://id.example.com" || c.OIDCClientID != "ledgerly" || c.OIDCClientSecret != "client-secret-value" ||
		len(c.SessionKeys) != 2 || c.RedisAddr != "127.0.0.1:6379" {
		t.Errorf("ConfigFromEnv(full) = %+v", c)
	}
}

func TestRunDemoConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    DemoOptions
		wantErr string
	}{
		{"inconsistent platform", DemoOptions{Listen: "127.0.0.1:0", Getenv: envOf(map[string]string{EnvBaseURL: "https://acme.example.com"})}, "EMBEDKIT_API_KEY is required"},
		{"emulator off loopback", DemoOptions{Listen: "127.0.0.1:0", EmulatorListen: "0.0.0.0:0"}, "emulator listen address"},
		{"provider off loopback", DemoOptions{Listen: "127.0.0.1:0", IdPListen: "0.0.0.0:0"}, "devidp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Logger = slog.New(slog.DiscardHandler)
			d, err := RunDemo(t.Context(), tc.opts)
			if err == nil {
				d.Close(context.Background())
				t.Fatal("RunDemo succeeded")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestSignInLogsKeyedViewer: the sign-in record names the viewer by the
// kit's keyed hash (Kit.RedactViewer under Config.LogKey), never by the
// raw subject, which a log reader could tie to a person.
func TestSignInLogsKeyedViewer(t *testing.T) {
	f := startFlow(t, nil)
	var user devidp.User
	for _, u := range f.d.Users {
		if u.Username == "ana" {
			user = u
		}
	}
	sub := cmp.Or(user.Subject, user.Username)
	if sub == "" {
		t.Fatal("the demo has no user ana")
	}
	b := f.browser()
	if resp, _ := b.login(user.Username, user.Password); resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	var line string
	for l := range strings.Lines(f.logs.String()) {
		if strings.Contains(l, "webapp: auth: signed in") {
			line = l
		}
	}
	want := "viewer=" + f.d.App.Kit().RedactViewer(sub)
	if line == "" || !strings.Contains(line, want) {
		t.Fatalf("sign-in record %q, want one with %s", line, want)
	}
	if strings.Contains(line, "sub=") || strings.Contains(line, "="+sub+" ") || strings.HasSuffix(strings.TrimSpace(line), "="+sub) {
		t.Errorf("sign-in record names the raw subject %q: %s", sub, line)
	}
}
