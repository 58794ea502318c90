package ekotel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// setupTracer returns a Tracer on an SDK TracerProvider that samples
// everything, and the recorder of its ended spans.
func setupTracer(t *testing.T) (*Tracer, *tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return NewTracer(WithTracerProvider(tp)), sr, tp
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

const (
	statusKey = attribute.Key("http.response.status_code")
	errorKey  = attribute.Key("error.type")
)

func TestTracerSpans(t *testing.T) {
	unavailable := &embedkit.APIError{
		StatusCode: http.StatusServiceUnavailable, Message: "maintenance",
		RequestID: "req-503", Method: http.MethodPost, Path: "/api/v1/embed/generate-session",
	}
	forbidden := &embedkit.APIError{
		StatusCode: http.StatusForbidden, Message: "embedding is disabled",
		RequestID: "req-403", Method: http.MethodPost, Path: "/api/v1/embed/generate-session",
	}
	noRequestID := &embedkit.APIError{StatusCode: http.StatusBadGateway, Method: http.MethodPost, Path: "/api/v1/embed/session/revoke"}
	invalid := &embedkit.ValidationError{Op: "generate-session", Problems: []embedkit.FieldError{{Field: "deploymentId", Rule: "is required"}}}

	tests := []struct {
		name       string
		op         middleware.Operation
		outcome    middleware.Outcome
		err        error
		wantName   string
		wantStatus codes.Code
		wantDesc   string // the status description, when Error
		wantAttrs  map[attribute.Key]any
		absent     []attribute.Key
	}{
		{
			name: "mint ok", op: middleware.OpMint, outcome: middleware.OutcomeOK,
			wantName: SpanMint, wantStatus: codes.Unset,
			wantAttrs: map[attribute.Key]any{OutcomeKey: "ok"},
			absent:    []attribute.Key{errorKey, statusKey, PlatformRequestIDKey},
		},
		{
			name: "mint unavailable: the platform's status and request id, through wrapping",
			op:   middleware.OpMint, outcome: middleware.OutcomeUnavailable,
			err:      fmt.Errorf("middleware: minting: %w", unavailable),
			wantName: SpanMint, wantStatus: codes.Error,
			wantDesc: "middleware: minting: " + unavailable.Error(),
			wantAttrs: map[attribute.Key]any{
				OutcomeKey: "unavailable", errorKey: "unavailable",
				statusKey: int64(503), PlatformRequestIDKey: "req-503",
			},
		},
		{
			name: "mint denied by the platform: a refusal, not a failure",
			op:   middleware.OpMint, outcome: middleware.OutcomeDenied, err: forbidden,
			wantName: SpanMint, wantStatus: codes.Unset,
			wantAttrs: map[attribute.Key]any{OutcomeKey: "denied", statusKey: int64(403), PlatformRequestIDKey: "req-403"},
			absent:    []attribute.Key{errorKey},
		},
		{
			name: "mint denied by the policy",
			op:   middleware.OpMint, outcome: middleware.OutcomeDenied, err: middleware.ErrDenied,
			wantName: SpanMint, wantStatus: codes.Unset,
			wantAttrs: map[attribute.Key]any{OutcomeKey: "denied"},
			absent:    []attribute.Key{errorKey, statusKey, PlatformRequestIDKey},
		},
		{
			name: "mint invalid: never sent",
			op:   middleware.OpMint, outcome: middleware.OutcomeInvalid, err: invalid,
			wantName: SpanMint, wantStatus: codes.Error, wantDesc: invalid.Error(),
			wantAttrs: map[attribute.Key]any{OutcomeKey: "invalid", errorKey: "invalid"},
			absent:    []attribute.Key{statusKey, PlatformRequestIDKey},
		},
		{
			name: "mint error without a platform answer",
			op:   middleware.OpMint, outcome: middleware.OutcomeError, err: errors.New("embedkit: POST /api/v1/embed/generate-session: connection refused"),
			wantName: SpanMint, wantStatus: codes.Error, wantDesc: "embedkit: POST /api/v1/embed/generate-session: connection refused",
			wantAttrs: map[attribute.Key]any{OutcomeKey: "error", errorKey: "error"},
			absent:    []attribute.Key{statusKey, PlatformRequestIDKey},
		},
		{
			name: "revoke ok",
			op:   middleware.OpRevoke, outcome: middleware.OutcomeOK,
			wantName: SpanRevoke, wantStatus: codes.Unset,
			wantAttrs: map[attribute.Key]any{OutcomeKey: "ok"},
			absent:    []attribute.Key{errorKey},
		},
		{
			name: "revoke queued: a status without a request id",
			op:   middleware.OpRevoke, outcome: middleware.OutcomeQueued, err: noRequestID,
			wantName: SpanRevoke, wantStatus: codes.Error, wantDesc: noRequestID.Error(),
			wantAttrs: map[attribute.Key]any{OutcomeKey: "queued", errorKey: "queued", statusKey: int64(502)},
			absent:    []attribute.Key{PlatformRequestIDKey},
		},
		{
			name: "ok with an error records nothing of the error",
			op:   middleware.OpRevoke, outcome: middleware.OutcomeOK, err: unavailable,
			wantName: SpanRevoke, wantStatus: codes.Unset,
			wantAttrs: map[attribute.Key]any{OutcomeKey: "ok"},
			absent:    []attribute.Key{errorKey, statusKey, PlatformRequestIDKey},
		},
		{
			name: "an operation the kit may add later",
			op:   "export", outcome: middleware.OutcomeError, err: errors.New("embedkit: boom"),
			wantName: "embedkit.export", wantStatus: codes.Error, wantDesc: "embedkit: boom",
			wantAttrs: map[attribute.Key]any{OutcomeKey: "error", errorKey: "error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, sr, _ := setupTracer(t)
			_, span := tr.Start(context.Background(), tt.op)
			span.End(tt.outcome, tt.err)

			spans := sr.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans ended, want 1", len(spans))
			}
			s := spans[0]
			if s.Name() != tt.wantName {
				t.Errorf("name %q, want %q", s.Name(), tt.wantName)
			}
			if s.SpanKind() != trace.SpanKindInternal {
				t.Errorf("kind %v, want internal", s.SpanKind())
			}
			if s.InstrumentationScope().Name != ScopeName {
				t.Errorf("scope %q, want %q", s.InstrumentationScope().Name, ScopeName)
			}
			if got := s.Status(); got.Code != tt.wantStatus || got.Description != tt.wantDesc {
				t.Errorf("status %v %q, want %v %q", got.Code, got.Description, tt.wantStatus, tt.wantDesc)
			}
			if n := len(s.Events()); n != 0 {
				t.Errorf("%d events, want none", n)
			}
			got := attrs(s)
			for k, want := range tt.wantAttrs {
				v, ok := got[k]
				if !ok {
					t.Errorf("attribute %s missing", k)
					continue
				}
				if v.AsInterface() != want {
					t.Errorf("attribute %s = %v, want %v", k, v.AsInterface(), want)
				}
			}
			for _, k := range tt.absent {
				if v, ok := got[k]; ok {
					t.Errorf("attribute %s = %v, want none", k, v.AsInterface())
				}
			}
		})
	}
}

func TestTracerParentAndContext(t *testing.T) {
	tr, sr, tp := setupTracer(t)
	ctx, parent := tp.Tracer("host").Start(context.Background(), "GET /embed/frame/sales")
	spanCtx, span := tr.Start(ctx, middleware.OpMint)
	inner := trace.SpanContextFromContext(spanCtx)
	span.End(middleware.OutcomeOK, nil)
	parent.End()

	spans := sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	mint := spans[0]
	if mint.Name() != SpanMint {
		t.Fatalf("first ended span %q, want %q", mint.Name(), SpanMint)
	}
	if mint.Parent().SpanID() != parent.SpanContext().SpanID() || mint.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Error("the mint span is not a child of the request's span")
	}
	if !inner.Equal(mint.SpanContext()) {
		t.Error("the context Start returns does not carry the mint span")
	}
}

func TestTracerNotRecording(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()), sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	_, span := NewTracer(WithTracerProvider(tp)).Start(context.Background(), middleware.OpRevoke)
	span.End(middleware.OutcomeQueued, &embedkit.APIError{StatusCode: 503, RequestID: "r"})
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d spans recorded by a provider that samples none", n)
	}
}

func TestTracerBoundsWhatItRecords(t *testing.T) {
	tr, sr, _ := setupTracer(t)
	_, span := tr.Start(context.Background(), middleware.OpMint)
	long := &embedkit.APIError{
		StatusCode: 502, Method: "POST", Path: "/api/v1/embed/generate-session",
		Message:   strings.Repeat("é", 400), // two bytes each: a cut could split one
		RequestID: strings.Repeat("r", 300),
	}
	span.End(middleware.OutcomeError, long)
	s := sr.Ended()[0]
	desc := s.Status().Description
	if len(desc) > maxDescription+len("…") || !utf8.ValidString(desc) || !strings.HasSuffix(desc, "…") {
		t.Errorf("description of %d bytes (valid UTF-8: %v), want at most %d, valid, marked as cut", len(desc), utf8.ValidString(desc), maxDescription)
	}
	if id := attrs(s)[PlatformRequestIDKey].AsString(); len(id) > maxRequestID+len("…") {
		t.Errorf("request id of %d bytes, want at most %d", len(id), maxRequestID)
	}
}

// The platform echoes what it was sent in its error answers and request
// ids; the client scrubs them, and no span may hold them.
func TestTracerRecordsNoSecret(t *testing.T) {
	const (
		apiKey    = "ek_test_secret_key_0123456789"
		sessionID = "0123456789abcdef0123456789abcdef"
	)
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-7-"+sessionID)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"error": "session %s of key %s (%s) is unavailable"}`, sessionID, apiKey, r.Header.Get("Authorization"))
	}))
	t.Cleanup(platform.Close)
	client, err := embedkit.New(platform.URL, apiKey, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}

	tr, sr, _ := setupTracer(t)
	ctx, span := tr.Start(context.Background(), middleware.OpRevoke)
	revokeErr := client.RevokeSession(ctx, sessionID)
	var apiErr *embedkit.APIError
	if !errors.As(revokeErr, &apiErr) || apiErr.RequestID == "" {
		t.Fatalf("RevokeSession: %v, want an *embedkit.APIError with a request id", revokeErr)
	}
	span.End(middleware.OutcomeQueued, revokeErr)

	spans := sr.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if got := attrs(s)[PlatformRequestIDKey].AsString(); !strings.HasPrefix(got, "req-7-") {
		t.Errorf("request id %q, want the platform's, scrubbed", got)
	}
	assertNoSecret(t, spans, apiKey, sessionID)
}

// assertNoSecret fails when any name, attribute, event, link or status of
// spans contains one of secrets.
func assertNoSecret(t *testing.T, spans []sdktrace.ReadOnlySpan, secrets ...string) {
	t.Helper()
	for _, s := range spans {
		texts := []string{s.Name(), s.Status().Description}
		for _, kv := range s.Attributes() {
			texts = append(texts, string(kv.Key), kv.Value.String())
		}
		for _, e := range s.Events() {
			texts = append(texts, e.Name)
			for _, kv := range e.Attributes {
				texts = append(texts, string(kv.Key), kv.Value.String())
			}
		}
		for _, l := range s.Links() {
			for _, kv := range l.Attributes {
				texts = append(texts, string(kv.Key), kv.Value.String())
			}
		}
		for _, kv := range s.Resource().Attributes() {
			texts = append(texts, kv.Value.String())
		}
		for _, text := range texts {
			for i, secret := range secrets {
				if strings.Contains(text, secret) {
					// Not printed: the secret would reach the test log.
					t.Errorf("span %q records secret number %d", s.Name(), i)
				}
			}
		}
	}
}
