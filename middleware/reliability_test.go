package middleware_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/testredis"
	"github.com/embedkit/embedkit/middleware"
)

// The fault matrix of the kit: the real frame and logout handlers and the
// real client against the emulator over loopback HTTP, with faults
// injected. Run it with
//
//	go test -race -run TestFault ./middleware/

const (
	relAPIKey      = "ek_dev_only_admin_all"
	relMintPath    = "/api/v1/embed/generate-session"
	relRevokePath  = "/api/v1/embed/session/revoke"
	relFramePath   = "/embed/frame/sales"
	relHangBound   = 10 * time.Second // detects hangs; not a speed target
	relPollTimeout = 10 * time.Second
)

// relPlatform is the emulator on a loopback server that counts accepted
// connections.
type relPlatform struct {
	em       *emulator.Server
	srv      *httptest.Server
	newConns atomic.Int64
}

func newRelPlatform(t *testing.T) *relPlatform {
	t.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &relPlatform{em: em}
	p.srv = httptest.NewUnstartedServer(em)
	p.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.newConns.Add(1)
		}
	}
	p.srv.Start()
	t.Cleanup(p.srv.Close)
	return p
}

// mints counts the generate-session requests the emulator received.
func (p *relPlatform) mints() int {
	n := 0
	for _, r := range p.em.Requests() {
		if r.Method == http.MethodPost && r.Path == relMintPath {
			n++
		}
	}
	return n
}

// states maps each emulator session id to its state.
func (p *relPlatform) states() map[string]string {
	out := map[string]string{}
	for _, s := range p.em.Sessions() {
		out[s.SessionID] = s.State
	}
	return out
}

// relLogs is a concurrency-safe log sink.
type relLogs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *relLogs) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *relLogs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// relHost is a host app's side: a client of the platform with its own
// transport, a Kit, and captured logs of both.
type relHost struct {
	kit       *middleware.Kit
	client    *embedkit.Client
	transport *http.Transport
	logs      *relLogs
}

// relHostOptions vary the host of a test.
type relHostOptions struct {
	key           string
	store         middleware.SessionStore
	clientOpts    []embedkit.Option
	revokeTimeout time.Duration
}

// relIdentity reads the viewer from the X-User and X-Session headers:
// the host's own session, as the test stands it in.
var relIdentity = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
	sub := r.Header.Get("X-User")
	if sub == "" {
		return nil, middleware.ErrNoViewer
	}
	return &middleware.Viewer{Subject: sub, SessionKey: r.Header.Get("X-Session"), Groups: []string{"sales"}}, nil
})

func newRelHost(t *testing.T, p *relPlatform, o relHostOptions) *relHost {
	t.Helper()
	if o.key == "" {
		o.key = relAPIKey
	}
	if o.store == nil {
		o.store = memstore.New()
	}
	h := &relHost{logs: &relLogs{}}
	h.transport = &http.Transport{MaxIdleConnsPerHost: 16, ResponseHeaderTimeout: 30 * time.Second}
	t.Cleanup(h.transport.CloseIdleConnections)
	logger := slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := append([]embedkit.Option{
		embedkit.WithHTTPClient(&http.Client{Transport: h.transport, Timeout: 30 * time.Second}),
		embedkit.WithLogger(logger),
	}, o.clientOpts...)
	var err error
	h.client, err = embedkit.New(p.srv.URL, o.key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h.kit, err = middleware.New(middleware.Config{
		Platform:    h.client,
		Identity:    relIdentity,
		Store:       o.store,
		PlatformURL: p.srv.URL,
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Logger:      logger,
		Revoke:      middleware.RevokeOptions{Timeout: o.revokeTimeout, Backoff: embedkit.Backoff{Min: time.Millisecond, Max: 10 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// load opens the frame endpoint as user in host session hostSession.
func (h *relHost) load(ctx context.Context, user, hostSession string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, relFramePath, nil)
	r.Header.Set("X-User", user)
	r.Header.Set("X-Session", hostSession)
	w := httptest.NewRecorder()
	h.kit.FrameHandler().ServeHTTP(w, r)
	return w
}

// mustLoad loads a frame that must mint, and returns the session id the
// redirect carries.
func (h *relHost) mustLoad(t *testing.T, user, hostSession string) string {
	t.Helper()
	w := h.load(context.Background(), user, hostSession)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("frame load: status %d, body %q", w.Code, w.Body)
	}
	return relSessionOf(t, w)
}

// relSessionOf reads the session id of a frame redirect.
func relSessionOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	id := loc.Query().Get("session")
	if id == "" {
		t.Fatalf("redirect %q carries no session", loc.Redacted())
	}
	return id
}

// logout posts to the kit's Logout around a host handler and reports
// whether the host handler ran.
func (h *relHost) logout(user, hostSession string) (*httptest.ResponseRecorder, bool) {
	var ran atomic.Bool
	host := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		ran.Store(true)
		http.Redirect(w, httptest.NewRequest(http.MethodGet, "/", nil), "/", http.StatusSeeOther)
	})
	r := httptest.NewRequest(http.MethodPost, "/logout", nil)
	r.Header.Set("X-User", user)
	r.Header.Set("X-Session", hostSession)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := httptest.NewRecorder()
	h.kit.Logout(host).ServeHTTP(w, r)
	return w, ran.Load()
}

// relEventually polls cond until it holds or relPollTimeout passes.
func relEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(relPollTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, relPollTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// relNoSecrets fails when the API key or any emulator session id shows
// in s.
func relNoSecrets(t *testing.T, where, s, key string, p *relPlatform) {
	t.Helper()
	if strings.Contains(s, key) {
		t.Errorf("the API key appears in the %s", where)
	}
	for _, se := range p.em.Sessions() {
		if strings.Contains(s, se.SessionID) {
			t.Errorf("session id %s appears in the %s", embedkit.Redact(se.SessionID), where)
		}
	}
}

func TestFaultMintOutageNeverMintsTwice(t *testing.T) {
	cases := []struct {
		name  string
		fault emulator.Fault
		// outages is how many page views see the outage page before one
		// mints; retryAfter is the Retry-After those pages send.
		outages    int
		retryAfter string
	}{
		{name: "503 twice", fault: emulator.Fault{Status: 503, Times: 2}, outages: 2, retryAfter: "30"},
		{name: "503 twice with Retry-After", fault: emulator.Fault{Status: 503, Times: 2, RetryAfter: "7"}, outages: 2, retryAfter: "7"},
		{name: "502 from a proxy twice", fault: emulator.Fault{Status: 502, Times: 2, Body: "<html>bad gateway</html>"}, outages: 2, retryAfter: "30"},
		// 429 means the platform did nothing: the client waits as told
		// and retries, and the first page view mints.
		{name: "429 twice with Retry-After 1", fault: emulator.Fault{Status: 429, Times: 2, RetryAfter: "1"}, outages: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newRelPlatform(t)
			h := newRelHost(t, p, relHostOptions{})
			f := tc.fault
			f.Method, f.Path = http.MethodPost, relMintPath
			p.em.InjectFault(f)

			minted := 0
			for view := 1; view <= 3; view++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				w := h.load(ctx, "ana", "login-1")
				cancel()
				switch {
				case w.Code == http.StatusInternalServerError:
					t.Fatalf("page view %d answered 500", view)
				case view <= tc.outages:
					if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != tc.retryAfter {
						t.Fatalf("page view %d: status %d Retry-After %q, want the outage page (503, Retry-After %s)",
							view, w.Code, w.Header().Get("Retry-After"), tc.retryAfter)
					}
					if got := len(p.em.Sessions()); got != 0 {
						t.Fatalf("page view %d failed yet %d sessions exist", view, got)
					}
				default:
					if w.Code != http.StatusSeeOther {
						t.Fatalf("page view %d: status %d, want 303 once the platform is back", view, w.Code)
					}
					minted++
					id := relSessionOf(t, w)
					if st := p.states()[id]; st != "unexchanged" {
						t.Fatalf("the redirect's session is %q on the platform", st)
					}
				}
				if w.Code != http.StatusSeeOther { // a redirect's body links the iframe URL, by design
					relNoSecrets(t, "outage page", w.Body.String()+headerText(w.Header()), relAPIKey, p)
				}
			}
			if got := len(p.em.Sessions()); got != minted {
				t.Errorf("%d sessions for %d successful page views: a page view minted twice", got, minted)
			}
			// Each outage page view sent exactly one request: a mint that
			// got a 5xx is never repeated.
			if got, want := p.mints(), 3+tc.fault.Times-tc.outages; got != want {
				t.Errorf("%d generate-session requests, want %d", got, want)
			}
			relNoSecrets(t, "logs", h.logs.String(), relAPIKey, p)
		})
	}
}

func TestFaultOpenCircuitAnswersOutageWithoutCallingThePlatform(t *testing.T) {
	p := newRelPlatform(t)
	h := newRelHost(t, p, relHostOptions{clientOpts: []embedkit.Option{
		embedkit.WithCircuitBreaker(embedkit.BreakerSettings{FailureThreshold: 2, CoolDown: time.Hour}),
	}})
	p.em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: relMintPath, Status: 503})
	for range 2 {
		if w := h.load(context.Background(), "ana", "login-1"); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", w.Code)
		}
	}
	sent := p.mints()
	for range 3 {
		w := h.load(context.Background(), "ana", "login-1")
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Fatalf("open circuit: status %d Retry-After %q, want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
		}
	}
	if got := p.mints(); got != sent {
		t.Errorf("the open circuit let %d mints reach the platform", got-sent)
	}
}

func TestFaultMintHangAnswersWithinDeadline(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	func() {
		p := newRelPlatform(t)
		h := newRelHost(t, p, relHostOptions{})
		p.em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: relMintPath, Delay: 10 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		w := h.load(ctx, "ana", "login-1")
		if took := time.Since(start); took > relHangBound {
			t.Fatalf("the frame load took %s", took)
		}
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Fatalf("status %d, want the outage page", w.Code)
		}
		if !strings.Contains(h.logs.String(), "deadline exceeded") {
			t.Errorf("the logs do not say the platform call timed out")
		}
		if n := len(p.em.Sessions()); n != 0 {
			t.Errorf("%d sessions minted by a mint that timed out", n)
		}
		h.transport.CloseIdleConnections()
		p.srv.Close()
	}()
	// memstore's sweeper lives as long as its Store and is stopped by a
	// finalizer once the Store is unreachable (memstore's own tests check
	// that); every other goroutine must be gone.
	goleak.VerifyNone(t, ignore, goleak.IgnoreTopFunction("github.com/patrickmn/go-cache.(*janitor).Run"))
}

func TestFaultMintConnectionDroppedKeepsThePoolHealthy(t *testing.T) {
	p := newRelPlatform(t)
	h := newRelHost(t, p, relHostOptions{})
	h.mustLoad(t, "ana", "login-1") // warm the pool
	p.em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: relMintPath, Reset: true, Times: 1})
	w := h.load(context.Background(), "ana", "login-1")
	if w.Code != http.StatusServiceUnavailable && w.Code != http.StatusBadGateway {
		t.Fatalf("dropped connection: status %d, want 503 or 502", w.Code)
	}
	t.Logf("a dropped mint connection answers %d", w.Code)
	if !strings.Contains(h.logs.String(), relMintPath) {
		t.Error("the logs do not name the failed operation")
	}
	const more = 20
	for range more {
		h.mustLoad(t, "ana", "login-1")
	}
	if got := len(p.em.Sessions()); got != more+1 {
		t.Errorf("%d sessions, want %d: one per successful page view", got, more+1)
	}
	if n := p.newConns.Load(); n > 4 {
		t.Errorf("%d connections for %d sequential page views; the pool is not reused", n, more+2)
	}
}

func TestFaultMalformedMintAnswerIsABadGateway(t *testing.T) {
	cases := []struct {
		name  string
		fault emulator.Fault
	}{
		{name: "HTML with 200", fault: emulator.Fault{Status: 200, Body: "<html><body>maintenance</body></html>"}},
		{name: "truncated JSON with 200", fault: emulator.Fault{Status: 200, Body: `{"sessionId":"0a1b`}},
		{name: "JSON without a session id", fault: emulator.Fault{Status: 200, Body: `{"data":{}}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newRelPlatform(t)
			h := newRelHost(t, p, relHostOptions{})
			f := tc.fault
			f.Method, f.Path, f.Times = http.MethodPost, relMintPath, 1
			p.em.InjectFault(f)
			w := h.load(context.Background(), "ana", "login-1")
			if w.Code != http.StatusBadGateway {
				t.Fatalf("status %d, want 502", w.Code)
			}
			if strings.Contains(w.Body.String(), "embedkit") || strings.Contains(w.Body.String(), tc.fault.Body) {
				t.Errorf("the page shows internals: %q", w.Body)
			}
			if !strings.Contains(h.logs.String(), "unexpected response") {
				t.Errorf("the logs do not say what went wrong")
			}
			h.mustLoad(t, "ana", "login-1")
		})
	}
}

func TestFaultRotatedKeyIsReportedToTheOperatorOnly(t *testing.T) {
	const rotated = "ek_rotated_7f3e9b2d"
	p := newRelPlatform(t)
	h := newRelHost(t, p, relHostOptions{key: rotated})
	w := h.load(context.Background(), "ana", "login-1")
	if w.Code != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", w.Code)
	}
	logs := h.logs.String()
	if !strings.Contains(logs, "API key") || !strings.Contains(logs, "rotated") {
		t.Errorf("the logs do not tell the operator to check the API key: %s", logs)
	}
	if strings.Contains(w.Body.String(), "API key") {
		t.Errorf("the viewer's page talks about the API key: %q", w.Body)
	}
	for where, s := range map[string]string{"logs": logs, "page": w.Body.String(), "headers": headerText(w.Header())} {
		relNoSecrets(t, where, s, rotated, p)
		if strings.Contains(s, "7f3e9b2d") {
			t.Errorf("part of the API key appears in the %s", where)
		}
	}
	if n := len(p.em.Sessions()); n != 0 {
		t.Errorf("%d sessions minted with a rejected key", n)
	}
}

// headerText renders h for a leak check.
func headerText(h http.Header) string {
	var b strings.Builder
	_ = h.Write(&b)
	return b.String()
}

// relRedisPrefix returns a key prefix of its own on the test Redis and
// deletes its keys when the test ends.
func relRedisPrefix(t *testing.T, c *redis.Client) string {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	prefix := "embedkit-reliability:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	return prefix
}

// relRedis connects to the test Redis: the one the test command
// exported in EMBEDKIT_REDIS_ADDR, or one started for this test. It
// fails (never skips) when there is none.
func relRedis(t *testing.T) *redis.Client {
	t.Helper()
	// Stop is a no-op when the test command runs the server; otherwise it
	// stops the one Addr started for this binary.
	t.Cleanup(testredis.Stop)
	c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		t.Fatalf("redis at %s does not answer: %v", c.Options().Addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestFaultLogoutWhilePlatformDown(t *testing.T) {
	type stores struct {
		// before is the store of the host process that handles the logout;
		// after, of the process that retries the revokes (the same process,
		// or one started after a restart).
		before, after middleware.SessionStore
		restart       bool
	}
	cases := []struct {
		name  string
		fault emulator.Fault
		setup func(t *testing.T) stores
		// drain retries with FlushRevokes when true, with Run otherwise.
		flush bool
	}{
		{name: "memory store, platform answers 503, flushed", fault: emulator.Fault{Status: 503}, flush: true,
			setup: func(t *testing.T) stores {
				s := memstore.New()
				return stores{before: s, after: s}
			}},
		{name: "memory store, platform hangs, retried by Run", fault: emulator.Fault{Delay: 10 * time.Second},
			setup: func(t *testing.T) stores {
				s := memstore.New()
				return stores{before: s, after: s}
			}},
		{name: "Redis store, host restarted before the platform returned", fault: emulator.Fault{Status: 503},
			setup: func(t *testing.T) stores {
				c := relRedis(t)
				prefix := relRedisPrefix(t, c)
				// A second client and Store stand in for the restarted process.
				c2 := redis.NewClient(&redis.Options{Addr: c.Options().Addr})
				t.Cleanup(func() { _ = c2.Close() })
				return stores{
					before:  redisstore.New(c, redisstore.WithPrefix(prefix)),
					after:   redisstore.New(c2, redisstore.WithPrefix(prefix)),
					restart: true,
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.setup(t)
			p := newRelPlatform(t)
			h := newRelHost(t, p, relHostOptions{store: st.before, revokeTimeout: time.Second,
				clientOpts: []embedkit.Option{embedkit.WithRetry(embedkit.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})}})
			ids := []string{h.mustLoad(t, "ana", "login-1"), h.mustLoad(t, "ana", "login-1")}
			other := h.mustLoad(t, "bob", "login-2")

			f := tc.fault
			f.Method, f.Path = http.MethodPost, relRevokePath
			p.em.InjectFault(f)
			start := time.Now()
			w, ran := h.logout("ana", "login-1")
			if took := time.Since(start); took > relHangBound {
				t.Fatalf("logout took %s while the platform was down", took)
			}
			if !ran || w.Code != http.StatusSeeOther {
				t.Fatalf("host logout ran %v, status %d: the user was not logged out at once", ran, w.Code)
			}
			states := p.states()
			for _, id := range ids {
				if states[id] == "revoked" {
					t.Fatal("a revoke landed while the platform was down")
				}
			}
			queue := st.before.(middleware.RevokeQueue)
			if n, err := queue.Pending(context.Background()); err != nil || n != len(ids) {
				t.Fatalf("%d revokes queued (err %v), want %d", n, err, len(ids))
			}

			p.em.ClearFaults()
			after := h
			if st.restart {
				// The first process is gone; a new one, with its own client
				// and Store on the same Redis, starts its retrier.
				after = newRelHost(t, p, relHostOptions{store: st.after})
			}
			if tc.flush {
				relEventually(t, "FlushRevokes empties the queue", func() bool {
					n, err := after.kit.FlushRevokes(context.Background())
					return err == nil && n == 0
				})
			} else {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- after.kit.Run(ctx) }()
				defer func() {
					cancel()
					if err := <-done; err != nil {
						t.Errorf("Run: %v", err)
					}
				}()
			}
			relEventually(t, "the queued revokes land", func() bool {
				states := p.states()
				return states[ids[0]] == "revoked" && states[ids[1]] == "revoked"
			})
			if st := p.states()[other]; st != "unexchanged" {
				t.Errorf("another host session's session is %q", st)
			}
			relEventually(t, "the queue drains", func() bool {
				n, err := st.after.(middleware.RevokeQueue).Pending(context.Background())
				return err == nil && n == 0
			})
			relNoSecrets(t, "logs", h.logs.String()+after.logs.String(), relAPIKey, p)
		})
	}
}
