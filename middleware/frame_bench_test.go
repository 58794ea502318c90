package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/middleware"
)

// The frame benchmarks compare one iframe load through the kit with the
// least a hand-written handler could do for it: the platform round trip is
// the cost every embed pays, and whatever the kit adds on top should be
// close to nothing. Both sides run in the same benchmark run against the
// emulator on loopback; the handler side runs on httptest.NewRecorder, so
// only the platform call crosses the network.

// benchAPIKey is the demo fixture's unscoped admin key.
const benchAPIKey = "ek_dev_only_admin_all"

// benchFramePath is the frame endpoint of the registered target "sales".
const benchFramePath = "/embed/frame/sales"

// benchCallers is how many goroutines the parallel benchmarks run.
const benchCallers = 64

// benchWarmLoads is how many frames each caller loads, all callers at
// once, before a parallel benchmark counts connections.
const benchWarmLoads = 20

// benchPlatform is the emulator behind an httptest server on loopback that
// counts the connections clients open to it.
type benchPlatform struct {
	em    *emulator.Server
	srv   *httptest.Server
	conns atomic.Int64
	// closed counts the connections that ended.
	closed atomic.Int64

	// While capture is set, the body of each generate-session request is
	// kept in body.
	capture atomic.Bool
	mu      sync.Mutex
	body    []byte
}

// newBenchPlatform starts the emulator with its demo fixture.
func newBenchPlatform(b *testing.B) *benchPlatform {
	b.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	p := &benchPlatform{em: em}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			p.conns.Add(1)
		case http.StateClosed:
			p.closed.Add(1)
		}
	}
	p.srv.Start()
	b.Cleanup(p.srv.Close)
	return p
}

func (p *benchPlatform) serve(w http.ResponseWriter, r *http.Request) {
	if p.capture.Load() && r.URL.Path == "/api/v1/embed/generate-session" {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading body", http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.body = body
		p.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	p.em.ServeHTTP(w, r)
}

// plainClient is an http.Client with the transport settings of the
// embedkit client's default one (see "Connections" in package embedkit):
// dial, TLS-handshake and response-header timeouts, a 30 second overall
// timeout, up to 100 idle connections per host, HTTP/2 allowed.
func plainClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   100,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// benchHost is a host application's session setup: a gorilla cookie store
// with a signing and an encryption key, as SESSION_KEYS would give.
type benchHost struct {
	identity *gorillasession.Identity
}

func newBenchHost() *benchHost {
	hashKey := bytes.Repeat([]byte{0x5a}, 32)
	blockKey := bytes.Repeat([]byte{0xa5}, 32)
	cs := gorillasession.SecureCookieStore(hashKey, blockKey)
	id := gorillasession.New(cs, "host-session")
	// The benchmark's requests come over plain http with a Secure cookie,
	// which the identity warns of once per Identity: that line would cut
	// a benchmark result line in two.
	id.Logger = slog.New(slog.DiscardHandler)
	return &benchHost{identity: id}
}

// benchViewer is a typical logged-in user: a profile, two groups, one
// attribute, a locale and a time zone.
func benchViewer(i int) *middleware.Viewer {
	return &middleware.Viewer{
		Subject:     fmt.Sprintf("user-%03d@example.com", i),
		Email:       fmt.Sprintf("user-%03d@example.com", i),
		DisplayName: fmt.Sprintf("User %03d", i),
		Groups:      []string{"sales", "emea"},
		Attributes:  map[string]any{"region": "EMEA"},
		Locale:      "de-DE",
		TimeZone:    "Europe/Berlin",
	}
}

// cookie logs v in once and returns the signed session cookie the browser
// then sends with every request.
func (h *benchHost) cookie(b *testing.B, v *middleware.Viewer) *http.Cookie {
	b.Helper()
	w := httptest.NewRecorder()
	if err := h.identity.Save(w, httptest.NewRequest(http.MethodPost, "/login", nil), v); err != nil {
		b.Fatal(err)
	}
	cs := w.Result().Cookies()
	if len(cs) != 1 {
		b.Fatalf("login set %d cookies, want 1", len(cs))
	}
	return cs[0]
}

// frameRequest returns the template of a browser's iframe load carrying
// the host session cookie c. Serve copies of it (see loadRequest): the
// session registry of gorilla/sessions lives in the request's context.
func frameRequest(c *http.Cookie) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "https://host.example"+benchFramePath, nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Accept-Language", "de-DE,de;q=0.9,en;q=0.8")
	r.AddCookie(c)
	return r
}

// loadRequest returns a fresh copy of the template tmpl, as the server
// would make for each request.
func loadRequest(tmpl *http.Request) *http.Request {
	return tmpl.WithContext(context.Background())
}

// newBenchKit returns a Kit on the emulator with the default embedkit
// client, identity from the host's gorilla session and the memory store.
func newBenchKit(b *testing.B, p *benchPlatform, h *benchHost, opts ...func(*middleware.Config)) (*middleware.Kit, *memstore.Store) {
	b.Helper()
	client, err := embedkit.New(p.srv.URL, benchAPIKey)
	if err != nil {
		b.Fatal(err)
	}
	return benchKit(b, client, h.identity, p.srv.URL, opts...)
}

// benchKit returns a Kit on platform with identity and the memory store,
// keeping up to 64 records per host session, and the policy and target
// of the frame benchmarks.
func benchKit(b *testing.B, platform middleware.Platform, identity middleware.Identity, platformURL string, opts ...func(*middleware.Config)) (*middleware.Kit, *memstore.Store) {
	b.Helper()
	store := memstore.New(memstore.WithMaxPerKey(64))
	cfg := middleware.Config{
		Platform: platform,
		Identity: identity,
		Store:    store,
		Policy: middleware.Policy{
			DeploymentID: 1,
			Groups:       middleware.GroupOptions{Allowed: []string{"sales", "emea"}},
			Attributes:   middleware.AttributeOptions{Allowed: []string{"region"}},
		},
		PlatformURL: platformURL,
		Targets: map[string]middleware.Target{
			"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
		},
		// One viewer mints b.N times as fast as it can: the benchmarks
		// measure the mint, not the limit that would refuse it.
		MintLimit: middleware.MintLimitOptions{Off: true},
	}
	for _, o := range opts {
		o(&cfg)
	}
	k, err := middleware.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return k, store
}

// baselineHandler is the least a hand-written frame handler could do:
// post a fixed generate-session body with a plain http.Client, read the
// session id and redirect to the dashboard page with it. No identity, no
// policy, no validation, no store.
func baselineHandler(hc *http.Client, platformURL string, body []byte) http.Handler {
	endpoint := platformURL + "/api/v1/embed/generate-session"
	page := platformURL + "/embed/dashboard/sales-overview?session="
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			http.Error(w, "bad request", http.StatusInternalServerError)
			return
		}
		req.Header.Set("Authorization", "Bearer "+benchAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			http.Error(w, "platform unreachable", http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var out struct {
			SessionID string `json:"sessionId"`
		}
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.SessionID == "" {
			http.Error(w, "platform error", http.StatusBadGateway)
			return
		}
		http.Redirect(w, r, page+url.QueryEscape(out.SessionID), http.StatusSeeOther)
	})
}

// identityBaseline is baselineHandler after reading the viewer from the
// host's session cookie, as any real handler must: the second, fair
// baseline, so that what the identity read costs by itself and what the
// kit adds beyond it can be told apart.
func identityBaseline(id middleware.Identity, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := id.Viewer(r); err != nil {
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loadFrame serves one frame load of a copy of tmpl and says what is
// wrong when it did not redirect. It is safe to call from any goroutine.
func loadFrame(h http.Handler, tmpl *http.Request) error {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, loadRequest(tmpl))
	if w.Code != http.StatusSeeOther {
		return fmt.Errorf("frame load: status %d, body %q", w.Code, w.Body)
	}
	return nil
}

// serveFrame serves one frame load and checks that it redirected.
func serveFrame(b *testing.B, h http.Handler, tmpl *http.Request) {
	if err := loadFrame(h, tmpl); err != nil {
		b.Fatal(err)
	}
}

// kitBody loads one frame through kit and returns the generate-session
// body the kit sent, for the baseline to send the same.
func kitBody(b *testing.B, p *benchPlatform, kit http.Handler, tmpl *http.Request) []byte {
	b.Helper()
	p.capture.Store(true)
	serveFrame(b, kit, tmpl)
	p.capture.Store(false)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.body) == 0 {
		b.Fatal("the kit sent no generate-session request")
	}
	return p.body
}

// BenchmarkFrame measures one iframe load: through the kit's FrameHandler
// (kit) and through the README's page handler around FrameURL
// (kit-frameurl, frameURLPage)
// (identity from a signed and encrypted gorilla session cookie, policy,
// validation, the generate-session call with the default embedkit client,
// the memory store, the iframe URL and the 303), and through
// baselineHandler sending the same body. The viewer loads the frame over
// and over; the store keeps 64 records for the host session throughout,
// a day of heavy use. cpu-ns/op is the CPU time of the whole
// process per load, the emulator's included. baseline-identity also
// reads the viewer (identityBaseline); baseline-busy, the control, also
// computes for benchBusy before its call (busyBaseline).
func BenchmarkFrame(b *testing.B) {
	// Each side serves the same viewer's loads. base is the hand-written
	// handler, sending the body the kit sent; the baselines are built on it.
	side := func(handler func(h *benchHost, k *middleware.Kit, kit, base http.Handler) http.Handler) func(b *testing.B) {
		return func(b *testing.B) {
			p := newBenchPlatform(b)
			h := newBenchHost()
			k, _ := newBenchKit(b, p, h)
			tmpl := frameRequest(h.cookie(b, benchViewer(0)))
			kit := k.FrameHandler()
			base := baselineHandler(plainClient(), p.srv.URL, kitBody(b, p, kit, tmpl))
			hd := handler(h, k, kit, base)
			serveFrame(b, hd, tmpl)
			b.ReportAllocs()
			cpu := testkit.StartCPU()
			for b.Loop() {
				serveFrame(b, hd, tmpl)
			}
			cpu.Report(b)
		}
	}
	b.Run("kit", side(func(_ *benchHost, _ *middleware.Kit, kit, _ http.Handler) http.Handler { return kit }))
	b.Run("kit-frameurl", side(func(_ *benchHost, k *middleware.Kit, _, _ http.Handler) http.Handler {
		return frameURLPage(k)
	}))
	b.Run("baseline", side(func(_ *benchHost, _ *middleware.Kit, _, base http.Handler) http.Handler { return base }))
	b.Run("baseline-identity", side(func(h *benchHost, _ *middleware.Kit, _, base http.Handler) http.Handler {
		return identityBaseline(h.identity, base)
	}))
	b.Run("baseline-busy", side(func(_ *benchHost, _ *middleware.Kit, _, base http.Handler) http.Handler {
		return busyBaseline(benchBusy, base)
	}))
}

// frameURLPage is the README's page handler (FrameURL as the page
// renders, ServeError on failure) with the page reduced to what the
// baselines answer: the platform URL in a 303, so that the sides differ
// only in how they mint, not in what they write.
func frameURLPage(k *middleware.Kit) http.Handler {
	sales, _ := k.Target("sales")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		src, err := k.FrameURL(w, r, sales)
		if err != nil {
			k.ServeError(w, r, err)
			return
		}
		w.Header().Set("Location", src)
		w.WriteHeader(http.StatusSeeOther)
	})
}

// benchBusy is the computation busyBaseline adds to each load.
const benchBusy = 10 * time.Microsecond

// busyBaseline is baselineHandler after d of pure computation on the
// handler's goroutine: the control of BenchmarkFrame. The CPU time per
// load it adds over the baseline shows what this in-process benchmark
// charges for a known amount of work done before the platform call; on
// two cores it is not d (the scheduler's work on the other core, waking
// threads to pass the round trip between goroutines, changes with the
// handler's own), which tells how closely the kit's figure measures the
// kit's own work.
func busyBaseline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			busySink = busySum(busySink)
		}
		next.ServeHTTP(w, r)
	})
}

// busySink keeps busySum's work from being optimised away.
var busySink uint64

// busySum is a little computation that needs no memory.
func busySum(x uint64) uint64 {
	for i := range uint64(64) {
		x = x*6364136223846793005 + i
	}
	return x
}

// BenchmarkFrameParallel is BenchmarkFrame with benchCallers goroutines
// loading frames at once, each as its own viewer (one host session
// cookie each). Before the timed run every caller loads benchWarmLoads
// frames at once, so the client's pool holds the connections the load
// needs: a cold burst of callers dials more connections than callers
// (net/http hands a connection coming back to a request that is still
// dialing, and the dialed one stays in the pool as a spare), whichever
// client sends it. conns is the number of connections opened to the
// platform during the timed run and closed the number that ended, with
// callers the number of goroutines: a client that reuses its connections
// opens none (conns must not exceed callers) and closes none.
// warmup-conns is the number the warm-up opened, recorded: how many
// spares a cold burst dials depends on the scheduler, on either side.
func BenchmarkFrameParallel(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	parallelism := (benchCallers + procs - 1) / procs
	run := func(b *testing.B, kit bool) {
		p := newBenchPlatform(b)
		h := newBenchHost()
		k, _ := newBenchKit(b, p, h)
		tmpls := make([]*http.Request, benchCallers)
		for i := range tmpls {
			tmpls[i] = frameRequest(h.cookie(b, benchViewer(i)))
		}
		handler := k.FrameHandler()
		body := kitBody(b, p, handler, tmpls[0])
		if !kit {
			handler = baselineHandler(plainClient(), p.srv.URL, body)
		}
		p.conns.Store(0)
		var warm sync.WaitGroup
		for _, tmpl := range tmpls {
			warm.Go(func() {
				for range benchWarmLoads {
					if err := loadFrame(handler, tmpl); err != nil {
						b.Errorf("warm-up: %v", err)
						return
					}
				}
			})
		}
		warm.Wait()
		cold := p.conns.Swap(0)
		p.closed.Store(0)
		var next atomic.Int64
		b.SetParallelism(parallelism)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := testkit.StartCPU()
		b.RunParallel(func(pb *testing.PB) {
			tmpl := tmpls[int(next.Add(1)-1)%len(tmpls)]
			for pb.Next() {
				if err := loadFrame(handler, tmpl); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		cpu.Report(b)
		conns := p.conns.Load()
		b.ReportMetric(float64(parallelism*procs), "callers")
		b.ReportMetric(float64(conns), "conns")
		b.ReportMetric(float64(p.closed.Load()), "closed")
		b.ReportMetric(float64(cold), "warmup-conns")
		b.ReportMetric(float64(conns)/float64(b.N), "conns/op")
	}
	b.Run("kit", func(b *testing.B) { run(b, true) })
	b.Run("baseline", func(b *testing.B) { run(b, false) })
}

// fixedViewer is an Identity that answers a copy of one viewer, reading
// nothing from the request.
type fixedViewer struct{ v *middleware.Viewer }

func (f fixedViewer) Viewer(*http.Request) (*middleware.Viewer, error) {
	c := *f.v
	return &c, nil
}

// instantPlatform is a Platform that answers at once with a fresh id.
// As it is not an *embedkit.Client, the Kit validates each request itself,
// once, as the client would.
type instantPlatform struct{ n atomic.Uint64 }

func (p *instantPlatform) GenerateSession(context.Context, *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	return &embedkit.Session{SessionID: fmt.Sprintf("%032x", p.n.Add(1))}, nil
}

func (p *instantPlatform) RevokeSession(context.Context, string) error { return nil }

// BenchmarkFrameKitOnly is BenchmarkFrame/kit without what surrounds the
// kit: the viewer comes from fixedViewer and the platform answers at once
// (instantPlatform), so only the kit's own work is measured: policy,
// validation, the memory store (64 records under the session, as in
// BenchmarkFrame), locale, the iframe URL and the 303. It is recorded,
// not held to a goal: BenchmarkFrame shows what the same code costs in
// place.
func BenchmarkFrameKitOnly(b *testing.B) {
	k, _ := benchKit(b, &instantPlatform{}, fixedViewer{benchViewer(0)}, "https://platform.example")
	tmpl := frameRequest(&http.Cookie{Name: "unused", Value: "x"})
	handler := k.FrameHandler()
	b.ReportAllocs()
	for b.Loop() {
		serveFrame(b, handler, tmpl)
	}
}
