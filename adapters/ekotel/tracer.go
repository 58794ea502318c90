package ekotel

import (
	"context"
	"errors"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// The span names of Tracer, one per middleware.Operation.
const (
	// SpanMint is the name of the span around one mint (middleware.OpMint).
	SpanMint = "embedkit.mint"
	// SpanRevoke is the name of the span around one revoke attempt of one
	// session id (middleware.OpRevoke).
	SpanRevoke = "embedkit.revoke"
)

// PlatformRequestIDKey is the span attribute that carries the platform's
// request id (its X-Request-Id answer header) when a call failed with an
// *embedkit.APIError that had one: the id to quote to the platform's
// support.
const PlatformRequestIDKey = attribute.Key("embedkit.platform.request_id")

// Bounds on what a span records of an error, so that an unusual platform
// answer cannot make a span large.
const (
	maxRequestID   = 128
	maxDescription = 256
)

// Tracer is a middleware.Tracer on the OpenTelemetry trace API. Create one
// with NewTracer and set it as middleware.Config.Tracer. It is safe for
// concurrent use.
//
// Each mint and each revoke attempt gets an internal span (SpanMint,
// SpanRevoke), a child of the span in the request's context if any. Its
// End records:
//
//   - OutcomeKey, always;
//   - for a failure the platform answered (an *embedkit.APIError in the
//     error's chain): http.response.status_code and, when the platform
//     sent one, PlatformRequestIDKey;
//   - for the outcomes "invalid", "unavailable", "error" and "queued"
//     (and any outcome the kit may add that comes with an error): status
//     Error, error.type set to the outcome (the value OutcomeKey has on
//     the metrics, so the two join), and the error's message, cut to 256
//     bytes, as the status description.
//
// "ok", "denied" (the Policy or the platform refused: a normal answer, not
// a fault) and "expired" leave the status Unset, as the semantic
// conventions ask of operations that did not fail, and their error's
// message is not recorded. No exception event is added: the conventions no
// longer recommend one, and the description already holds the message.
//
// What a span never holds: an API key, an embed token or a session id.
// The kit's errors are built without them (embedkit scrubs them from the
// platform's answers, request ids included; see middleware.Span), so the
// message in the description is safe to export; the request id and status
// code are read from the typed error, not parsed from text. Validation
// messages name fields and rules, never values.
type Tracer struct {
	tracer trace.Tracer
}

var _ middleware.Tracer = (*Tracer)(nil)

// NewTracer returns a Tracer whose spans come from a tracer named
// ScopeName of the TracerProvider given by WithTracerProvider, by default
// the global one.
func NewTracer(opts ...Option) *Tracer {
	c := newConfig(opts)
	return &Tracer{tracer: c.tracerProvider.Tracer(ScopeName,
		trace.WithInstrumentationVersion(scopeVersion),
		trace.WithSchemaURL(semconv.SchemaURL))}
}

// spanNames maps each known Operation to its span name without building
// a string per call.
var spanNames = map[middleware.Operation]string{
	middleware.OpMint:   SpanMint,
	middleware.OpRevoke: SpanRevoke,
}

// Start starts the span of op under ctx and returns the context the kit
// runs op under: the platform client's requests see the span there, so a
// tracing transport nests each HTTP attempt under it.
func (t *Tracer) Start(ctx context.Context, op middleware.Operation) (context.Context, middleware.Span) {
	name, ok := spanNames[op]
	if !ok {
		name = "embedkit." + string(op)
	}
	ctx, s := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	return ctx, span{s}
}

// span adapts a trace.Span to middleware.Span.
type span struct {
	s trace.Span
}

// End records outcome and what err may tell (see Tracer) and ends the
// span.
func (sp span) End(outcome middleware.Outcome, err error) {
	defer sp.s.End()
	if !sp.s.IsRecording() {
		return
	}
	sp.s.SetAttributes(OutcomeKey.String(string(outcome)))
	if outcome == middleware.OutcomeOK || err == nil {
		return
	}
	var apiErr *embedkit.APIError
	if errors.As(err, &apiErr) && apiErr != nil {
		if apiErr.StatusCode != 0 {
			sp.s.SetAttributes(semconv.HTTPResponseStatusCodeKey.Int(apiErr.StatusCode))
		}
		if apiErr.RequestID != "" {
			sp.s.SetAttributes(PlatformRequestIDKey.String(truncate(apiErr.RequestID, maxRequestID)))
		}
	}
	if !failed(outcome) {
		return
	}
	sp.s.SetAttributes(semconv.ErrorTypeKey.String(string(outcome)))
	sp.s.SetStatus(codes.Error, truncate(err.Error(), maxDescription))
}

// failed reports whether outcome, coming with an error, is a failure of
// the operation (status Error) rather than a normal refusal or a drop.
func failed(outcome middleware.Outcome) bool {
	switch outcome {
	case middleware.OutcomeOK, middleware.OutcomeDenied, middleware.OutcomeExpired:
		return false
	}
	return true
}

// truncate cuts s longer than n bytes to its first n bytes or fewer,
// without splitting a UTF-8 sequence, and marks the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
