package middleware

import (
	"bufio"
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// gatedPlatform is a fakePlatform whose GenerateSession waits until gate
// is closed.
type gatedPlatform struct {
	*fakePlatform
	gate chan struct{}
}

func (p *gatedPlatform) GenerateSession(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	select {
	case <-p.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.fakePlatform.GenerateSession(ctx, req)
}

// pageFrameHead is what the test page writes before its iframe.
const pageFrameHead = `<!doctype html><html><head><title>sales</title><link rel="stylesheet" href="/app.css"></head><body><nav>menu</nav>`

var pageFrameTemplate = template.Must(template.New("sales").Parse(pageFrameHead +
	`<iframe src="{{.Frame.URL}}" data-embedkit-target="sales" title="Sales"></iframe></body></html>`))

// pageFrameServer serves the test page at /sales, as the README's ten
// lines do with PageFrame, and the frame endpoint, over HTTP/1.1 or, with
// h2, HTTP/2 over TLS; wrap (if not nil) wraps the whole mux.
func pageFrameServer(t *testing.T, k *Kit, target Target, h2 bool, wrap func(http.Handler) http.Handler) (*httptest.Server, *http.Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/embed/frame/", k.FrameHandler())
	mux.HandleFunc("/sales", func(w http.ResponseWriter, r *http.Request) {
		frame, err := k.PageFrame(w, r, target)
		if err != nil {
			k.ServeError(w, r, err)
			return
		}
		_ = pageFrameTemplate.Execute(w, map[string]any{"Frame": frame})
	})
	var h http.Handler = mux
	if wrap != nil {
		h = wrap(h)
	}
	s := httptest.NewUnstartedServer(h)
	if h2 {
		s.EnableHTTP2 = true
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	c := s.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Timeout = 10 * time.Second
	return s, c
}

// pageRequest is a signed-in viewer's navigation to path of s (user ""
// for none).
func pageRequest(t *testing.T, s *httptest.Server, method, path, user string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		r.Header.Set("X-User", user)
		r.Header.Set("X-Session", "hs-"+user)
	}
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	r.Header.Set("Sec-Fetch-Dest", "document")
	return r
}

// TestPageFrameSendsTheStartBeforeTheMint: the page's status, headers and
// everything before the iframe reach the browser while the mint is still
// waiting for the platform; the iframe's platform URL follows in the same
// response once the platform answers.
func TestPageFrameSendsTheStartBeforeTheMint(t *testing.T) {
	for _, tc := range []struct {
		name string
		h2   bool
		wrap bool // behind SecurityHeaders, which wraps the ResponseWriter
	}{
		{name: "HTTP/1.1"},
		{name: "HTTP/2", h2: true},
		{name: "HTTP/1.1 behind SecurityHeaders", wrap: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp := &fakePlatform{}
			gp := &gatedPlatform{fakePlatform: fp, gate: make(chan struct{})}
			tk := newTestKit(t, func(c *Config) { c.Platform = gp })
			tk.platform = fp
			var wrap func(http.Handler) http.Handler
			if tc.wrap {
				wrap = SecurityHeaders(tk.PlatformOrigin(), HeaderOptions{})
			}
			sales, _ := tk.Target("sales")
			s, c := pageFrameServer(t, tk.Kit, sales, tc.h2, wrap)
			released := false
			release := func() {
				if !released {
					released = true
					close(gp.gate)
				}
			}
			defer release()

			type result struct {
				resp *http.Response
				head string
				err  error
			}
			got := make(chan result, 1)
			go func() {
				resp, err := c.Do(pageRequest(t, s, http.MethodGet, "/sales", "ana"))
				if err != nil {
					got <- result{err: err}
					return
				}
				br := bufio.NewReader(resp.Body)
				resp.Body = io.NopCloser(br)
				head := make([]byte, len(pageFrameHead))
				_, err = io.ReadFull(br, head)
				got <- result{resp: resp, head: string(head), err: err}
			}()
			var res result
			select {
			case res = <-got:
			case <-time.After(5 * time.Second):
				t.Fatal("the page's start did not arrive while the mint waited for the platform")
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			defer res.resp.Body.Close()
			if len(fp.mintedIDs()) != 0 {
				t.Fatal("the platform answered before the page's start was read")
			}
			if res.resp.StatusCode != http.StatusOK || res.head != pageFrameHead {
				t.Fatalf("status %d, start %q, want 200 and %q", res.resp.StatusCode, res.head, pageFrameHead)
			}
			for k, v := range map[string]string{"Cache-Control": "no-store", "Content-Type": "text/html; charset=utf-8"} {
				if got := res.resp.Header.Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
			if tc.wrap && res.resp.Header.Get("Content-Security-Policy") == "" {
				t.Error("SecurityHeaders' policy is missing")
			}

			release()
			rest, err := io.ReadAll(res.resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			src := iframeSrc(t, string(rest))
			ids := fp.mintedIDs()
			if len(ids) != 1 || !strings.HasPrefix(src, "https://acme.example.com/embed/dashboard/dash-sales?") || !strings.Contains(src, "session="+ids[0]) {
				t.Fatalf("iframe src %q, minted %d ids; want the platform URL with the one minted id", src, len(ids))
			}
			if tk.store.count(anaKey) != 1 {
				t.Errorf("store holds %d ids for the login, want 1", tk.store.count(anaKey))
			}
		})
	}
}

// iframeSrc returns the unescaped src of the one iframe in page.
func iframeSrc(t *testing.T, page string) string {
	t.Helper()
	_, after, ok := strings.Cut(page, `<iframe src="`)
	if !ok {
		t.Fatalf("no iframe in %q", page)
	}
	src, _, _ := strings.Cut(after, `"`)
	return strings.ReplaceAll(src, "&amp;", "&")
}

// TestPageFrameErrors answers each way a PageFrame page can fail, through
// HTTP: what is refused before the page is written keeps its status; what
// fails after the page's start was sent gives the iframe the frame
// endpoint, whose load mints again and answers in the frame.
func TestPageFrameErrors(t *testing.T) {
	sales := Target{Kind: KindDashboard, PublicID: "dash-sales", Chrome: Chrome{AllowExport: true, HideDashboardHeader: true}}
	changed := sales
	changed.SecurityContext = map[string]any{"project": "p1"} // a copy the frame endpoint does not serve
	down := fmt.Errorf("mint: %w", embedkit.ErrServer)
	tests := []struct {
		name      string
		target    Target
		user      string
		method    string
		prepare   func(*http.Request)
		platform  error
		mod       func(*Config)
		requests  int // the page is loaded this many times; the last is checked
		status    int
		header    map[string]string
		body      string // the body contains it
		src       string // the iframe's src, when the page is a 200
		mints     int    // platform calls, after the page
		frameLoad []int  // with src the frame endpoint: its load's status with the platform still down, then back
	}{
		{name: "signed out: 303 to the login page, nothing written", method: http.MethodGet,
			mod:    func(c *Config) { c.Paths.Login = "/login" },
			status: http.StatusSeeOther, header: map[string]string{"Location": "/login?next=%2Fsales"}},
		{name: "signed out, no login page: 401", method: http.MethodGet,
			status: http.StatusUnauthorized, body: "Please sign in"},
		{name: "refused by the Policy: 403", user: "ana", method: http.MethodGet,
			prepare: func(r *http.Request) { r.Header.Set("X-Deny", "1") },
			mod: func(c *Config) {
				c.Policy.Customize = func(r *http.Request, _ *Viewer, _ Target, _ *embedkit.GenerateSessionRequest) error {
					if r.Header.Get("X-Deny") != "" {
						return fmt.Errorf("%w: not this one", ErrDenied)
					}
					return nil
				}
			},
			status: http.StatusForbidden, body: "do not have access"},
		{name: "mint limit reached: 429 with Retry-After", user: "ana", method: http.MethodGet, requests: 2,
			mod:    func(c *Config) { c.MintLimit = MintLimitOptions{Burst: 1, Interval: time.Minute} },
			status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "60"}, mints: 1},
		{name: "platform down: the frame endpoint in the frame", user: "ana", method: http.MethodGet, platform: down,
			status: http.StatusOK, src: "/embed/frame/sales", mints: 1,
			frameLoad: []int{http.StatusServiceUnavailable, http.StatusSeeOther}},
		{name: "platform down, a target the frame endpoint does not serve: minted first, 503", target: changed, user: "ana", method: http.MethodGet, platform: down,
			status: http.StatusServiceUnavailable, header: map[string]string{"Retry-After": "30"}, body: "temporarily unavailable", mints: 1},
		{name: "reached from another site: the frame endpoint, marked, no mint", user: "ana", method: http.MethodGet,
			prepare: func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
			status:  http.StatusOK, src: "/embed/frame/sales?arrival=1"},
		{name: "reached from another site, a changed target: 403", target: changed, user: "ana", method: http.MethodGet,
			prepare: func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
			status:  http.StatusForbidden, body: "opened from another site"},
		{name: "HEAD: no mint", user: "ana", method: http.MethodHead, status: http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk := newTestKit(t, tc.mod)
			tk.platform.generateErr = tc.platform
			target := tc.target
			if target.Kind == "" {
				target = sales
			}
			s, c := pageFrameServer(t, tk.Kit, target, false, nil)
			var resp *http.Response
			var body []byte
			for range max(tc.requests, 1) {
				r := pageRequest(t, s, tc.method, "/sales", tc.user)
				if tc.prepare != nil {
					tc.prepare(r)
				}
				var err error
				if resp, err = c.Do(r); err != nil {
					t.Fatal(err)
				}
				body, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %q", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			for k, v := range tc.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(string(body), tc.body) {
				t.Errorf("body %q, want it to contain %q", body, tc.body)
			}
			if tc.status != http.StatusOK && strings.Contains(string(body), "<nav>") {
				t.Errorf("a refused page was written: %q", body)
			}
			if tc.src != "" {
				if got := iframeSrc(t, string(body)); got != tc.src {
					t.Errorf("iframe src %q, want %q", got, tc.src)
				}
			}
			if got := len(tk.platform.requests); got != tc.mints {
				t.Errorf("%d platform calls, want %d", got, tc.mints)
			}
			for i, want := range tc.frameLoad {
				if i == 1 {
					tk.platform.generateErr = nil // the platform is back: the viewer's retry works
				}
				r := pageRequest(t, s, http.MethodGet, tc.src, tc.user)
				r.Header.Set("Sec-Fetch-Dest", "iframe")
				resp, err := c.Do(r)
				if err != nil {
					t.Fatal(err)
				}
				fb, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Fatalf("the frame's load %d: status %d, want %d; body %q", i+1, resp.StatusCode, want, fb)
				}
				switch want {
				case http.StatusServiceUnavailable:
					if resp.Header.Get("Retry-After") != "30" || !strings.Contains(string(fb), "try again") {
						t.Errorf("the frame's error: Retry-After %q, body %q", resp.Header.Get("Retry-After"), fb)
					}
				case http.StatusSeeOther:
					loc, err := url.Parse(resp.Header.Get("Location"))
					if err != nil || loc.Host != "acme.example.com" || loc.Query().Get("session") == "" {
						t.Errorf("the frame's retry went to %q", resp.Header.Get("Location"))
					}
				}
			}
			if tc.src == "/embed/frame/sales" && !strings.Contains(tk.logs.String(), "its frame loads the frame endpoint") {
				t.Errorf("the fallback is not logged:\n%s", tk.logs.String())
			}
		})
	}
}

// TestPageFrameRequestScopedStore: a store that writes the response's
// header gets its cookie, because PageFrame mints before the page is
// written.
func TestPageFrameRequestScopedStore(t *testing.T) {
	inner := newMapStore()
	tk := newTestKit(t, func(c *Config) { c.Store = cookieStore{plainStore{inner}} })
	sales, _ := tk.Target("sales")
	s, c := pageFrameServer(t, tk.Kit, sales, false, nil)
	resp, err := c.Do(pageRequest(t, s, http.MethodGet, "/sales", "ana"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Set-Cookie") != "embed_ids=updated" {
		t.Fatalf("status %d, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	if src := iframeSrc(t, string(body)); !strings.Contains(src, "session=") || inner.count(anaKey) != 1 {
		t.Errorf("iframe src %q, %d ids stored", src, inner.count(anaKey))
	}
}

// TestPageFrameURLOnce: the template may write the src twice; the page
// mints once.
func TestPageFrameURLOnce(t *testing.T) {
	tk := newTestKit(t, nil)
	sales, _ := tk.Target("sales")
	w := httptest.NewRecorder()
	f, err := tk.PageFrame(w, request(http.MethodGet, "/sales", "ana"), sales)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := f.URL(), f.URL(); a != b || a == "" || len(tk.platform.minted) != 1 {
		t.Errorf("URL %q then %q, %d mints", a, b, len(tk.platform.minted))
	}
	if !w.Flushed {
		t.Error("URL did not flush the response")
	}
	var nilFrame *PageFrame
	if nilFrame.URL() != "" {
		t.Error("a nil PageFrame's URL is not empty")
	}
}

// anaKey is the store key of the test viewer ana's login.
var anaKey = (&Viewer{SessionKey: "hs-ana"}).Key()
