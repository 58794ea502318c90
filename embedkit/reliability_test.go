package embedkit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/testkit"
)

// The fault matrix of the client, run against the emulator over real
// HTTP. Every test here is named TestFault... or TestHostile... so that
// "go test -run 'TestFault|TestHostile' ./embedkit/" runs the matrix.

const (
	// reliabilityKey is the demo fixture's unscoped admin key.
	reliabilityKey = "ek_dev_only_admin_all"
	// generatePath is the mint endpoint.
	generatePath = "/api/v1/embed/generate-session"
	// hangBound is a generous upper bound on a call that must not hang;
	// it detects hangs, it does not measure speed.
	hangBound = 10 * time.Second
	// quoteBound is the longest body prefix an error quotes, in bytes of
	// the body, before the "..." that marks a cut.
	quoteBound = 256
)

// faultEnv is the emulator on a loopback server that counts the
// connections it accepts, and a client of it whose transport the test
// owns.
type faultEnv struct {
	em        *emulator.Server
	srv       *httptest.Server
	transport *http.Transport
	client    *embedkit.Client
	newConns  atomic.Int64
	logs      *lockedBuffer
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes, for logs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newFaultEnv starts the emulator and a client of it with key, the
// client's own transport, a debug logger into env.logs, and opts.
func newFaultEnv(t *testing.T, key string, opts ...embedkit.Option) *faultEnv {
	t.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	env := &faultEnv{em: em, logs: &lockedBuffer{}}
	env.srv = httptest.NewUnstartedServer(em)
	env.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			env.newConns.Add(1)
		}
	}
	env.srv.Start()
	env.transport = &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   16,
	}
	logger := slog.New(slog.NewJSONHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	all := append([]embedkit.Option{
		embedkit.WithHTTPClient(&http.Client{Transport: env.transport, Timeout: 30 * time.Second}),
		embedkit.WithLogger(logger),
	}, opts...)
	env.client, err = embedkit.New(env.srv.URL, key, all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.close)
	return env
}

// close stops the server and drops the client's idle connections. It may
// run twice.
func (e *faultEnv) close() {
	e.transport.CloseIdleConnections()
	e.srv.Close()
}

// mintRequests counts the generate-session requests the emulator saw.
func (e *faultEnv) mintRequests() int {
	n := 0
	for _, r := range e.em.Requests() {
		if r.Method == http.MethodPost && r.Path == generatePath {
			n++
		}
	}
	return n
}

// validRequest is a generate-session request the demo fixture accepts.
func validRequest(externalID string) *embedkit.GenerateSessionRequest {
	return &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: externalID, Groups: []string{"sales"}}
}

// within runs f and fails the test if it takes longer than hangBound.
func within(t *testing.T, what string, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	took := time.Since(start)
	if took > hangBound {
		t.Errorf("%s took %s: it hangs instead of failing fast", what, took)
	}
	return took
}

func TestFaultRateLimitedHonoursRetryAfterWithinDeadline(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		deadline   time.Duration
		// wantOK: the call waits as told and succeeds after one retry;
		// otherwise it fails fast with the platform's delay in the error.
		wantOK    bool
		wantDelay time.Duration
	}{
		{name: "wait of 1s fits a 5s deadline", retryAfter: "1", deadline: 5 * time.Second, wantOK: true},
		{name: "wait of an hour is beyond the cap", retryAfter: "3600", deadline: 5 * time.Second, wantDelay: time.Hour},
		{name: "wait of 3s outlasts a 500ms deadline", retryAfter: "3", deadline: 500 * time.Millisecond, wantDelay: 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newFaultEnv(t, reliabilityKey)
			env.em.InjectFault(emulator.Fault{Method: http.MethodPost, Path: generatePath, Status: http.StatusTooManyRequests, RetryAfter: tc.retryAfter, Times: 1})
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()

			var sess *embedkit.Session
			var err error
			within(t, "a rate-limited mint", func() { sess, err = env.client.GenerateSession(ctx, validRequest("ana")) })

			if tc.wantOK {
				if err != nil {
					t.Fatalf("GenerateSession: %v", err)
				}
				if sess.SessionID == "" {
					t.Fatal("no session id")
				}
				if got := env.mintRequests(); got != 2 {
					t.Errorf("%d generate-session requests, want 2 (the 429 and one retry)", got)
				}
				if got := len(env.em.Sessions()); got != 1 {
					t.Errorf("%d sessions minted, want 1", got)
				}
				return
			}
			if !errors.Is(err, embedkit.ErrRateLimited) {
				t.Fatalf("err = %v, want ErrRateLimited", err)
			}
			var apiErr *embedkit.APIError
			if !errors.As(err, &apiErr) || apiErr.RetryAfter != tc.wantDelay {
				t.Fatalf("APIError.RetryAfter = %v, want %v (err %v)", apiErr.RetryAfter, tc.wantDelay, err)
			}
			if !strings.Contains(err.Error(), "retry after") || !strings.Contains(err.Error(), generatePath) {
				t.Errorf("error %q does not name the operation and the delay", err)
			}
			if got := env.mintRequests(); got != 1 {
				t.Errorf("%d generate-session requests, want 1: no retry the context cannot wait for", got)
			}
			if got := len(env.em.Sessions()); got != 0 {
				t.Errorf("%d sessions minted by a refused call", got)
			}
		})
	}
}

func TestFaultHangReturnsAtDeadlineWithoutLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	cases := []struct {
		name string
		call func(ctx context.Context, c *embedkit.Client) error
		path string
	}{
		{name: "generate-session", path: generatePath, call: func(ctx context.Context, c *embedkit.Client) error {
			_, err := c.GenerateSession(ctx, validRequest("ana"))
			return err
		}},
		{name: "revoke, which is retried", path: "/api/v1/embed/session/revoke", call: func(ctx context.Context, c *embedkit.Client) error {
			return c.RevokeSession(ctx, strings.Repeat("ab", 16))
		}},
		{name: "list deployments, which is retried", path: "/api/v1/deployments", call: func(ctx context.Context, c *embedkit.Client) error {
			_, err := c.ListDeployments(ctx, embedkit.ListOptions{})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newFaultEnv(t, reliabilityKey)
			env.em.InjectFault(emulator.Fault{Path: tc.path, Delay: 10 * time.Second})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			var err error
			within(t, "a call to a hanging platform", func() { err = tc.call(ctx, env.client) })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q does not name the path", err)
			}
			if n := len(env.em.Sessions()); n != 0 {
				t.Errorf("%d sessions minted by a call that timed out", n)
			}
			// The emulator's handler notices the client went away: closing
			// the server does not wait out the 10s delay.
			start := time.Now()
			env.close()
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("closing the server took %s: the platform side of the call was left hanging", took)
			}
		})
	}
	goleak.VerifyNone(t, ignore)
}

func TestFaultConnectionResetKeepsThePoolHealthy(t *testing.T) {
	cases := []struct {
		name   string
		path   string
		call   func(ctx context.Context, c *embedkit.Client) error
		wantOK bool // the call is idempotent and its retry succeeds
	}{
		{name: "generate-session is not retried", path: generatePath, call: func(ctx context.Context, c *embedkit.Client) error {
			_, err := c.GenerateSession(ctx, validRequest("ana"))
			return err
		}},
		{name: "list deployments is retried", path: "/api/v1/deployments", wantOK: true, call: func(ctx context.Context, c *embedkit.Client) error {
			_, err := c.ListDeployments(ctx, embedkit.ListOptions{})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newFaultEnv(t, reliabilityKey, embedkit.WithRetry(embedkit.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			// Warm the pool, then drop the connection of the next call.
			if _, err := env.client.ListDeployments(ctx, embedkit.ListOptions{}); err != nil {
				t.Fatal(err)
			}
			env.em.InjectFault(emulator.Fault{Path: tc.path, Reset: true, Times: 1})
			err := tc.call(ctx, env.client)
			switch {
			case tc.wantOK && err != nil:
				t.Fatalf("idempotent call after a reset: %v", err)
			case !tc.wantOK && err == nil:
				t.Fatal("a dropped connection returned no error")
			case !tc.wantOK:
				if !strings.Contains(err.Error(), tc.path) || !strings.HasPrefix(err.Error(), "embedkit: ") {
					t.Errorf("error %q does not name the operation", err)
				}
				if n := len(env.em.Sessions()); n != 0 {
					t.Errorf("%d sessions after a dropped mint", n)
				}
				if n := env.mintRequests(); n != 1 {
					t.Errorf("%d generate-session requests, want 1: a mint that may have reached the platform is not repeated", n)
				}
			}
			// The pool recovers: the next calls succeed on reused connections.
			const more = 20
			for i := range more {
				if _, err := env.client.GenerateSession(ctx, validRequest("bob"+strconv.Itoa(i))); err != nil {
					t.Fatalf("call %d after the reset: %v", i, err)
				}
			}
			// One connection before the reset and one after, give or take a
			// retry's: far fewer than one per call.
			if n := env.newConns.Load(); n > 4 {
				t.Errorf("%d connections opened for %d sequential calls; the pool is not reused", n, more+2)
			}
		})
	}
}

// quotedPrefix returns the body prefix an error quotes after "body
// begins " (or "unexpected body "), unquoted and without the "..." that
// marks a cut.
func quotedPrefix(t *testing.T, msg string) (prefix string, cut bool) {
	t.Helper()
	i := strings.Index(msg, "body begins ")
	skip := len("body begins ")
	if i < 0 {
		i = strings.Index(msg, "unexpected body ")
		skip = len("unexpected body ")
	}
	if i < 0 {
		t.Fatalf("error %q quotes no body", msg)
	}
	q, err := strconv.QuotedPrefix(msg[i+skip:])
	if err != nil {
		t.Fatalf("quoted body in %q: %v", msg, err)
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := strings.CutSuffix(s, "..."); ok {
		return p, true
	}
	return s, false
}

func TestFaultMalformedBodyQuotesABoundedPrefix(t *testing.T) {
	html := "<!doctype html><html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("<p>upstream connect error</p>", 4000) + "</body></html>"
	cases := []struct {
		name   string
		fault  emulator.Fault
		call   func(ctx context.Context, c *embedkit.Client) error
		path   string
		quotes bool // a body is quoted; generate-session answers carry a secret and are withheld
		cut    bool // the body is longer than the bound
	}{
		{name: "HTML page with 200 on a list", fault: emulator.Fault{Status: 200, Body: html}, path: "/api/v1/deployments", quotes: true, cut: true},
		{name: "truncated JSON with 200 on a list", fault: emulator.Fault{Status: 200, Body: `{"data":{"deployments":[{"id":"1","na`}, path: "/api/v1/deployments", quotes: true},
		{name: "JSON of the wrong shape on a list", fault: emulator.Fault{Status: 200, Body: `{"data":{"deployments":"none"}}`}, path: "/api/v1/deployments", quotes: true},
		{name: "proxy HTML with 502 on generate-session", fault: emulator.Fault{Status: 502, Body: html}, path: generatePath, quotes: true, cut: true},
		{name: "HTML with 200 on generate-session", fault: emulator.Fault{Status: 200, Body: html}, path: generatePath},
		{name: "truncated JSON with 200 on generate-session", fault: emulator.Fault{Status: 200, Body: `{"sessionId":"0123`}, path: generatePath},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newFaultEnv(t, reliabilityKey, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
			f := tc.fault
			f.Path, f.Times = tc.path, 1
			env.em.InjectFault(f)
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			var err error
			if tc.path == generatePath {
				_, err = env.client.GenerateSession(ctx, validRequest("ana"))
			} else {
				_, err = env.client.ListDeployments(ctx, embedkit.ListOptions{})
			}
			if err == nil {
				t.Fatal("a malformed answer was accepted")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "embedkit: ") || !strings.Contains(msg, tc.path) {
				t.Errorf("error %q does not name the operation", msg)
			}
			if len(msg) > 2048 {
				t.Errorf("error is %d bytes long; the quote is not bounded", len(msg))
			}
			if !tc.quotes {
				if !errors.Is(err, embedkit.ErrUnexpectedResponse) || !strings.Contains(msg, "withheld") {
					t.Errorf("generate-session error %q: want ErrUnexpectedResponse with the body withheld", msg)
				}
				return
			}
			prefix, cut := quotedPrefix(t, msg)
			if len(prefix) > quoteBound {
				t.Errorf("quoted %d bytes, more than the bound of %d", len(prefix), quoteBound)
			}
			if !strings.HasPrefix(strings.TrimSpace(tc.fault.Body), prefix) {
				t.Errorf("quoted %q is not a prefix of the body", prefix)
			}
			if cut != tc.cut {
				t.Errorf("quote cut = %v, want %v", cut, tc.cut)
			}
		})
	}
}

func TestFaultRotatedKeyIsNamedButNeverPrinted(t *testing.T) {
	const rotated = "ek_rotated_secret_key_4f9a1c"
	// The host's client still holds a key the account no longer has. The
	// Platform's checks look for it, and for its tail, from now on.
	p := embedkittest.NewPlatform(t)
	p.AddSecret("rotated API key", rotated)
	p.AddSecret("tail of the rotated API key", "4f9a1c")
	logs := &lockedBuffer{}
	logger := slog.New(embedkittest.NewLogChecker(t, p, slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	client, err := embedkit.New(p.URL(), rotated, embedkit.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	_, err = client.GenerateSession(ctx, validRequest("ana"))
	if !errors.Is(err, embedkit.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if !strings.Contains(err.Error(), "API key") || !strings.Contains(err.Error(), "rotated") {
		t.Errorf("error %q does not tell the operator to check the API key", err)
	}
	embedkittest.CheckText(t, p, "the error", err.Error())
	if logs.String() == "" {
		t.Error("nothing was logged; the leak check saw no logs")
	}
	mints := 0
	for _, r := range p.Emulator().Requests() {
		if r.Method == http.MethodPost && r.Path == generatePath {
			mints++
		}
	}
	if mints != 1 {
		t.Errorf("%d generate-session requests, want 1: a 401 is never retried", mints)
	}
}

func TestFaultCircuitBreakerFailsFastThenTrials(t *testing.T) {
	const threshold, coolDown = 3, time.Minute
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	env := newFaultEnv(t, reliabilityKey,
		embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}),
		embedkit.WithCircuitBreaker(embedkit.BreakerSettings{FailureThreshold: threshold, CoolDown: coolDown}),
		embedkit.WithClock(clock.Now))
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	mint := func() error {
		_, err := env.client.GenerateSession(ctx, validRequest("ana"))
		return err
	}

	env.em.InjectFault(emulator.Fault{Path: generatePath, Status: http.StatusServiceUnavailable})
	for i := range threshold {
		if err := mint(); !errors.Is(err, embedkit.ErrServer) {
			t.Fatalf("failure %d: err = %v, want the platform's 503", i+1, err)
		}
	}
	if s := env.client.BreakerState(); s != embedkit.BreakerOpen {
		t.Fatalf("after %d consecutive 503s the breaker is %s, want open", threshold, s)
	}

	seen := env.mintRequests()
	for range 5 {
		if err := mint(); !errors.Is(err, embedkit.ErrCircuitOpen) {
			t.Fatalf("while open: err = %v, want ErrCircuitOpen", err)
		}
	}
	if got := env.mintRequests(); got != seen {
		t.Fatalf("the open circuit let %d requests reach the platform", got-seen)
	}

	// Cool-down over, platform still down: the one trial fails and the
	// circuit opens again.
	clock.Advance(coolDown)
	if err := mint(); !errors.Is(err, embedkit.ErrServer) {
		t.Fatalf("trial: err = %v, want the platform's 503", err)
	}
	if got := env.mintRequests(); got != seen+1 {
		t.Fatalf("the trial sent %d requests, want 1", got-seen)
	}
	if err := mint(); !errors.Is(err, embedkit.ErrCircuitOpen) {
		t.Fatalf("after a failed trial: err = %v, want ErrCircuitOpen", err)
	}

	// Cool-down over, platform back: the trial closes the circuit.
	env.em.ClearFaults()
	clock.Advance(coolDown)
	if err := mint(); err != nil {
		t.Fatalf("trial after recovery: %v", err)
	}
	if s := env.client.BreakerState(); s != embedkit.BreakerClosed {
		t.Fatalf("after a successful trial the breaker is %s, want closed", s)
	}
	if err := mint(); err != nil {
		t.Fatalf("after closing: %v", err)
	}
	if got := len(env.em.Sessions()); got != 2 {
		t.Errorf("%d sessions, want the 2 minted after recovery", got)
	}
}

// nested returns a security context nested depth levels deep.
func nested(depth int) map[string]any {
	v := map[string]any{"leaf": true}
	for range depth - 1 {
		v = map[string]any{"k": v}
	}
	return v
}

// manyGroups returns n distinct group names.
func manyGroups(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "group-" + strconv.Itoa(i)
	}
	return out
}

func TestHostileGenerateSessionInputs(t *testing.T) {
	huge := strings.Repeat("x", 10<<20)
	cases := []struct {
		name string
		req  func() *embedkit.GenerateSessionRequest
		// field is named by a validation error sent before the wire;
		// empty means the platform refuses it with a 4xx.
		field      string
		wantStatus int
	}{
		{name: "security context nested 1000 levels", field: "securityContext", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.SecurityContext = nested(1000)
			return r
		}},
		{name: "security context of 10 MB", wantStatus: http.StatusRequestEntityTooLarge, req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.SecurityContext = map[string]any{"blob": huge}
			return r
		}},
		{name: "10,000 groups unknown to the platform", wantStatus: http.StatusBadRequest, req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.Groups = manyGroups(10000)
			return r
		}},
		// A repeated group name is no rule of the platform's; 10,000 blank
		// names are 10,000 problems, of which the message lists 20.
		{name: "10,000 blank group names", field: "groups[19]", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.Groups = make([]string, 10000)
			return r
		}},
		{name: "externalId with a NUL", field: "externalId", req: func() *embedkit.GenerateSessionRequest { return validRequest("ana\x00admin") }},
		{name: "externalId with a newline", field: "externalId", req: func() *embedkit.GenerateSessionRequest { return validRequest("ana\nadmin") }},
		{name: "externalId with an escape sequence", field: "externalId", req: func() *embedkit.GenerateSessionRequest { return validRequest("ana\x1b[2Jadmin") }},
		{name: "externalId with a C1 control", field: "externalId", req: func() *embedkit.GenerateSessionRequest { return validRequest("ana\u0085admin") }},
		{name: "externalId of invalid UTF-8", field: "externalId", req: func() *embedkit.GenerateSessionRequest { return validRequest("ana\xffadmin") }},
		{name: "picture javascript: URL", field: "userProfile.picture", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.UserProfile = &embedkit.EmbedUserProfile{Picture: "javascript:alert(document.cookie)"}
			return r
		}},
		{name: "picture relative URL", field: "userProfile.picture", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.UserProfile = &embedkit.EmbedUserProfile{Picture: "/avatars/ana.png"}
			return r
		}},
		{name: "picture scheme-relative URL", field: "userProfile.picture", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.UserProfile = &embedkit.EmbedUserProfile{Picture: "//evil.example/a.png"}
			return r
		}},
		{name: "picture data: URL", field: "userProfile.picture", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.UserProfile = &embedkit.EmbedUserProfile{Picture: "data:image/svg+xml,<svg onload=alert(1)>"}
			return r
		}},
		{name: "email with a header injection", field: "email", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.Email = "ana@example.com\r\nBcc: all@example.com"
			return r
		}},
		{name: "tenant name with a path", field: "embedTenantName", req: func() *embedkit.GenerateSessionRequest {
			r := validRequest("ana")
			r.EmbedTenantName = "../admin"
			return r
		}},
	}
	env := newFaultEnv(t, reliabilityKey, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, sent := len(env.em.Sessions()), env.mintRequests()
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			_, err := env.client.GenerateSession(ctx, tc.req())
			if err == nil {
				t.Fatal("a hostile request minted a session")
			}
			if len(err.Error()) > 4096 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
			if tc.field != "" {
				var ve *embedkit.ValidationError
				if !errors.As(err, &ve) || !errors.Is(err, embedkit.ErrInvalidRequest) {
					t.Fatalf("err = %v, want a validation error", err)
				}
				if !strings.Contains(err.Error(), tc.field) {
					t.Errorf("error %q does not name %s", err, tc.field)
				}
				if got := env.mintRequests(); got != sent {
					t.Errorf("an invalid request reached the platform")
				}
			} else {
				var apiErr *embedkit.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.wantStatus {
					t.Fatalf("err = %v, want the platform's %d", err, tc.wantStatus)
				}
			}
			if got := len(env.em.Sessions()); got != before {
				t.Errorf("the session count changed from %d to %d", before, got)
			}
		})
	}
}

func TestHostileConfusableExternalIDsAreDistinctUsers(t *testing.T) {
	// Look-alike ids are different strings, so different users: the
	// platform keys users by the exact id, and the kit passes them
	// through unchanged rather than folding them onto someone else.
	ids := []string{
		"admin",
		"аdmin",       // Cyrillic a
		"adm\u0131n",  // dotless i
		"ａdmin",       // fullwidth a
		"admin\u200b", // zero-width space
	}
	p := embedkittest.NewPlatform(t) // the client's logs are checked for the key and the ids
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	for _, id := range ids {
		if _, err := p.Client().GenerateSession(ctx, validRequest(id)); err != nil {
			t.Fatalf("GenerateSession(%q): %v", id, err)
		}
	}
	got := map[string]bool{}
	for _, s := range p.Emulator().Sessions() {
		got[s.ExternalID] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("externalId %q did not reach the platform as is; got %v", id, got)
		}
	}
	if len(got) != len(ids) {
		t.Errorf("%d distinct users on the platform, want %d", len(got), len(ids))
	}
}
