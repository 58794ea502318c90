// Package loadtest drives the kit's frame endpoint with many concurrent
// viewers against the platform emulator, then logs every viewer out, and
// checks that nothing was lost: every load answered, every minted session
// revoked, the host's memory back where it started.
//
// Everything runs in one process on loopback: the emulator (with an
// injected latency on generate-session and revoke), a host app serving
// the kit's frame and logout handlers, and the viewers. The viewer of a
// request comes from a header the load generator sets; that identity
// exists only here, for load, and is never a way to run a real host.
//
// cmd/loadtest is the command; Run is the whole test, so a unit test runs
// it small.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// Defaults of Options.
const (
	DefaultViewers  = 1000
	DefaultDuration = 30 * time.Second
	DefaultLatency  = 20 * time.Millisecond
	// DefaultPlatformIdleConns is the idle connections per host the
	// kit's client keeps by default (embedkit.New's own http.Client).
	DefaultPlatformIdleConns = 100
	// DefaultMaxPerKey bounds the ids kept per host session. Viewers load
	// frames back to back, far more often than people do, so the bound is
	// raised above what a run mints for one host session: with the store's
	// default (64) the oldest ids of a host session would be dropped and
	// not revoked at logout, which the check would report as lost.
	DefaultMaxPerKey = 1 << 16
	// HeapFactor and HeapSlack bound the heap after the logout for the
	// memory check to pass: at most HeapFactor times the heap before the
	// load plus HeapSlack bytes, which keeps a small run's baseline of a
	// megabyte or two from failing on runtime noise.
	HeapFactor = 2.0
	HeapSlack  = 4 << 20
	// DrainTimeout bounds the retries of queued revokes after the logout.
	DrainTimeout = 2 * time.Minute
)

// apiKey is the emulator demo fixture's unscoped admin key.
const apiKey = "ek_dev_only_admin_all"

// viewerHeader carries the viewer's number from the load generator to the
// host's in-process identity.
const viewerHeader = "X-Load-Viewer"

// framePath is the frame every viewer loads.
const framePath = "/embed/frame/sales"

// Options configure Run. Zero fields take the defaults.
type Options struct {
	// Viewers is the number of concurrent viewers, each with a host
	// session of its own.
	Viewers int
	// Duration is how long the viewers load frames.
	Duration time.Duration
	// Latency is injected by the emulator on generate-session and revoke.
	Latency time.Duration
	// PlatformIdleConns is MaxIdleConnsPerHost of the kit's client.
	PlatformIdleConns int
	// MaxPerKey bounds the session ids the store keeps per host session.
	MaxPerKey int
}

func (o Options) withDefaults() Options {
	if o.Viewers <= 0 {
		o.Viewers = DefaultViewers
	}
	if o.Duration <= 0 {
		o.Duration = DefaultDuration
	}
	if o.Latency <= 0 {
		o.Latency = DefaultLatency
	}
	if o.PlatformIdleConns <= 0 {
		o.PlatformIdleConns = DefaultPlatformIdleConns
	}
	if o.MaxPerKey <= 0 {
		o.MaxPerKey = DefaultMaxPerKey
	}
	return o
}

// Report is what a run measured.
type Report struct {
	Options Options
	// Elapsed is how long the viewers loaded frames.
	Elapsed time.Duration
	// Loads counts frame loads answered with a redirect to the platform;
	// Errors every other outcome (any status but 303, transport errors).
	Loads, Errors int64
	// FirstError describes the first error, if any.
	FirstError string
	// FrameP50 and FrameP99 are the frame handler's latency, measured in
	// the host around the handler.
	FrameP50, FrameP99 time.Duration
	// AddedP50 and AddedP99 are the kit's own share: frame latency minus
	// the time spent waiting for the platform's answer.
	AddedP50, AddedP99 time.Duration
	// PlatformP50 is the generate-session round trip as the kit's client
	// saw it.
	PlatformP50 time.Duration
	// ClientP50 and ClientP99 are the viewers' round trip to the host.
	ClientP50, ClientP99 time.Duration
	// LoadConns and LogoutConns count the connections the kit opened to
	// the platform while the viewers loaded frames and during the logout.
	LoadConns, LogoutConns int64
	// Logouts, LogoutErrors and LogoutElapsed describe the mass logout.
	Logouts, LogoutErrors int64
	LogoutElapsed         time.Duration
	// Minted counts sessions on the platform; Revoked those revoked;
	// Lost those minted and not revoked after the logout.
	Minted, Revoked, Lost int
	// QueuedAtLogout is how many revokes were queued when the logout
	// ended (revokes that outlasted a logout's deadline); Queued is how many were left once the retries ended,
	// DrainElapsed after how long.
	QueuedAtLogout, Queued int
	DrainElapsed           time.Duration
	// HeapBefore is the live heap before the load, after a warm-up round
	// in which every viewer loaded a few frames and logged out; HeapAfter is
	// the live heap after the logout. Both are weighed with the emulator's
	// sessions dropped (they are the platform's memory, not the host's)
	// and every connection closed (their buffers say nothing about what
	// the kit keeps).
	HeapBefore, HeapAfter uint64
}

// RequestsPerSecond is the rate of frame loads.
func (r Report) RequestsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Loads+r.Errors) / r.Elapsed.Seconds()
}

// MemoryFlat reports whether the heap after the logout is within
// HeapFactor (plus HeapSlack) of the heap before the load.
func (r Report) MemoryFlat() bool {
	return float64(r.HeapAfter) <= HeapFactor*float64(r.HeapBefore)+HeapSlack
}

// Check returns an error naming every check the run failed.
func (r Report) Check() error {
	var errs []error
	if r.Errors > 0 {
		errs = append(errs, fmt.Errorf("%d frame loads failed (first: %s)", r.Errors, r.FirstError))
	}
	if r.LogoutErrors > 0 {
		errs = append(errs, fmt.Errorf("%d logouts failed (first: %s)", r.LogoutErrors, r.FirstError))
	}
	if int64(r.Minted) != r.Loads {
		errs = append(errs, fmt.Errorf("%d sessions minted for %d successful loads", r.Minted, r.Loads))
	}
	if r.Lost > 0 || r.Queued > 0 {
		errs = append(errs, fmt.Errorf("%d minted sessions not revoked, %d revokes still queued", r.Lost, r.Queued))
	}
	if !r.MemoryFlat() {
		errs = append(errs, fmt.Errorf("heap %s after logout, more than %.0fx the %s before the load plus %s",
			mib(r.HeapAfter), HeapFactor, mib(r.HeapBefore), mib(HeapSlack)))
	}
	return errors.Join(errs...)
}

// String prints the report.
func (r Report) String() string {
	var b strings.Builder
	o := r.Options
	fmt.Fprintf(&b, "viewers %d, duration %s, platform latency %s (generate-session and revoke), %s\n",
		o.Viewers, o.Duration, o.Latency, runtime.Version())
	fmt.Fprintf(&b, "frame loads        %d ok, %d errors in %s: %.0f requests/s\n", r.Loads, r.Errors, r.Elapsed.Round(time.Millisecond), r.RequestsPerSecond())
	fmt.Fprintf(&b, "frame handler      p50 %s  p99 %s\n", r.FrameP50.Round(time.Microsecond), r.FrameP99.Round(time.Microsecond))
	fmt.Fprintf(&b, "kit added latency  p50 %s  p99 %s  (platform round trip p50 %s)\n", r.AddedP50.Round(time.Microsecond), r.AddedP99.Round(time.Microsecond), r.PlatformP50.Round(time.Microsecond))
	fmt.Fprintf(&b, "viewer round trip  p50 %s  p99 %s\n", r.ClientP50.Round(time.Microsecond), r.ClientP99.Round(time.Microsecond))
	fmt.Fprintf(&b, "platform conns     %d opened during the load, %d during the logout (client keeps %d idle per host)\n", r.LoadConns, r.LogoutConns, o.PlatformIdleConns)
	fmt.Fprintf(&b, "mass logout        %d viewers, %d errors in %s\n", r.Logouts, r.LogoutErrors, r.LogoutElapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "revoke queue       %d queued after the logout, %d left after %s of retries\n", r.QueuedAtLogout, r.Queued, r.DrainElapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "sessions           %d minted, %d revoked, %d lost\n", r.Minted, r.Revoked, r.Lost)
	fmt.Fprintf(&b, "heap               %s before the load (after a warm-up), %s after the logout (limit %.0fx + %s)\n", mib(r.HeapBefore), mib(r.HeapAfter), HeapFactor, mib(HeapSlack))
	if err := r.Check(); err != nil {
		fmt.Fprintf(&b, "FAILED: %v\n", err)
	} else {
		b.WriteString("PASS: zero errors, zero lost revokes, memory flat\n")
	}
	return b.String()
}

func mib(n uint64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// platformTimeKey is the context key of the per-request platform time.
type platformTimeKey struct{}

// timingTransport adds the time each round trip waits for the platform to
// the counter in its request's context, and records the round trips of
// generate-session.
type timingTransport struct {
	base http.RoundTripper
	hist *histogram
}

func (t timingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	d := time.Since(start)
	if strings.HasSuffix(req.URL.Path, "/generate-session") {
		t.hist.add(d)
	}
	if c, ok := req.Context().Value(platformTimeKey{}).(*atomic.Int64); ok {
		c.Add(int64(d))
	}
	return resp, err
}

// run holds one run's state.
type run struct {
	o        Options
	report   Report
	frame    histogram
	added    histogram
	platform histogram
	client   histogram
	errMu    sync.Mutex
	loads    atomic.Int64
	errs     atomic.Int64
	logouts  atomic.Int64
	logErrs  atomic.Int64
	conns    atomic.Int64 // connections the platform accepted
}

// revokeBackoff is the kit's schedule for queued revokes in the load test:
// short, so that the drain below takes seconds.
var revokeBackoff = embedkit.Backoff{Min: 100 * time.Millisecond, Max: time.Second}

// warmUpLoads is how many frames each viewer loads in the warm-up round.
// The warm-up exists so that the measured round starts from the runtime's
// peak goroutine count (the runtime keeps the descriptors of that peak for
// good, and a lower warm-up peak would show up as growth that says nothing
// about the kit). The peak is one handler per viewer plus the Kit's
// revoke slots, which every logout shares, so a few loads per viewer are
// enough to fill those slots at the warm-up's mass logout.
const warmUpLoads = 4

// round runs one round: every viewer loads frames until d has passed (or
// warmUpLoads times, for a warm-up), then every viewer logs out.
func (r *run) round(ctx context.Context, c *http.Client, hostURL, platformURL string, d time.Duration, warmUp bool) error {
	loadCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for v := range r.o.Viewers {
		wg.Go(func() { r.viewer(loadCtx, c, hostURL, platformURL, v, warmUp) })
	}
	wg.Wait()
	r.report.Elapsed = time.Since(start)
	r.report.Loads, r.report.Errors = r.loads.Load(), r.errs.Load()
	r.report.LoadConns = r.conns.Load()

	start = time.Now()
	for v := range r.o.Viewers {
		wg.Go(func() { r.logout(context.WithoutCancel(ctx), c, hostURL, v) })
	}
	wg.Wait()
	r.report.LogoutElapsed = time.Since(start)
	r.report.Logouts, r.report.LogoutErrors = r.logouts.Load(), r.logErrs.Load()
	if warmUp && (r.report.Errors > 0 || r.report.LogoutErrors > 0) {
		return fmt.Errorf("loadtest: warm-up failed: %s", r.report.FirstError)
	}
	return nil
}

// resetCounts zeroes what the warm-up counted.
func (r *run) resetCounts() {
	for _, h := range []*histogram{&r.frame, &r.added, &r.platform, &r.client} {
		h.reset()
	}
	r.loads.Store(0)
	r.errs.Store(0)
	r.logouts.Store(0)
	r.logErrs.Store(0)
}

func (r *run) fail(format string, args ...any) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.report.FirstError == "" {
		r.report.FirstError = fmt.Sprintf(format, args...)
	}
}

// Run starts the emulator and a host app on loopback, drives the frame
// endpoint with o.Viewers concurrent viewers for o.Duration, logs them all
// out, and checks the outcome. It returns the report, and an error when
// the run could not be set up or a check failed (Report.Check). ctx
// cancels the run early.
func Run(ctx context.Context, o Options) (Report, error) {
	o = o.withDefaults()
	r := &run{o: o}
	r.report.Options = o

	em, err := emulator.New(nil)
	if err != nil {
		return r.report, err
	}
	for _, p := range []string{"/api/v1/embed/generate-session", "/api/v1/embed/session/revoke"} {
		em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: p, Delay: o.Latency})
	}
	conns := &r.conns
	var open atomic.Int64 // connections of either server not yet closed
	track := func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	platform := httptest.NewUnstartedServer(em)
	platform.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
		track(c, s)
	}
	platform.Start()
	defer platform.Close()

	// The kit's client as embedkit.New builds it, with a transport of our
	// own so that round trips are timed.
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConns:          o.PlatformIdleConns,
		MaxIdleConnsPerHost:   o.PlatformIdleConns,
		IdleConnTimeout:       90 * time.Second,
	}
	defer transport.CloseIdleConnections()
	client, err := embedkit.New(platform.URL, apiKey, embedkit.WithHTTPClient(&http.Client{
		Transport: timingTransport{base: transport, hist: &r.platform},
		Timeout:   30 * time.Second,
	}))
	if err != nil {
		return r.report, err
	}
	store := memstore.New(memstore.WithMaxPerKey(o.MaxPerKey))
	kit, err := middleware.New(middleware.Config{
		Platform:    client,
		Identity:    middleware.IdentityFunc(headerViewer),
		Store:       store,
		PlatformURL: platform.URL,
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales"}}},
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Revoke:      middleware.RevokeOptions{Backoff: revokeBackoff},
		// Each viewer loads frames back to back for the whole run: the
		// load test measures the mint path, which the per-viewer limit
		// would cut short.
		MintLimit: middleware.MintLimitOptions{Off: true},
	})
	if err != nil {
		return r.report, err
	}

	mux := http.NewServeMux()
	mux.Handle("GET /embed/frame/", r.timed(kit.FrameHandler()))
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})))
	host := httptest.NewUnstartedServer(mux)
	host.Config.ConnState = track
	host.Start()
	defer host.Close()
	viewers := &http.Client{
		Transport: &http.Transport{MaxIdleConns: o.Viewers, MaxIdleConnsPerHost: o.Viewers, IdleConnTimeout: time.Minute},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // the iframe would follow; the test only checks the redirect
		},
		Timeout: time.Minute,
	}
	defer viewers.CloseIdleConnections()

	// Warm-up: every viewer loads a few frames and logs out, so that
	// connection pools, maps, buffers and the runtime's goroutine
	// descriptors have their working size before the heap is weighed.
	if err := r.round(ctx, viewers, host.URL, platform.URL, o.Duration, true); err != nil {
		return r.report, err
	}
	if err := em.Reset(nil); err != nil {
		return r.report, err
	}
	for _, p := range []string{"/api/v1/embed/generate-session", "/api/v1/embed/session/revoke"} {
		em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: p, Delay: o.Latency})
	}
	r.resetCounts()
	r.report.HeapBefore = quietHeap(&open, viewers, transport)
	conns.Store(0)

	// Load, then the mass logout.
	if err := r.round(ctx, viewers, host.URL, platform.URL, o.Duration, false); err != nil {
		return r.report, err
	}
	r.report.LogoutConns = conns.Load() - r.report.LoadConns
	// Revokes that outlasted a logout's deadline were queued: retry them
	// as Run would, until the queue is empty or DrainTimeout has passed.
	drainCtx, cancelDrain := context.WithTimeout(context.WithoutCancel(ctx), DrainTimeout)
	if n, err := store.Pending(drainCtx); err == nil {
		r.report.QueuedAtLogout = n
	}
	start := time.Now()
	for {
		queued, err := kit.FlushRevokes(drainCtx)
		r.report.Queued = queued
		if err != nil {
			r.fail("flushing revokes: %v", err)
		}
		if queued == 0 || drainCtx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancelDrain()
	r.report.DrainElapsed = time.Since(start)
	// Pending drops expired records, so the heap weighed below is what
	// the kit keeps for good.
	_, _ = store.Pending(context.WithoutCancel(ctx))

	// Checks.
	for _, s := range em.Sessions() {
		r.report.Minted++
		if s.State == "revoked" {
			r.report.Revoked++
		} else {
			r.report.Lost++
		}
	}
	r.report.FrameP50, r.report.FrameP99 = r.frame.quantile(0.50), r.frame.quantile(0.99)
	r.report.AddedP50, r.report.AddedP99 = r.added.quantile(0.50), r.added.quantile(0.99)
	r.report.PlatformP50 = r.platform.quantile(0.50)
	r.report.ClientP50, r.report.ClientP99 = r.client.quantile(0.50), r.client.quantile(0.99)

	// Memory: drop the platform's sessions, as before the load, and weigh
	// what the host still holds.
	if err := em.Reset(nil); err != nil {
		return r.report, err
	}
	r.report.HeapAfter = quietHeap(&open, viewers, transport)
	runtime.KeepAlive(kit)
	runtime.KeepAlive(store)

	return r.report, r.report.Check()
}

// headerViewer is the in-process identity of the load: viewer N is
// subject "viewer-N" in host session "host-session-N".
func headerViewer(req *http.Request) (*middleware.Viewer, error) {
	n := req.Header.Get(viewerHeader)
	if n == "" {
		return nil, middleware.ErrNoViewer
	}
	return &middleware.Viewer{Subject: "viewer-" + n, SessionKey: "host-session-" + n, Groups: []string{"sales"}}, nil
}

// timed measures the frame handler and the platform time within it.
func (r *run) timed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var platform atomic.Int64
		req = req.WithContext(context.WithValue(req.Context(), platformTimeKey{}, &platform))
		start := time.Now()
		next.ServeHTTP(w, req)
		d := time.Since(start)
		r.frame.add(d)
		r.added.add(d - time.Duration(platform.Load()))
	})
}

// viewer loads the frame as viewer v until ctx is done, or warmUpLoads
// times for a warm-up.
func (r *run) viewer(ctx context.Context, c *http.Client, hostURL, platformURL string, v int, warmUp bool) {
	id := strconv.Itoa(v)
	want := platformURL + "/embed/dashboard/sales-overview?"
	for n := 0; ctx.Err() == nil && (!warmUp || n < warmUpLoads); n++ {
		// A load in flight when the run ends finishes: the viewer is not
		// cut off mid-request, so every mint is tracked.
		req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, hostURL+framePath, nil)
		if err != nil {
			r.errs.Add(1)
			r.fail("building request: %v", err)
			return
		}
		req.Header.Set(viewerHeader, id)
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			r.errs.Add(1)
			r.fail("frame load: %v", err)
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		r.client.add(time.Since(start))
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, want) || !strings.Contains(loc, "session=") {
			r.errs.Add(1)
			r.fail("frame load: status %d", resp.StatusCode)
			continue
		}
		r.loads.Add(1)
	}
}

// logout logs viewer v out.
func (r *run) logout(ctx context.Context, c *http.Client, hostURL string, v int) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hostURL+"/logout", nil)
	if err != nil {
		r.logErrs.Add(1)
		r.fail("building logout: %v", err)
		return
	}
	req.Header.Set(viewerHeader, strconv.Itoa(v))
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		r.logErrs.Add(1)
		r.fail("logout: %v", err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		r.logErrs.Add(1)
		r.fail("logout: status %d", resp.StatusCode)
		return
	}
	r.logouts.Add(1)
}

// quietHeap closes the idle connections of both clients, waits (up to 10
// seconds) until the servers have closed theirs, and returns the live
// heap.
func quietHeap(open *atomic.Int64, clients ...interface{ CloseIdleConnections() }) uint64 {
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	deadline := time.Now().Add(10 * time.Second)
	for open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return liveHeap()
}

// liveHeap returns the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
