package middleware_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// startPlatform runs the platform emulator, standing in for the real
// platform, and returns its URL and a client for it.
func startPlatform() (string, *embedkit.Client, func()) {
	em, err := emulator.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(em)
	client, err := embedkit.New(srv.URL, "ek_dev_only_admin_all")
	if err != nil {
		log.Fatal(err)
	}
	return srv.URL, client, srv.Close
}

// hostSession stands in for the host's own login session: here the
// user name in a header. Real hosts use an Identity from adapters/.
var hostSession = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
	user := r.Header.Get("X-Demo-User")
	if user == "" {
		return nil, middleware.ErrNoViewer
	}
	return &middleware.Viewer{Subject: user, SessionKey: "login-of-" + user, Groups: []string{"sales", "emea"}}, nil
})

// The whole setup: where the viewer comes from, how the viewer maps to a
// session, where minted ids are kept, then the handlers.
func Example() {
	platformURL, client, stop := startPlatform()
	defer stop()

	kit, err := middleware.New(middleware.Config{
		Platform:    client,
		Identity:    hostSession,
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platformURL,
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/embed/frame/", kit.FrameHandler())
	mux.Handle("/embed/session", kit.SessionHandler())
	mux.Handle("/embed/host.js", kit.HostScript())
	mux.Handle("/logout", kit.Logout(http.RedirectHandler("/", http.StatusSeeOther)))
	host := httptest.NewServer(middleware.SecurityHeaders(kit.PlatformOrigin(), middleware.HeaderOptions{})(mux))
	defer host.Close()

	// The browser loads <iframe src="/embed/frame/sales">.
	req, _ := http.NewRequest(http.MethodGet, host.URL+"/embed/frame/sales", nil)
	req.Header.Set("X-Demo-User", "ana")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	fmt.Println(resp.StatusCode, loc.Path, loc.Query().Has("session"))
	// Output: 303 /embed/dashboard/sales-overview true
}

// exampleKit is the Kit of Example, for the examples below.
func exampleKit(platformURL string, client *embedkit.Client, options ...func(*middleware.Config)) *middleware.Kit {
	cfg := middleware.Config{
		Platform:    client,
		Identity:    hostSession,
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platformURL,
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Locales:     middleware.LocaleOptions{Supported: []string{"en-US", "de-DE"}},
	}
	for _, o := range options {
		o(&cfg)
	}
	kit, err := middleware.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	return kit
}

// A server-rendered page puts the platform URL in the iframe directly:
// the recommended, fastest path. FrameURL marks the page no-store, since
// the URL works once; a reload renders the page again with a new session,
// and the host script re-mints the frame through SessionHandler by its
// data-embedkit-target when its session is used up. ServeError answers a
// failed mint as the kit's endpoints do.
func ExampleKit_FrameURL() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)
	sales, _ := kit.Target("sales")
	page := template.Must(template.New("page").Parse(`<iframe src="{{.Frame}}" data-embedkit data-embedkit-target="sales"></iframe>
<script src="{{.Script}}" defer></script>`))

	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = page.Execute(w, map[string]string{"Frame": src, "Script": kit.HostScriptSrc("/embed/host.js")})
	})

	r := httptest.NewRequest(http.MethodGet, "/reports/sales", nil)
	r.Header.Set("X-Demo-User", "ana")
	r.Header.Set("Accept-Language", "de-AT, en;q=0.5")
	w := httptest.NewRecorder()
	report.ServeHTTP(w, r)
	body := w.Body.String()
	fmt.Println(w.Code, strings.Contains(body, platformURL+"/embed/dashboard/sales-overview?"), strings.Contains(body, "locale=de-DE"), w.Header().Get("Cache-Control"))
	// Output: 200 true true no-store
}

// A server-rendered page that sends its start before it mints, the
// README's default: PageFrame checks the viewer, the target and the
// Policy while nothing is written (ServeError answers what it refuses,
// as for FrameURL), and {{.Frame.URL}} flushes what the template wrote so
// far, then mints, so the browser reads the page's head during the mint.
func ExampleKit_PageFrame() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)
	sales, _ := kit.Target("sales")
	page := template.Must(template.New("page").Parse(`<!doctype html><head><title>Sales</title></head>
<iframe src="{{.Frame.URL}}" data-embedkit data-embedkit-target="sales"></iframe>
<script src="{{.Script}}" defer></script>`))

	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		frame, err := kit.PageFrame(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = page.Execute(w, map[string]any{"Frame": frame, "Script": kit.HostScriptSrc("/embed/host.js")})
	})

	r := httptest.NewRequest(http.MethodGet, "/reports/sales", nil)
	r.Header.Set("X-Demo-User", "ana")
	w := httptest.NewRecorder()
	report.ServeHTTP(w, r)
	body := w.Body.String()
	fmt.Println(w.Code, w.Flushed, strings.Contains(body, platformURL+"/embed/dashboard/sales-overview?"), w.Header().Get("Cache-Control"))
	// Output: 200 true true no-store
}

// A link to the page from another site (a web mail, a chat) is a
// cross-site navigation: FrameURL mints nothing for it and gives the
// iframe the frame endpoint's URL, marked with ArrivalParam; the iframe's
// own load, a same-origin request, mints there.
func ExampleKit_FrameURL_linkFromAnotherSite() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)
	sales, _ := kit.Target("sales")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /reports/sales", func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		fmt.Fprintf(w, "%s", src)
	})
	mux.Handle(kit.FramePrefix(), kit.FrameHandler())

	r := httptest.NewRequest(http.MethodGet, "/reports/sales", nil)
	r.Header.Set("X-Demo-User", "ana")
	r.Header.Set("Sec-Fetch-Site", "cross-site") // the link in the mail
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	src := w.Body.String()
	fmt.Println(w.Code, src)

	r = httptest.NewRequest(http.MethodGet, src, nil)
	r.Header.Set("X-Demo-User", "ana")
	r.Header.Set("Sec-Fetch-Site", "same-origin") // the page's iframe
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	fmt.Println(w.Code, strings.HasPrefix(w.Header().Get("Location"), platformURL+"/embed/dashboard/sales-overview?"))
	// Output:
	// 200 /embed/frame/sales?arrival=1
	// 303 true
}

// ServeError answers a page whose FrameURL failed: a signed-out viewer
// opening the page goes to Config.Paths.Login, with the page to come back
// to.
func ExampleKit_ServeError() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client, func(c *middleware.Config) {
		c.Paths.Login = "/login" // where a signed-out viewer is sent
	})
	sales, _ := kit.Target("sales")
	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		fmt.Fprintf(w, "<iframe src=%q></iframe>", src)
	})

	r := httptest.NewRequest(http.MethodGet, "/reports/sales", nil) // nobody signed in
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	w := httptest.NewRecorder()
	report.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Location"), w.Header().Get("Cache-Control"))
	// Output: 303 /login?next=%2Freports%2Fsales no-store
}

// The frame endpoint as the iframe src: every load mints a new session,
// so a reload or a second tab works.
func ExampleKit_FrameHandler() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)

	seen := map[string]bool{}
	for range 2 {
		r := httptest.NewRequest(http.MethodGet, "/embed/frame/sales?timezone=Europe/Berlin", nil)
		r.Header.Set("X-Demo-User", "ana")
		w := httptest.NewRecorder()
		kit.FrameHandler().ServeHTTP(w, r)
		loc, _ := url.Parse(w.Header().Get("Location"))
		seen[loc.Query().Get("session")] = true
		fmt.Println(w.Code, w.Header().Get("Cache-Control"), loc.Query().Get("timezone"))
	}
	fmt.Println("distinct sessions:", len(seen))
	// Output:
	// 303 no-store Europe/Berlin
	// 303 no-store Europe/Berlin
	// distinct sessions: 2
}

// A single-page app asks the JSON endpoint for a session; the body names
// a registered target and nothing else.
func ExampleKit_SessionHandler() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)

	r := httptest.NewRequest(http.MethodPost, "/embed/session", strings.NewReader(`{"target": "sales"}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("X-Demo-User", "ana")
	w := httptest.NewRecorder()
	kit.SessionHandler().ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	body := w.Body.String()
	for _, field := range []string{`"url"`, `"sessionId"`, `"expiresAt"`} {
		fmt.Println(field, strings.Contains(body, field))
	}
	// Output:
	// 200 application/json
	// "url" true
	// "sessionId" true
	// "expiresAt" true
}

// SecurityHeaders composes with a policy the host already has.
func ExampleSecurityHeaders() {
	h := middleware.SecurityHeaders("https://acme.example.com", middleware.HeaderOptions{
		BaseCSP: "script-src 'self' https://cdn.example.com",
	})(http.NotFoundHandler())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	fmt.Fprintln(os.Stdout, w.Header().Get("Content-Security-Policy"))
	// Output: script-src 'self' https://cdn.example.com; default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'
}

// A page that sends a policy of its own keeps it: SecurityHeaders merges
// the kit's frame sources into its frame-src and adds nothing else, so
// the page's inline script still runs and its frames still load. A page
// without one whose inline code the kit's default-src 'self' blocks is
// named in one warning on HeaderOptions.Logger.
func ExampleSecurityHeaders_pagePolicy() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'")
		fmt.Fprint(w, `<script>document.title = "Sales"</script>`)
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p style="color: teal">About us</p>`)
	})
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "csp" {
			return slog.Attr{} // left out to keep the output short
		}
		return a
	}}))
	h := middleware.SecurityHeaders("https://acme.example.com", middleware.HeaderOptions{Logger: logger})(mux)
	for _, path := range []string{"/sales", "/about", "/about"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, w.Header().Get("Content-Security-Policy"))
	}
	// Output:
	// /sales default-src 'self'; script-src 'self' 'unsafe-inline'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'
	// level=WARN msg="middleware: SecurityHeaders: this page has inline style (a style attribute), which the kit's Content-Security-Policy blocks in browsers; give the app's own policy as HeaderOptions.BaseCSP (the kit adds its frame-src to it), or move the code to files; logged once" path=/about
	// /about default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'
	// /about default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'
}

// An embed scoped by the host's own route: the host's check decides which
// projects the viewer may open, and the project is signed into the
// session's security context. Editing the route reaches nothing the check
// does not allow.
func ExampleKit_FrameFunc() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit, err := middleware.New(middleware.Config{
		Platform:    client,
		Identity:    hostSession,
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platformURL,
	})
	if err != nil {
		log.Fatal(err)
	}
	members := map[string][]string{"ana": {"42"}} // the host's own data
	mux := http.NewServeMux()
	mux.Handle("GET /projects/{id}/analytics/frame", kit.FrameFunc(
		func(r *http.Request, v *middleware.Viewer) (middleware.Target, error) {
			id := r.PathValue("id")
			if !slices.Contains(members[v.Subject], id) {
				return middleware.Target{}, middleware.ErrUnknownTarget
			}
			return middleware.Target{
				Kind:            middleware.KindDashboard,
				PublicID:        "sales-overview",
				SecurityContext: map[string]any{"project": id},
				// What the viewer sees first; they may change it. Not security.
				Controls: embedkit.DashboardControls{
					Filters: []embedkit.DashboardFilter{{Member: "sales.region", Value: "EMEA"}},
				},
			}, nil
		}))
	host := httptest.NewServer(mux)
	defer host.Close()

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, project := range []string{"42", "43"} {
		req, _ := http.NewRequest(http.MethodGet, host.URL+"/projects/"+project+"/analytics/frame", nil)
		req.Header.Set("X-Demo-User", "ana")
		resp, err := noFollow.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		fmt.Println(project, resp.StatusCode, loc.Query().Get("f_sales.region"))
	}
	// Output:
	// 42 303 {"value":"EMEA"}
	// 43 404
}

// A page that imports the npm package @embedkit/host instead of loading
// Kit.HostScript gets the kit's settings from the page: render
// HostSettings as <meta name="embedkit">, which the module reads.
func ExampleKit_HostSettings() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client)
	settings, err := json.Marshal(kit.HostSettings())
	if err != nil {
		log.Fatal(err)
	}
	page := template.Must(template.New("page").Parse(`<meta name="embedkit" content="{{.}}">`))
	var b strings.Builder
	if err := page.Execute(&b, string(settings)); err != nil {
		log.Fatal(err)
	}
	// The grant and pinned tags are opaque (and random per process unless
	// Config.LogKey is set): shown here as TAG.
	tags := regexp.MustCompile(`(grant|pinned)&#34;:&#34;[A-Za-z0-9_-]+`)
	fmt.Println(tags.ReplaceAllString(strings.Replace(b.String(), platformURL, "PLATFORM", 1), "$1&#34;:&#34;TAG"))
	// Output: <meta name="embedkit" content="{&#34;platformOrigin&#34;:&#34;PLATFORM&#34;,&#34;sessionURL&#34;:&#34;/embed/session&#34;,&#34;framePrefix&#34;:&#34;/embed/frame/&#34;,&#34;version&#34;:&#34;0.1.0&#34;,&#34;targets&#34;:{&#34;dashboard/sales-overview&#34;:{&#34;path&#34;:&#34;/embed/dashboard/sales-overview&#34;,&#34;grant&#34;:&#34;TAG&#34;,&#34;pinned&#34;:&#34;TAG&#34;},&#34;sales&#34;:{&#34;path&#34;:&#34;/embed/dashboard/sales-overview&#34;,&#34;grant&#34;:&#34;TAG&#34;,&#34;pinned&#34;:&#34;TAG&#34;}}}">
}

// HostSettings.Targets tell the host script which frames may move between
// targets in place (cube:action:navigate, no new session): those whose
// sessions the kit would mint with one request (equal Grant) and whose
// URL-only parameters agree (equal Pinned). A target with a theme of its
// own needs another session; one with another chrome, another page load;
// a RouteScoped one is never listed.
func ExampleHostTarget() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client, func(c *middleware.Config) {
		c.Targets = map[string]middleware.Target{
			"sales":   {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
			"ops":     {Kind: middleware.KindDashboard, PublicID: "ops"},
			"branded": {Kind: middleware.KindDashboard, PublicID: "branded", Theme: &embedkit.EmbedTheme{PrimaryColor: "#0b5fff"}},
			"bare":    {Kind: middleware.KindDashboard, PublicID: "bare", Chrome: middleware.Chrome{HideDashboardHeader: true}},
			"project": {Kind: middleware.KindDashboard, PublicID: "project", RouteScoped: true},
		}
	})
	targets := kit.HostSettings().Targets
	sales := targets["sales"]
	for _, name := range []string{"ops", "branded", "bare", "project"} {
		t, listed := targets[name]
		fmt.Printf("%s: listed %v, in place from sales %v\n", name, listed, listed && t.Grant == sales.Grant && t.Pinned == sales.Pinned)
	}
	// Output:
	// ops: listed true, in place from sales true
	// branded: listed true, in place from sales false
	// bare: listed true, in place from sales false
	// project: listed false, in place from sales false
}

// A back-channel logout token that names only the provider's session id
// (OpenID Connect "sid", Viewer.ProviderSID) reaches every embed session
// minted for a login made in that provider session. oidcclaims serves the
// endpoint (BackChannelLogout, EndingLogins) and calls this.
func ExampleKit_RevokeProviderSession() {
	platformURL, client, stop := startPlatform()
	defer stop()
	kit := exampleKit(platformURL, client, func(c *middleware.Config) {
		c.Identity = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			v, err := hostSession(r)
			if err == nil {
				v.ProviderSID = r.Header.Get("X-Demo-SID") // from the ID token's sid claim
			}
			return v, err
		})
	})
	r := httptest.NewRequest(http.MethodGet, "/embed/frame/sales", nil)
	r.Header.Set("X-Demo-User", "ana")
	r.Header.Set("X-Demo-SID", "08a5019c")
	kit.FrameHandler().ServeHTTP(httptest.NewRecorder(), r)

	err := kit.RevokeProviderSession(context.Background(), "08a5019c")
	fmt.Println(err)
	// Output: <nil>
}

// serverSessions is an Identity on server-side sessions whose Viewer, like
// scs's, would answer from a copy of the session loaded when the request
// began; LoginEnded looks at the sessions themselves.
type serverSessions struct {
	mu   sync.Mutex
	live map[string]string // session cookie -> subject
}

func (s *serverSessions) Viewer(r *http.Request) (*middleware.Viewer, error) {
	c, err := r.Cookie("sid")
	if err != nil {
		return nil, middleware.ErrNoViewer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.live[c.Value]
	if !ok {
		return nil, middleware.ErrNoViewer
	}
	return &middleware.Viewer{Subject: sub, SessionKey: c.Value}, nil
}

// LoginEnded reports whether v's session is gone (a logout in another
// request).
func (s *serverSessions) LoginEnded(r *http.Request, v *middleware.Viewer) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.live[v.SessionKey]
	return !ok, nil
}

// An Identity whose Viewer cannot see a logout made while its request ran
// implements LoginChecker: the Kit asks it after recording a minted id,
// and revokes the id of a login that ended meanwhile.
func ExampleLoginChecker() {
	sessions := &serverSessions{live: map[string]string{"s-1": "ana"}}
	var _ middleware.LoginChecker = sessions
	r := httptest.NewRequest(http.MethodGet, "/embed/frame/sales", nil)
	r.AddCookie(&http.Cookie{Name: "sid", Value: "s-1"})
	v, _ := sessions.Viewer(r)
	ended, _ := sessions.LoginEnded(r, v)
	fmt.Println("ended before the logout:", ended)
	delete(sessions.live, "s-1") // a logout in another request
	ended, _ = sessions.LoginEnded(r, v)
	fmt.Println("ended after it:", ended)
	// Output:
	// ended before the logout: false
	// ended after it: true
}
