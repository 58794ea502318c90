package ttd

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/reactbuild"
	"github.com/embedkit/embedkit/internal/readme"
	"github.com/embedkit/embedkit/internal/testbrowser"
	"github.com/embedkit/embedkit/middleware"
)

var (
	ttdRuns  = flag.Int("ttd.runs", 10, "BenchmarkTimeToDashboard: cold loads (each followed by a warm reload) of each page")
	ttdDelay = flag.Duration("ttd.delay", DefaultDelay, "BenchmarkTimeToDashboard: one-way delay of each origin's proxy")
	ttdPages = flag.String("ttd.pages", "", "BenchmarkTimeToDashboard: comma-separated pages to measure besides pageframe, best and flush (default: all)")
)

// The names the browser reaches the two origins by; --host-resolver-rules
// maps them to the proxies, so the frame is cross-site as in production.
const (
	hostOrigin     = "https://host.test"
	platformOrigin = "https://platform.test"
	apiKey         = "ek_dev_only_admin_all"
	// stepTimeout bounds every browser step.
	stepTimeout = 30 * time.Second
)

// variant is one way of embedding the dashboard, a page of the host app.
type variant struct {
	name, path, what string
}

// The recommended path (the README's default) is the first; the last,
// flush, is the floor it is held to.
var variants = []variant{
	{"pageframe", "/v/pageframe", "the README's ten lines: its page (PageFrame: the page's start sent, then the mint; host script from HostScriptSrc)"},
	{"frameurl", "/v/frameurl", "the same page with FrameURL as it renders (the mint, then the page), the previous default"},
	{"hints", "/v/hints", "the README's page after a 103 Early Hints: preconnect to the platform, preload the host script"},
	{"framehandler", "/v/framehandler", "FrameHandler iframe, host script from HostScriptSrc"},
	{"spa", "/v/spa", "single-page app: POST SessionHandler, then the iframe"},
	{"react", "/v/react", "React: <EmbedkitFrame> of @embedkit/host/react (the frame endpoint), bundled"},
	{"flushjs", "/v/flushjs", "flush with the README's iframe and host script (data-embedkit, HostScriptSrc, defer): what the script costs, managing the frame"},
	{"best", "/v/best", "hand-written: mint during render with the client, preconnect, then the page"},
	{"flush", "/v/flush", "hand-written best: the same page, its head sent before the mint (the floor)"},
}

// measureScript records, relative to the navigation's start, when the
// frame first says ready and dashboard-loaded (the documented cube-embed
// events), listening from the top of the page.
const measureScript = `<script>
(() => {
  const t = window.__ttd = {ready: null, loaded: null};
  addEventListener("message", (e) => {
    if (e.origin !== {{.Platform}} || !e.data || e.data.source !== "cube-embed") return;
    if (e.data.type === "cube:event:ready" && t.ready === null) t.ready = performance.now();
    if (e.data.type === "cube:event:dashboard-loaded" && t.loaded === null) t.loaded = performance.now();
  });
})();
</script>`

var pages = template.Must(template.New("framehandler").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>framehandler</title>` + measureScript + `</head><body>
<iframe src="/embed/frame/sales" data-embedkit data-embedkit-target="sales" title="Sales overview"></iframe>
<script src="{{.HostScript}}" defer></script>
</body></html>`))

func init() {
	template.Must(pages.New("spa").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>spa</title>` + measureScript + `</head><body>
<div id="app"></div>
<script>
fetch("/embed/session", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({target: "sales"})})
  .then((r) => r.json())
  .then((s) => {
    const f = document.createElement("iframe");
    f.title = "Sales overview";
    f.src = s.url;
    document.getElementById("app").appendChild(f);
  });
</script>
</body></html>`))
	template.Must(pages.New("react").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>react</title>` + measureScript + `</head><body>
<div id="app" data-settings="{{.Settings}}"></div>
<script type="module" src="{{.ReactScript}}"></script>
</body></html>`))
	template.Must(pages.New("best").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>best</title>
<link rel="preconnect" href="{{.Platform}}">` + measureScript + `</head><body>
<iframe src="{{.URL}}" title="Sales overview"></iframe>
</body></html>`))
	template.Must(pages.New("flush-head").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>flush</title>
<link rel="preconnect" href="{{.Platform}}">` + measureScript + `</head><body>
`))
	// With a script, the iframe carries the README's attributes, so the
	// script manages the frame as it does on the README's page.
	template.Must(pages.New("flush-frame").Parse(`{{if .HostScript}}<iframe src="{{.URL}}" data-embedkit data-embedkit-target="sales" title="Sales overview"></iframe>
<script src="{{.HostScript}}" defer></script>
{{else}}<iframe src="{{.URL}}" title="Sales overview"></iframe>
{{end}}</body></html>`))
}

// pageData is what the pages' templates are executed with.
type pageData struct {
	Platform, HostScript, URL, Settings, ReactScript string
}

// fixedFrame is the README page's .Frame for a URL minted before the page
// is written (the FrameURL variant).
type fixedFrame string

// URL returns the URL.
func (f fixedFrame) URL() string { return string(f) }

// bench is the host app, the platform and their proxies.
type bench struct {
	em                  *emulator.Server
	host, platform, api *Proxy
	spki                string
	rec                 *recorder
}

// recorder notes every request the servers receive during a load: when
// (from the moment the navigation was asked for), which server, and which
// connection (the proxy's port toward the server: one per browser
// connection).
type recorder struct {
	mu      sync.Mutex
	t0      time.Time
	on      bool
	entries []request
}

type request struct {
	At     time.Duration
	Server string // host, platform (the browser's) or api (the host's mint)
	Method string
	Path   string // without query: a frame URL's holds a session id
	Proto  string
	Conn   string
}

func (rc *recorder) start() {
	rc.mu.Lock()
	rc.t0, rc.on, rc.entries = time.Now(), true, nil
	rc.mu.Unlock()
}

func (rc *recorder) stop() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.on = false
	return rc.entries
}

func (rc *recorder) wrap(server string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		if rc.on {
			_, port, _ := net.SplitHostPort(r.RemoteAddr)
			rc.entries = append(rc.entries, request{At: time.Since(rc.t0), Server: server, Method: r.Method, Path: r.URL.Path, Proto: r.Proto, Conn: port})
		}
		rc.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// selfSigned makes one certificate for both names and 127.0.0.1.
func selfSigned(b *testing.B) (tls.Certificate, *x509.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "embedkit ttd"},
		DNSNames:     []string{"host.test", "platform.test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		b.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		b.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, leaf
}

// tlsServer serves h over TLS with cert, HTTP/2 offered.
func tlsServer(b *testing.B, h http.Handler, cert tls.Certificate) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = true
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.Config.ErrorLog = nil
	s.StartTLS()
	b.Cleanup(s.Close)
	return s
}

func proxyTo(b *testing.B, s *httptest.Server) *Proxy {
	p, err := NewProxy(ProxyConfig{Target: s.Listener.Addr().String(), Delay: *ttdDelay, ChargeConnect: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p
}

func newBench(b *testing.B) *bench {
	cert, leaf := selfSigned(b)
	sum := sha256.Sum256(leaf.RawSubjectPublicKeyInfo)
	be := &bench{spki: base64.StdEncoding.EncodeToString(sum[:]), rec: &recorder{}}

	em, err := emulator.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	be.em = em
	be.platform = proxyTo(b, tlsServer(b, be.rec.wrap("platform", em), cert))
	// The host's calls to the platform's API go through a proxy of their
	// own, with the same delay (a mint costs a round trip), to a server of
	// the same emulator.
	be.api = proxyTo(b, tlsServer(b, be.rec.wrap("api", em), cert))

	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
		MaxIdleConns:      16,
		IdleConnTimeout:   time.Minute,
	}, Timeout: 10 * time.Second}
	client, err := embedkit.New("https://"+be.api.Addr(), apiKey, embedkit.WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	viewer := &middleware.Viewer{Subject: "ana", SessionKey: "login-of-ana", Groups: []string{"sales", "emea"}}
	kit, err := middleware.New(middleware.Config{
		Platform: client,
		Identity: middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			v := *viewer
			return &v, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platformOrigin,
		Origins:     middleware.OriginOptions{Host: hostOrigin},
		// regional is BenchmarkDashboardSwitch's second dashboard.
		Targets: map[string]middleware.Target{
			"sales":    {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
			"regional": {Kind: middleware.KindDashboard, PublicID: "regional-performance"},
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	sales, _ := kit.Target("sales")
	hostScript := kit.HostScriptSrc("/embed/host.js")

	settings, err := json.Marshal(kit.HostSettings())
	if err != nil {
		b.Fatal(err)
	}
	reactPath, reactJS := reactBundle(b)

	render := func(w http.ResponseWriter, name string, d pageData) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := pages.ExecuteTemplate(w, name, d); err != nil {
			http.Error(w, "render failed", http.StatusInternalServerError)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/embed/frame/", kit.FrameHandler())
	mux.Handle("/embed/session", kit.SessionHandler())
	mux.Handle("/embed/host.js", kit.HostScript())
	mux.HandleFunc("GET /v/framehandler", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache") // no session id in it
		render(w, "framehandler", pageData{Platform: platformOrigin, HostScript: hostScript})
	})
	mux.HandleFunc("GET /v/react", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		render(w, "react", pageData{Platform: platformOrigin, Settings: string(settings), ReactScript: reactPath})
	})
	// The React page's bundle, as a front-end build serves one: at a
	// content-hashed URL, immutable, gzipped.
	mux.HandleFunc("GET "+reactPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("Vary", "Accept-Encoding")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
		}
		_, _ = w.Write(reactJS(r))
	})
	mux.HandleFunc("GET /v/spa", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		render(w, "spa", pageData{Platform: platformOrigin})
	})
	// The README's default, as its ten lines write it: its page's handler
	// and its page, with the measuring script added at the top.
	readmePage := readmePage(b)
	mux.HandleFunc("GET /v/pageframe", func(w http.ResponseWriter, r *http.Request) {
		frame, err := kit.PageFrame(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = readmePage.Execute(w, map[string]any{"Frame": frame, "Script": hostScript, "Platform": platformOrigin})
	})
	// The README's page after 103 Early Hints, sent before anything else:
	// a preconnect to the platform's origin (the iframe's) and a preload of
	// the host script.
	mux.HandleFunc("GET /v/hints", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Add("Link", "<"+platformOrigin+">; rel=preconnect")
		h.Add("Link", "<"+hostScript+">; rel=preload; as=script")
		w.WriteHeader(http.StatusEarlyHints)
		h.Del("Link")
		frame, err := kit.PageFrame(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_ = readmePage.Execute(w, map[string]any{"Frame": frame, "Script": hostScript, "Platform": platformOrigin})
	})
	// The same page around FrameURL, which mints before the page is
	// written (the README's default before PageFrame).
	mux.HandleFunc("GET /v/frameurl", func(w http.ResponseWriter, r *http.Request) {
		src, err := kit.FrameURL(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = readmePage.Execute(w, map[string]any{"Frame": fixedFrame(src), "Script": hostScript, "Platform": platformOrigin})
	})
	// The hand-written best: the same viewer's mint, during render, with
	// the client alone, and the platform URL written into the iframe.
	mux.HandleFunc("GET /v/best", func(w http.ResponseWriter, r *http.Request) {
		s, err := client.GenerateSession(r.Context(), &embedkit.GenerateSessionRequest{
			DeploymentID: 1, ExternalID: viewer.Subject, Groups: viewer.Groups,
		})
		if err != nil {
			http.Error(w, "mint failed", http.StatusBadGateway)
			return
		}
		u := platformOrigin + "/embed/dashboard/sales-overview?" + url.Values{
			"session": {s.SessionID}, "parentOrigin": {hostOrigin},
		}.Encode()
		w.Header().Set("Cache-Control", "no-store")
		render(w, "best", pageData{Platform: platformOrigin, URL: u})
	})
	mux.HandleFunc("GET /v/switch", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		target := "sales"
		if r.URL.Query().Get("target") == "regional" {
			target = "regional"
		}
		render(w, "switch", pageData{Platform: platformOrigin, HostScript: hostScript, URL: target})
	})
	// The floor: the hand-written best that sends its head, then mints,
	// then writes the iframe in the same response.
	flush := func(w http.ResponseWriter, r *http.Request, script string) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := pages.ExecuteTemplate(w, "flush-head", pageData{Platform: platformOrigin}); err != nil {
			return
		}
		_ = http.NewResponseController(w).Flush()
		s, err := client.GenerateSession(r.Context(), &embedkit.GenerateSessionRequest{
			DeploymentID: 1, ExternalID: viewer.Subject, Groups: viewer.Groups,
		})
		if err != nil {
			_, _ = io.WriteString(w, "<p>Analytics could not be loaded.</p>")
			return
		}
		u := platformOrigin + "/embed/dashboard/sales-overview?" + url.Values{
			"session": {s.SessionID}, "parentOrigin": {hostOrigin},
		}.Encode()
		_ = pages.ExecuteTemplate(w, "flush-frame", pageData{URL: u, HostScript: script})
	}
	mux.HandleFunc("GET /v/flush", func(w http.ResponseWriter, r *http.Request) { flush(w, r, "") })
	mux.HandleFunc("GET /v/flushjs", func(w http.ResponseWriter, r *http.Request) { flush(w, r, hostScript) })
	be.host = proxyTo(b, tlsServer(b, be.rec.wrap("host", mux), cert))
	return be
}

// readmeSnippet is the one HTML snippet of the README's "Embedding in ten
// lines": the page's iframe and script, a template of .Frame and .Script.
func readmeSnippet(tb testing.TB) string {
	tb.Helper()
	blocks, err := readme.Blocks(filepath.Join("..", "..", "README.md"), "Embedding in ten lines", "html")
	if err != nil {
		tb.Fatal(err)
	}
	if len(blocks) != 1 {
		tb.Fatalf("the README's ten lines have %d HTML snippets, want the one page the benchmark measures", len(blocks))
	}
	return blocks[0]
}

// readmePage is the page of the README's "Embedding in ten lines" (its
// one HTML snippet, a template of .Frame and .Script) in a document whose
// head holds the measuring script.
func readmePage(b *testing.B) *template.Template {
	return template.Must(template.New("frameurl").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>frameurl</title>` + measureScript + `</head><body>
` + readmeSnippet(b) + `
</body></html>`))
}

// reactBundle bundles testdata/react/main.js with React's production
// build and returns its content-hashed path and a function giving the
// bytes to send for a request (gzipped when the client takes gzip).
func reactBundle(b *testing.B) (string, func(*http.Request) []byte) {
	modules, err := reactbuild.NodeModules("../..")
	if err != nil {
		b.Fatal(err)
	}
	js, err := reactbuild.Bundle(reactbuild.Options{Root: "../..", Entry: "internal/ttd/testdata/react/main.js", NodeModules: modules})
	if err != nil {
		b.Fatal(err)
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := zw.Write(js); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	sum := sha256.Sum256(js)
	path := fmt.Sprintf("/static/react-%x.js", sum[:6])
	return path, func(r *http.Request) []byte {
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			return gz.Bytes()
		}
		return js
	}
}

// browser starts one headless Chromium that reaches host.test and
// platform.test through their proxies and trusts the benchmark's
// certificate by its key (which keeps the HTTP cache on, unlike
// --ignore-certificate-errors).
func (be *bench) browser(b *testing.B, extra ...chromedp.ExecAllocatorOption) context.Context {
	rules := fmt.Sprintf("MAP host.test %s,MAP platform.test %s", be.host.Addr(), be.platform.Addr())
	return testbrowser.Start(b, stepTimeout, firstAction, append([]chromedp.ExecAllocatorOption{
		chromedp.Flag("host-resolver-rules", rules),
		chromedp.Flag("ignore-certificate-errors-spki-list", be.spki),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	}, extra...)...)
}

// firstAction is the first action of the browser and of each fresh
// profile's tab (testbrowser.First): it starts the one or opens the other.
var firstAction = chromedp.Evaluate[chromedp.Void](`1`)

// load is one page load's figures.
type load struct {
	Ready, Loaded float64 // ms from navigation start
	// Resources are the host page's resource timing entries, their
	// addresses without query (a frame URL's holds a session id).
	Resources []resource
	// Host, Platform are the connections opened to each origin's proxy
	// during the load.
	Host, Platform int64
	// Requests are what the servers received, in order.
	Requests []request
}

// requestsTo counts the requests server received during the load.
func (l load) requestsTo(server string) int {
	n := 0
	for _, r := range l.Requests {
		if r.Server == server {
			n++
		}
	}
	return n
}

type resource struct {
	Name      string  `json:"name"`
	Initiator string  `json:"initiator"`
	Start     float64 `json:"start"`
	End       float64 `json:"end"`
	Protocol  string  `json:"protocol"`
}

const collect = `(() => ({
  ready: window.__ttd.ready, loaded: window.__ttd.loaded,
  resources: performance.getEntriesByType("resource").map((e) => ({
    name: e.name.split("?")[0], initiator: e.initiatorType, start: e.startTime, end: e.responseEnd, protocol: e.nextHopProtocol,
  })),
}))()`

// measure runs nav (a navigation or a reload) on tab and waits for the
// dashboard to be loaded.
func (be *bench) measure(b *testing.B, tab context.Context, nav chromedp.Action[chromedp.Void], what string) load {
	h0, p0 := be.host.Connections(), be.platform.Connections()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	be.rec.start()
	if err := chromedp.Do(ctx, nav); err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__ttd && window.__ttd.loaded !== null && window.__ttd.ready !== null`,
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		b.Fatalf("%s: the dashboard did not load: %v", what, err)
	}
	reqs := be.rec.stop()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](collect))
	if err != nil {
		b.Fatalf("%s: read the timings: %v", what, err)
	}
	var got struct {
		Ready, Loaded float64
		Resources     []resource
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		b.Fatalf("%s: timings: %v", what, err)
	}
	return load{Ready: got.Ready, Loaded: got.Loaded, Resources: got.Resources,
		Host: be.host.Connections() - h0, Platform: be.platform.Connections() - p0, Requests: reqs}
}

// BenchmarkTimeToDashboard loads each embedding page in Chromium, with
// the host app and the platform (the emulator) each over TLS and HTTP/2
// behind a latency proxy (-ttd.delay each way, 20 ms by default), and
// reports the time from navigation start to the frame's ready event and
// to dashboard-loaded: -ttd.runs cold loads of each page (a fresh browser
// profile each), each followed by a warm reload in the same profile,
// interleaved round by round. x-best is the README's default's median
// cold time to ready over the hand-written best's.
func BenchmarkTimeToDashboard(b *testing.B) {
	if *ttdRuns < 1 {
		b.Fatalf("ttd: -ttd.runs %d must be at least 1", *ttdRuns)
	}
	for range b.N {
		timeToDashboard(b)
	}
}

func timeToDashboard(b *testing.B) {
	variants, err := selectVariants(*ttdPages)
	if err != nil {
		b.Fatal(err)
	}
	be := newBench(b)
	browser := be.browser(b)

	// cold[v], warm[v] are the loads of variant v.
	cold := make([][]load, len(variants))
	warm := make([][]load, len(variants))
	// Round 0 warms up the servers and the host's connection to the
	// platform's API; it is not counted.
	for round := 0; round <= *ttdRuns; round++ {
		for k := range variants {
			i := (k + round) % len(variants) // each page in each position in turn
			v := variants[i]
			tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
			testbrowser.First(b, tab, cancel, stepTimeout, "open a fresh profile", firstAction)
			c := be.measure(b, tab, chromedp.Navigate(hostOrigin+v.path), v.name+" cold")
			w := be.measure(b, tab, chromedp.Reload(), v.name+" warm")
			cancel()
			if round > 0 {
				cold[i] = append(cold[i], c)
				warm[i] = append(warm[i], w)
			}
		}
	}
	// The whole measurement is one op (its ns/op is the run's wall time,
	// browser start included): the figures are the metrics below. Run it
	// with -benchtime 1x; with more, b.N grows and the pages are measured
	// again.
	b.StopTimer()

	rtt := 2 * float64(*ttdDelay) / float64(time.Millisecond)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(os.Stdout, "\ntime to dashboard: %d runs each, %.0f ms round trips to each origin (TLS, HTTP/2)\n", *ttdRuns, rtt)
	for _, v := range variants {
		fmt.Printf("  %-12s %s\n", v.name, v.what)
	}
	fmt.Fprintln(tw, "page\tload\tready ms (median)\tp25–p75\tmin–max\tdashboard-loaded ms (median)\tmin–max\tready / RTT\tconns host+platform\trequests host+platform+api\t")
	floor, best := len(variants)-1, len(variants)-2
	bestCold := median(field(cold[best], func(l load) float64 { return l.Ready }))
	for i, v := range variants {
		for _, m := range []struct {
			name  string
			loads []load
		}{{"cold", cold[i]}, {"warm", warm[i]}} {
			ready := field(m.loads, func(l load) float64 { return l.Ready })
			loaded := field(m.loads, func(l load) float64 { return l.Loaded })
			hc := median(field(m.loads, func(l load) float64 { return float64(l.Host) }))
			pc := median(field(m.loads, func(l load) float64 { return float64(l.Platform) }))
			reqs := func(server string) float64 {
				return median(field(m.loads, func(l load) float64 { return float64(l.requestsTo(server)) }))
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f–%.0f\t%.0f–%.0f\t%.0f\t%.0f–%.0f\t%.1f\t%.0f+%.0f\t%.0f+%.0f+%.0f\t\n",
				v.name, m.name, median(ready), quantile(ready, 0.25), quantile(ready, 0.75), slices.Min(ready), slices.Max(ready),
				median(loaded), slices.Min(loaded), slices.Max(loaded), median(ready)/rtt, hc, pc, reqs("host"), reqs("platform"), reqs("api"))
			b.ReportMetric(median(ready), v.name+"-"+m.name+"-ready-ms")
			b.ReportMetric(quantile(ready, 0.75)-quantile(ready, 0.25), v.name+"-"+m.name+"-ready-iqr-ms")
			b.ReportMetric(median(loaded), v.name+"-"+m.name+"-loaded-ms")
		}
	}
	_ = tw.Flush()
	ready := func(ls []load) float64 { return median(field(ls, func(l load) float64 { return l.Ready })) }
	xBest := ready(cold[0]) / bestCold
	b.ReportMetric(xBest, "x-best")
	xBestWarm := ready(warm[0]) / ready(warm[best])
	b.ReportMetric(xBestWarm, "x-best-warm")
	xFloor, xFloorWarm := ready(cold[0])/ready(cold[floor]), ready(warm[0])/ready(warm[floor])
	b.ReportMetric(xFloor, "x-floor")
	b.ReportMetric(xFloorWarm, "x-floor-warm")
	fmt.Printf("x-floor (%s, the README's default / flush, median ready): cold %.3f, warm %.3f; goal <= 1.00\n", variants[0].name, xFloor, xFloorWarm)
	readyOf := func(l load) float64 { return l.Ready }
	for _, m := range []struct {
		name        string
		page, floor []load
	}{{"cold", cold[0], cold[floor]}, {"warm", warm[0], warm[floor]}} {
		a, f := field(m.page, readyOf), field(m.floor, readyOf)
		lo, hi := ratioInterval(a, f, 0.95)
		fmt.Printf("  %s: 95%% interval of x-floor %.3f–%.3f (the rounds resampled, %d each); median of the rounds' own ratios %.3f\n",
			m.name, lo, hi, len(a), median(pairedRatios(a, f)))
	}
	fmt.Printf("x-best (%s / best, median ready): cold %.3f, warm %.3f\n", variants[0].name, xBest, xBestWarm)
	fmt.Println("each page / flush, median ready, cold and warm:")
	for i, v := range variants {
		fmt.Printf("  %-12s %.3f  %.3f\n", v.name, ready(cold[i])/ready(cold[floor]), ready(warm[i])/ready(warm[floor]))
	}

	// The host page's requests of each page's last cold and warm load, in
	// the order they started: what is on the critical path.
	fmt.Println("\nthe host page's requests (resource timing of the last run; ms from navigation start; addresses without query):")
	for i, v := range variants {
		for _, m := range []struct {
			name string
			l    load
		}{{"cold", cold[i][len(cold[i])-1]}, {"warm", warm[i][len(warm[i])-1]}} {
			fmt.Printf("  %s %s: ready %.0f, %d new connections to host, %d to platform\n", v.name, m.name, m.l.Ready, m.l.Host, m.l.Platform)
			for _, r := range m.l.Resources {
				fmt.Printf("    %6.0f–%6.0f  %-6s %-5s %s\n", r.Start, r.End, r.Initiator, r.Protocol, r.Name)
			}
			fmt.Println("    received by the servers (ms after the navigation was asked for; connection = the proxy's port):")
			for _, r := range m.l.Requests {
				fmt.Printf("    %6.0f  %-8s %-8s conn %-5s %-4s %s\n", float64(r.At)/float64(time.Millisecond), r.Server, r.Proto, r.Conn, r.Method, r.Path)
			}
		}
	}
}

// interleaved measures each of n kinds runs times, round by round, with
// each kind in each position of a round in turn, so that a slow phase of
// the machine falls on all kinds alike; got[i] holds kind i's results.
func interleaved[T any](runs, n int, measure func(kind int) T) (got [][]T) {
	got = make([][]T, n)
	for round := range runs {
		for j := range n {
			i := (j + round) % n
			got[i] = append(got[i], measure(i))
		}
	}
	return got
}

// selectVariants returns the pages named in list (comma-separated) with
// the three every run measures, pageframe, best and flush, in the order of
// variants; all of them for an empty list.
func selectVariants(list string) ([]variant, error) {
	if strings.TrimSpace(list) == "" {
		return variants, nil
	}
	want := map[string]bool{"pageframe": true, "best": true, "flush": true}
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.ContainsFunc(variants, func(v variant) bool { return v.name == name }) {
			return nil, fmt.Errorf("ttd: -ttd.pages names %q, which is not a page (the pages: %s)", name, strings.Join(variantNames(), ", "))
		}
		want[name] = true
	}
	var out []variant
	for _, v := range variants {
		if want[v.name] {
			out = append(out, v)
		}
	}
	return out, nil
}

func variantNames() []string {
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.name
	}
	return names
}

// ratioInterval is a bootstrap interval, at the given confidence, of
// median(a) / median(b), where a[i] and b[i] were measured in the same
// round: the rounds are resampled with replacement, pairs kept together,
// so that a phase of the machine that slowed a round slows both pages. The
// generator's seed is fixed: the same loads give the same interval.
func ratioInterval(a, b []float64, confidence float64) (lo, hi float64) {
	n := min(len(a), len(b))
	if n == 0 {
		return 0, 0
	}
	const resamples = 4000
	rng := mrand.New(mrand.NewPCG(1, 2))
	ratios := make([]float64, resamples)
	ra, rb := make([]float64, n), make([]float64, n)
	for k := range ratios {
		for i := range n {
			j := rng.IntN(n)
			ra[i], rb[i] = a[j], b[j]
		}
		ratios[k] = median(ra) / median(rb)
	}
	tail := (1 - confidence) / 2
	return quantile(ratios, tail), quantile(ratios, 1-tail)
}

// pairedRatios is a[i] / b[i], round by round.
func pairedRatios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / b[i]
	}
	return out
}

func field(ls []load, f func(load) float64) []float64 {
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = f(l)
	}
	return out
}

func median(v []float64) float64 { return quantile(v, 0.5) }

// quantile is the q-quantile of v by linear interpolation between the
// closest ranks.
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

// TestQuantile checks the statistics the benchmark reports.
func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		q    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5}, 0.25, 2},
		{[]float64{1, 2, 3, 4, 5}, 1, 5},
		{[]float64{7}, 0.75, 7},
		{nil, 0.5, 0},
	} {
		if got := quantile(tc.v, tc.q); got != tc.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", tc.v, tc.q, got, tc.want)
		}
	}
	if variants[0].name != "pageframe" || variants[len(variants)-2].name != "best" || variants[len(variants)-1].name != "flush" {
		t.Fatal("x-floor divides the first variant (the README's default) by the last (the flushing floor), x-best by the one before it")
	}
}

// TestRatioInterval checks the interval of x-floor the benchmark prints.
func TestRatioInterval(t *testing.T) {
	same := []float64{600, 610, 620, 630, 640, 650, 660}
	if lo, hi := ratioInterval(same, same, 0.95); lo != 1 || hi != 1 {
		t.Errorf("a page against itself: interval %v–%v, want 1–1", lo, hi)
	}
	slower := make([]float64, len(same))
	for i, v := range same {
		slower[i] = v * 1.1
	}
	if lo, hi := ratioInterval(slower, same, 0.95); math.Abs(lo-1.1) > 1e-9 || math.Abs(hi-1.1) > 1e-9 {
		t.Errorf("a page 10%% slower in every round: interval %v–%v, want 1.1–1.1", lo, hi)
	}
	// Pairs stay together: a round that is slow for both pages moves the
	// ratio of neither.
	a := []float64{600, 900, 610, 1200, 620}
	b := []float64{600, 900, 610, 1200, 620}
	if lo, hi := ratioInterval(a, b, 0.95); lo != 1 || hi != 1 {
		t.Errorf("slow rounds shared by both pages: interval %v–%v, want 1–1", lo, hi)
	}
	noisy := []float64{590, 640, 600, 660, 610, 700, 620}
	if lo, hi := ratioInterval(noisy, same, 0.95); !(lo < 1 && hi > 1) || lo > hi {
		t.Errorf("a page that is sometimes faster, sometimes slower: interval %v–%v, want one around 1", lo, hi)
	}
	if got := pairedRatios([]float64{2, 9}, []float64{1, 3}); !slices.Equal(got, []float64{2, 3}) {
		t.Errorf("pairedRatios = %v, want [2 3]", got)
	}
	if lo, hi := ratioInterval(nil, nil, 0.95); lo != 0 || hi != 0 {
		t.Errorf("no loads: interval %v–%v, want 0–0", lo, hi)
	}
}

// TestInterleaved checks the order the benchmarks measure in: every kind
// once a round, each in each position in turn.
func TestInterleaved(t *testing.T) {
	var order []int
	got := interleaved(3, 3, func(i int) int { order = append(order, i); return len(order) })
	if want := []int{0, 1, 2, 1, 2, 0, 2, 0, 1}; !slices.Equal(order, want) {
		t.Errorf("measured in the order %v, want %v", order, want)
	}
	if want := [][]int{{1, 6, 8}, {2, 4, 9}, {3, 5, 7}}; len(got) != 3 || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) || !slices.Equal(got[2], want[2]) {
		t.Errorf("results by kind %v, want %v", got, want)
	}
}

// TestFlushJSHasTheREADMEsFrame: flushjs, the floor with the README's
// host script, writes the README's iframe and script, so that the script
// manages its frame as on the README's page and flushjs measures all the
// script costs there.
func TestFlushJSHasTheREADMEsFrame(t *testing.T) {
	const src, script = "https://platform.test/embed/dashboard/sales-overview?session=s", "/embed/host.js?v=1"
	var want strings.Builder
	if err := template.Must(template.New("readme").Parse(readmeSnippet(t))).Execute(&want, map[string]any{"Frame": fixedFrame(src), "Script": script}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	if err := pages.ExecuteTemplate(&got, "flush-frame", pageData{URL: src, HostScript: script}); err != nil {
		t.Fatal(err)
	}
	g := strings.TrimSpace(strings.TrimSuffix(got.String(), "</body></html>"))
	if w := strings.TrimSpace(want.String()); g != w {
		t.Errorf("flushjs writes\n%s\nwant the README's\n%s", g, w)
	}
}

// TestSelectVariants checks -ttd.pages.
func TestSelectVariants(t *testing.T) {
	all, err := selectVariants("")
	if err != nil || len(all) != len(variants) {
		t.Fatalf("no list: %d pages, %v; want all %d", len(all), err, len(variants))
	}
	got, err := selectVariants(" flushjs ")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range got {
		names = append(names, v.name)
	}
	if want := []string{"pageframe", "flushjs", "best", "flush"}; !slices.Equal(names, want) {
		t.Errorf("-ttd.pages flushjs: %v, want %v (the README's page first, the floor last)", names, want)
	}
	if _, err := selectVariants("pageframe,nosuch"); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("an unknown page: %v, want an error naming it", err)
	}
}

// TestRequestsTo checks the request counts the benchmark reports.
func TestRequestsTo(t *testing.T) {
	l := load{Requests: []request{{Server: "host"}, {Server: "api"}, {Server: "platform"}, {Server: "platform"}}}
	for server, want := range map[string]int{"host": 1, "platform": 2, "api": 1, "other": 0} {
		if got := l.requestsTo(server); got != want {
			t.Errorf("requestsTo(%q) = %d, want %d", server, got, want)
		}
	}
}
