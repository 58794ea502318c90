package ekotel

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// emulatorAPIKey is the emulator's demo fixture's unscoped admin key.
const emulatorAPIKey = "ek_dev_only_admin_all"

const (
	generatePath = "/api/v1/embed/generate-session"
	revokePath   = "/api/v1/embed/session/revoke"
)

// received is one request the platform received.
type received struct {
	path        string
	traceparent string
}

// tracedPlatform is the emulator behind a handler that records each
// request's traceparent and answers an X-Request-Id, as the platform does.
type tracedPlatform struct {
	*emulator.Server
	srv *httptest.Server

	mu   sync.Mutex
	reqs []received
}

func startPlatform(t *testing.T) *tracedPlatform {
	t.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &tracedPlatform{Server: em}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs = append(p.reqs, received{path: r.URL.Path, traceparent: r.Header.Get("traceparent")})
		n := len(p.reqs)
		p.mu.Unlock()
		w.Header().Set("X-Request-Id", fmt.Sprintf("req-%d", n))
		em.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// requests returns the requests received for path.
func (p *tracedPlatform) requests(path string) []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []received
	for _, r := range p.reqs {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

// observedKit is a Kit on the real client and the emulator, with this
// package's Metrics and Tracer, and the otelhttp transport in the client.
type observedKit struct {
	*middleware.Kit
	platform *tracedPlatform
	spans    *tracetest.SpanRecorder
	reader   *sdkmetric.ManualReader
}

func setupKit(t *testing.T, retry embedkit.RetryPolicy) *observedKit {
	t.Helper()
	platform := startPlatform(t)
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })

	// No otelhttp.WithTracerProvider: the transport takes the provider of
	// the span in the request's context, the Tracer's, as the package doc
	// says. The propagator is passed rather than set globally, so tests
	// leave the globals alone.
	transport := otelhttp.NewTransport(http.DefaultTransport,
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithMeterProvider(mp))
	client, err := embedkit.New(platform.srv.URL, emulatorAPIKey,
		embedkit.WithHTTPClient(&http.Client{Transport: transport}),
		embedkit.WithRetry(retry))
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := NewMetrics(WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	kit, err := middleware.New(middleware.Config{
		Platform: client,
		Identity: middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			user := r.Header.Get("X-User")
			if user == "" {
				return nil, middleware.ErrNoViewer
			}
			return &middleware.Viewer{Subject: user, SessionKey: "login-of-" + user, Groups: []string{"sales"}}, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platform.srv.URL,
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Metrics:     metrics,
		Tracer:      NewTracer(WithTracerProvider(tp)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &observedKit{Kit: kit, platform: platform, spans: sr, reader: reader}
}

// load serves one frame load for user and returns the minted session id.
func (k *observedKit) load(t *testing.T, user string) string {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/embed/frame/sales", nil)
	r.Header.Set("X-User", user)
	w := httptest.NewRecorder()
	k.FrameHandler().ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("frame load: status %d, want 303", w.Code)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	id := loc.Query().Get("session")
	if id == "" {
		t.Fatal("the frame redirect carries no session id")
	}
	return id
}

// logout serves the kit's logout for user.
func (k *observedKit) logout(t *testing.T, user string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/logout", nil)
	r.Header.Set("X-User", user)
	w := httptest.NewRecorder()
	k.Logout(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })).ServeHTTP(w, r)
	if w.Code != http.StatusNoContent {
		t.Fatalf("logout: status %d, want 204", w.Code)
	}
}

// named returns the ended spans called name.
func (k *observedKit) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range k.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// httpChildren returns the HTTP client spans under parent for path.
func (k *observedKit) httpChildren(t *testing.T, parent sdktrace.ReadOnlySpan, path string) []sdktrace.ReadOnlySpan {
	t.Helper()
	var out []sdktrace.ReadOnlySpan
	for _, s := range k.spans.Ended() {
		if s.SpanKind() != trace.SpanKindClient {
			continue
		}
		a := attrs(s)
		if !strings.HasSuffix(a["url.full"].AsString(), path) {
			continue
		}
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
			t.Errorf("HTTP span %q for %s is not a child of %q", s.Name(), path, parent.Name())
			continue
		}
		if m := a["http.request.method"].AsString(); m != http.MethodPost {
			t.Errorf("HTTP span method %q, want POST", m)
		}
		out = append(out, s)
	}
	return out
}

// checkPropagated checks that the platform received, for each HTTP span,
// a traceparent naming its trace and the span itself as the parent.
func checkPropagated(t *testing.T, got []received, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	if len(got) != len(spans) {
		t.Fatalf("the platform received %d requests, want one per HTTP span (%d)", len(got), len(spans))
	}
	for i, r := range got {
		sc := spans[i].SpanContext()
		want := fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
		if r.traceparent != want {
			t.Errorf("request %d: traceparent %q, want %q", i+1, r.traceparent, want)
		}
	}
}

func TestEndToEndMint(t *testing.T) {
	k := setupKit(t, embedkit.RetryPolicy{MaxAttempts: 1})
	sessionID := k.load(t, "ana")

	mints := k.named(SpanMint)
	if len(mints) != 1 {
		t.Fatalf("%d %s spans, want 1", len(mints), SpanMint)
	}
	mint := mints[0]
	if a := attrs(mint); a[OutcomeKey].AsString() != "ok" {
		t.Errorf("mint outcome %q, want ok", a[OutcomeKey].AsString())
	}
	if mint.Status().Code != codes.Unset {
		t.Errorf("mint status %v, want Unset", mint.Status().Code)
	}
	calls := k.httpChildren(t, mint, generatePath)
	if len(calls) != 1 {
		t.Fatalf("%d HTTP spans for generate-session under the mint span, want 1", len(calls))
	}
	if code := attrs(calls[0])["http.response.status_code"].AsInt64(); code != http.StatusOK {
		t.Errorf("HTTP span status code %d, want 200", code)
	}
	checkPropagated(t, k.platform.requests(generatePath), calls)

	got := collect(t, k.reader)
	checkCounts(t, got, MetricMints, map[string]int64{"ok": 1})
	if h := histograms(t, got[MetricMintDuration])["ok"]; h.count != 1 || h.sum <= 0 {
		t.Errorf("mint duration count %d sum %g, want one positive duration", h.count, h.sum)
	}
	assertNoSecret(t, k.spans.Ended(), emulatorAPIKey, sessionID)
}

func TestEndToEndRevoke(t *testing.T) {
	// No backoff, so the retried attempt is not held up; two attempts.
	retry := embedkit.RetryPolicy{MaxAttempts: 2, Backoff: func(int, time.Duration, time.Duration) time.Duration { return 0 }}
	tests := []struct {
		name       string
		fault      func(sessionID string) emulator.Fault
		outcome    string
		status     codes.Code
		wantCode   int64  // http.response.status_code on the revoke span; 0: none
		wantReqID  string // PlatformRequestIDKey on the revoke span; "": none
		queued     int64  // the queue length gauge after logout
		wantStates string // the emulator's state of the session
	}{
		{
			name: "a retried revoke is one span over two attempts",
			fault: func(string) emulator.Fault {
				return emulator.Fault{Method: http.MethodPost, Path: revokePath, Status: http.StatusServiceUnavailable, Times: 1}
			},
			outcome: "ok", status: codes.Unset, wantStates: "revoked",
		},
		{
			name: "a failed revoke is queued, with the platform's request id and no secret",
			fault: func(sessionID string) emulator.Fault {
				// A platform that echoes the session id and the API key in
				// its error: the client scrubs both before the kit sees it.
				return emulator.Fault{
					Method: http.MethodPost, Path: revokePath, Status: http.StatusServiceUnavailable,
					Body: fmt.Sprintf(`{"error": "cannot revoke %s for key %s"}`, sessionID, emulatorAPIKey),
				}
			},
			outcome: "queued", status: codes.Error, wantCode: 503, wantReqID: "req-3", queued: 1, wantStates: "unexchanged",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := setupKit(t, retry)
			sessionID := k.load(t, "ana") // request 1: generate-session
			k.platform.InjectFault(tt.fault(sessionID))
			k.logout(t, "ana") // requests 2 and 3: two revoke attempts

			revokes := k.named(SpanRevoke)
			if len(revokes) != 1 {
				t.Fatalf("%d %s spans, want 1", len(revokes), SpanRevoke)
			}
			rs := revokes[0]
			a := attrs(rs)
			if a[OutcomeKey].AsString() != tt.outcome || rs.Status().Code != tt.status {
				t.Errorf("revoke span outcome %q status %v, want %q %v", a[OutcomeKey].AsString(), rs.Status().Code, tt.outcome, tt.status)
			}
			if got := a[statusKey].AsInt64(); got != tt.wantCode {
				t.Errorf("revoke span %s = %d, want %d", statusKey, got, tt.wantCode)
			}
			if got := a[PlatformRequestIDKey].AsString(); got != tt.wantReqID {
				t.Errorf("revoke span %s = %q, want %q", PlatformRequestIDKey, got, tt.wantReqID)
			}
			calls := k.httpChildren(t, rs, revokePath)
			if len(calls) != 2 {
				t.Fatalf("%d HTTP spans for revoke under the revoke span, want 2 (one per attempt)", len(calls))
			}
			checkPropagated(t, k.platform.requests(revokePath), calls)

			got := collect(t, k.reader)
			checkCounts(t, got, MetricRevokes, map[string]int64{tt.outcome: 1})
			if g := queueLength(t, got); g != tt.queued {
				t.Errorf("queue length %d, want %d", g, tt.queued)
			}
			if state := k.state(t, sessionID); state != tt.wantStates {
				t.Errorf("the emulator's session is %q, want %q", state, tt.wantStates)
			}
			assertNoSecret(t, k.spans.Ended(), emulatorAPIKey, sessionID)
		})
	}
}

// queueLength returns the last reported queue length, 0 when none was.
func queueLength(t *testing.T, got map[string]metricdata.Metrics) int64 {
	t.Helper()
	md, ok := got[MetricRevokeQueueLength]
	if !ok {
		return 0
	}
	g, ok := md.Data.(metricdata.Gauge[int64])
	if !ok || len(g.DataPoints) != 1 {
		t.Fatalf("%s: %T with unexpected data points", MetricRevokeQueueLength, md.Data)
	}
	return g.DataPoints[0].Value
}

// state returns the emulator's state of a session id.
func (k *observedKit) state(t *testing.T, sessionID string) string {
	t.Helper()
	for _, s := range k.platform.Sessions() {
		if s.SessionID == sessionID {
			return s.State
		}
	}
	t.Fatal("the emulator does not know the minted session")
	return ""
}
