package identitytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// Harness is an Identity as an app mounts it: what Run needs to sign a
// viewer in, read the viewer back, sign them out and end their logins.
type Harness struct {
	// Identity is the Identity under test, the Kit's Config.Identity.
	Identity middleware.Identity
	// SignIn is the login handler's call that makes v the request's
	// login (gorillasession and scssession: Identity.Save). v has no
	// SessionKey: the Identity gives the login one of its own.
	SignIn func(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) error
	// SignOut is the logout handler's call that ends the request's login
	// (Identity.Clear). Run mounts it inside Kit.Logout, as apps do.
	SignOut func(w http.ResponseWriter, r *http.Request) error
	// Mount wraps the app's routes as the app serves them, for an
	// Identity that needs a middleware around every handler (scs:
	// sessionManager.LoadAndSave). Nil serves them as they are.
	Mount func(http.Handler) http.Handler
	// Join is called with the Kit once it is built, for an Identity that
	// revokes through it but does not take it by itself: one that
	// implements middleware.KitUser is handed the Kit by middleware.New,
	// as in an app, and needs no Join. Nil when the Identity needs no
	// Kit or is a KitUser.
	Join func(kit *middleware.Kit)
	// CopiesOutliveLogout says that a copy of the browser's cookie taken
	// before its login ended still signs in: a cookie store with no list
	// of ended logins (gorillasession without EndedLogins). Run then
	// does not check copies, and says so in the test log.
	CopiesOutliveLogout bool
	// EndLoginsOf ends every login of subject (back-channel logout by
	// sub); nil when the Identity cannot, and Run says so in the log.
	EndLoginsOf func(ctx context.Context, subject string) error
	// EndLoginsOfSID ends every login made in the provider session sid
	// (back-channel logout by sid); nil when the Identity cannot.
	EndLoginsOfSID func(ctx context.Context, sid string) error
}

// viewers are the users the suite signs in: cai with every field of a
// Viewer set (read back only, never minted for), ana with a provider
// session, ben with only a subject.
var viewers = map[string]middleware.Viewer{
	"ana": {Subject: "ana", ProviderSID: "sid-of-ana", Email: "ana@example.com"},
	"cai": {
		Subject: "cai", ProviderSID: "sid-of-cai", Email: "cai@example.com", DisplayName: "Cai",
		Picture: "https://example.com/ana.png", Groups: []string{"sales", "emea"},
		Attributes: map[string]any{"region": "emea", "level": 3.0, "admin": true, "projects": []string{"p1", "p2"}, "scores": []float64{1, 2.5}},
		Tenant:     "acme", Locale: "de-DE", TimeZone: "Europe/Berlin",
	},
	"ben": {Subject: "ben"},
}

// target is the dashboard the suite's page embeds.
var target = middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overview"}

// Run checks the Identity that newHarness returns against the kit's
// contract (middleware.Identity), through HTTP, with a Kit on an
// emulated platform (embedkittest) whose store is memstore. newHarness is
// called once per subtest and returns an Identity that no other subtest
// uses.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	t.Run("nobody is signed in before a sign-in", func(t *testing.T) {
		a := start(t, newHarness)
		b := a.browser()
		if v, err := b.whoami(); !errors.Is(err, middleware.ErrNoViewer) {
			t.Errorf("Viewer of a browser that never signed in = %+v, %v; want ErrNoViewer", v, err)
		}
		if code := b.logout(); code != http.StatusSeeOther {
			t.Errorf("logout of a browser that never signed in: status %d, want 303", code)
		}
	})
	t.Run("Viewer returns the saved viewer under a key of the login's own", func(t *testing.T) {
		a := start(t, newHarness)
		b := a.browser()
		b.signIn("cai")
		v := b.mustViewer()
		want := viewers["cai"]
		want.SessionKey = v.SessionKey
		if !reflect.DeepEqual(*v, want) {
			t.Errorf("Viewer after SignIn = %+v\nwant %+v", *v, want)
		}
		if v.SessionKey == "" {
			t.Fatal("the login has no SessionKey")
		}
		if v.SessionKey == v.ProviderSID {
			t.Error("SessionKey is the provider's sid; it must be the login's own")
		}
		for _, c := range b.cookies() {
			if c.Value == v.SessionKey {
				t.Errorf("SessionKey is the value of cookie %q (the session library's token); it must be the login's own", c.Name)
			}
		}
	})
	t.Run("each login has a fresh SessionKey", func(t *testing.T) {
		a := start(t, newHarness)
		b1, b2 := a.browser(), a.browser()
		b1.signIn("ana")
		b2.signIn("ana")
		k1, k2 := b1.mustViewer().SessionKey, b2.mustViewer().SessionKey
		if k1 == k2 {
			t.Error("two logins of one user in two browsers share a SessionKey")
		}
		b1.signIn("ana")
		if k3 := b1.mustViewer().SessionKey; k3 == k1 || k3 == k2 {
			t.Error("a sign-in over a login kept the earlier login's SessionKey")
		}
	})
	t.Run("sign-in over a login revokes the earlier login's embeds and ends it", func(t *testing.T) {
		a := start(t, newHarness)
		b := a.browser()
		b.signIn("ana")
		b.loadPage()
		b.loadPage()
		anaCookies := b.cookies()
		b.signIn("ben")
		embedkittest.AssertRevoked(t, a.p, "ana")
		if v := b.mustViewer(); v.Subject != "ben" {
			t.Errorf("the browser signs in %q after ben signed in over ana", v.Subject)
		}
		b.loadPage()
		embedkittest.AssertLive(t, a.p, "ben")
		a.checkCopy(t, anaCookies, "ana's cookie, copied before ben signed in over her login")
	})
	t.Run("logout revokes the login's embeds and ends it", func(t *testing.T) {
		a := start(t, newHarness)
		b, other := a.browser(), a.browser()
		b.signIn("ana")
		other.signIn("ben")
		b.loadPage()
		other.loadPage()
		copied := b.cookies()
		if code := b.logout(); code != http.StatusSeeOther {
			t.Fatalf("logout: status %d, want 303", code)
		}
		embedkittest.AssertRevoked(t, a.p, "ana")
		if v, err := b.whoami(); !errors.Is(err, middleware.ErrNoViewer) {
			t.Errorf("Viewer after logout = %+v, %v; want ErrNoViewer", v, err)
		}
		a.checkCopy(t, copied, "ana's cookie, copied before her logout")
		if v := other.mustViewer(); v.Subject != "ben" {
			t.Errorf("another browser's login after ana's logout: %q, want ben", v.Subject)
		}
		embedkittest.AssertLive(t, a.p, "ben")
	})
	t.Run("back-channel logout by subject ends that subject's logins only", func(t *testing.T) {
		h := newHarness(t)
		if h.EndLoginsOf == nil {
			t.Log("the Identity cannot end logins by subject: this case does not apply")
			return
		}
		a := startWith(t, h)
		a.checkEnding(t, h.EndLoginsOf, "ana")
	})
	t.Run("back-channel logout by sid ends that provider session's logins only", func(t *testing.T) {
		h := newHarness(t)
		if h.EndLoginsOfSID == nil {
			t.Log("the Identity cannot end logins by provider session: this case does not apply")
			return
		}
		a := startWith(t, h)
		a.checkEnding(t, h.EndLoginsOfSID, viewers["ana"].ProviderSID)
	})
	t.Run("concurrent sign-ins and reads each see their own login", func(t *testing.T) {
		a := start(t, newHarness)
		const n = 8
		var wg sync.WaitGroup
		keys := make([]string, n)
		browsers := make([]*browser, n)
		for i := range browsers {
			browsers[i] = a.browser()
		}
		// Each goroutine reports with t.Errorf only: t.Fatal must not be
		// called outside the test's own goroutine.
		for i, b := range browsers {
			wg.Go(func() {
				name := "user-" + strconv.Itoa(i)
				if code, err := a.try(b.c, http.MethodPost, "/login", url.Values{"subject": {name}}, nil); err != nil || code != http.StatusSeeOther {
					t.Errorf("sign-in of %s: status %d, %v; want 303", name, code, err)
					return
				}
				for range 5 {
					v, err := a.tryWhoami(b.c)
					if err != nil || v.Subject != name {
						t.Errorf("browser %d reads %+v, %v; want %s", i, v, err, name)
						return
					}
					keys[i] = v.SessionKey
				}
			})
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, k := range keys {
			if k != "" && seen[k] {
				t.Error("two concurrent logins share a SessionKey")
			}
			seen[k] = true
		}
	})
}

// app is the suite's host app: the Harness's Identity behind a Kit on an
// emulated platform, served on loopback.
type app struct {
	t   *testing.T
	h   Harness
	p   *embedkittest.Platform
	kit *middleware.Kit
	srv *httptest.Server

	mu     sync.Mutex
	probes map[string]probe // whoami answers by probe id
	next   int
}

// probe is what the Identity answered one /whoami request.
type probe struct {
	v   *middleware.Viewer
	err error
}

func start(t *testing.T, newHarness func(t *testing.T) Harness) *app {
	t.Helper()
	return startWith(t, newHarness(t))
}

func startWith(t *testing.T, h Harness) *app {
	t.Helper()
	if h.Identity == nil || h.SignIn == nil || h.SignOut == nil {
		t.Fatal("identitytest: the Harness needs Identity, SignIn and SignOut")
	}
	p := embedkittest.NewPlatform(t)
	cfg := p.KitConfig()
	cfg.Identity = h.Identity
	cfg.Store = memstore.New()
	cfg.Targets = map[string]middleware.Target{"sales": target}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h.Join != nil {
		h.Join(kit)
	}
	a := &app{t: t, h: h, p: p, kit: kit, probes: map[string]probe{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		v := middleware.Viewer{Subject: r.FormValue("subject")}
		if named, ok := viewers[v.Subject]; ok {
			v = named
		}
		if err := h.SignIn(w, r, &v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		v, err := h.Identity.Viewer(r)
		a.mu.Lock()
		a.probes[r.FormValue("probe")] = probe{v, err}
		a.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, target)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_, _ = fmt.Fprintf(w, "<iframe src=%q></iframe>", src)
	})
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.SignOut(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})))
	var root http.Handler = mux
	if h.Mount != nil {
		root = h.Mount(mux)
	}
	a.srv = httptest.NewServer(root)
	t.Cleanup(a.srv.Close)
	return a
}

// browser is one browser of the app: a cookie jar.
type browser struct {
	a *app
	c *http.Client
}

func (a *app) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		a.t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{a: a, c: c}
}

// do sends a request with c (and its cookie jar, if any) and cookies
// added, form in its query string.
func (a *app) do(c *http.Client, method, path string, form url.Values, cookies []*http.Cookie) *http.Response {
	a.t.Helper()
	resp, err := a.send(c, method, path, form, cookies)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp
}

// send is do, returning the error, for any goroutine.
func (a *app) send(c *http.Client, method, path string, form url.Values, cookies []*http.Cookie) (*http.Response, error) {
	req, err := http.NewRequest(method, a.srv.URL+path+"?"+form.Encode(), nil)
	if err != nil {
		return nil, err
	}
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	_ = resp.Body.Close()
	return resp, nil
}

// try is send's status code.
func (a *app) try(c *http.Client, method, path string, form url.Values, cookies []*http.Cookie) (int, error) {
	resp, err := a.send(c, method, path, form, cookies)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

func (b *browser) signIn(name string) { b.signInAs(middleware.Viewer{Subject: name}) }

func (b *browser) signInAs(v middleware.Viewer) {
	b.a.t.Helper()
	resp := b.a.do(b.c, http.MethodPost, "/login", url.Values{"subject": {v.Subject}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		b.a.t.Errorf("sign-in of %s: status %d, want 303", v.Subject, resp.StatusCode)
	}
}

func (b *browser) loadPage() {
	b.a.t.Helper()
	if resp := b.a.do(b.c, http.MethodGet, "/page", nil, nil); resp.StatusCode != http.StatusOK {
		b.a.t.Fatalf("page load: status %d, want 200", resp.StatusCode)
	}
}

func (b *browser) logout() int {
	b.a.t.Helper()
	return b.a.do(b.c, http.MethodPost, "/logout", nil, nil).StatusCode
}

func (b *browser) cookies() []*http.Cookie {
	u, _ := url.Parse(b.a.srv.URL)
	return b.c.Jar.Cookies(u)
}

// whoami asks the Identity who the browser's request is.
func (b *browser) whoami() (*middleware.Viewer, error) {
	b.a.t.Helper()
	return b.a.whoami(b.c, nil)
}

func (b *browser) mustViewer() *middleware.Viewer {
	b.a.t.Helper()
	v, err := b.whoami()
	if err != nil {
		b.a.t.Fatalf("Viewer: %v", err)
	}
	return v
}

// whoami asks the Identity who a request with c's cookies (and cookies)
// is, and fails the test when it cannot ask.
func (a *app) whoami(c *http.Client, cookies []*http.Cookie) (*middleware.Viewer, error) {
	a.t.Helper()
	v, err := a.ask(c, cookies)
	if errors.Is(err, errNotAsked) {
		a.t.Fatal(err)
	}
	return v, err
}

// tryWhoami is whoami for any goroutine: a failure to ask is its error.
func (a *app) tryWhoami(c *http.Client) (*middleware.Viewer, error) { return a.ask(c, nil) }

// errNotAsked is ask's error when the request did not reach the Identity.
var errNotAsked = errors.New("identitytest: the Identity was not asked (the request failed, or the Harness's Mount answered /whoami itself)")

func (a *app) ask(c *http.Client, cookies []*http.Cookie) (*middleware.Viewer, error) {
	a.mu.Lock()
	a.next++
	id := strconv.Itoa(a.next)
	a.mu.Unlock()
	if _, err := a.send(c, http.MethodGet, "/whoami", url.Values{"probe": {id}}, cookies); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotAsked, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.probes[id]
	if !ok {
		return nil, errNotAsked
	}
	delete(a.probes, id)
	return p.v, p.err
}

// checkCopy checks that cookies, copied from a browser before its login
// ended, sign nobody in.
func (a *app) checkCopy(t *testing.T, cookies []*http.Cookie, what string) {
	t.Helper()
	if a.h.CopiesOutliveLogout {
		t.Logf("%s: a copy of a cookie outlives its login with this Identity (Harness.CopiesOutliveLogout): not checked", what)
		return
	}
	fresh := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if v, err := a.whoami(fresh, cookies); !errors.Is(err, middleware.ErrNoViewer) {
		t.Errorf("%s signs in %+v (err %v); want ErrNoViewer", what, v, err)
	}
}

// checkEnding checks that end(ctx, name) ends ana's logins (named by her
// subject or her provider session) in every browser, leaves ben's alone,
// and does not refuse a sign-in of ana after it.
func (a *app) checkEnding(t *testing.T, end func(ctx context.Context, name string) error, name string) {
	t.Helper()
	b1, b2, ben := a.browser(), a.browser(), a.browser()
	b1.signIn("ana")
	b2.signIn("ana")
	ben.signIn("ben")
	if err := end(t.Context(), name); err != nil {
		t.Fatalf("ending the logins of %q: %v", name, err)
	}
	for i, b := range []*browser{b1, b2} {
		if v, err := b.whoami(); !errors.Is(err, middleware.ErrNoViewer) {
			t.Errorf("ana's login in browser %d after the back-channel logout: %+v, %v; want ErrNoViewer", i+1, v, err)
		}
	}
	if v := ben.mustViewer(); v.Subject != "ben" {
		t.Errorf("ben's login after ana's back-channel logout: %q", v.Subject)
	}
	// A list of ended logins keeps the time in milliseconds: a sign-in
	// in the same millisecond as the logout counts as before it.
	time.Sleep(5 * time.Millisecond)
	b1.signIn("ana")
	if v, err := b1.whoami(); err != nil || v.Subject != "ana" {
		t.Errorf("a sign-in of ana after the back-channel logout: %+v, %v; want ana signed in", v, err)
	}
}
