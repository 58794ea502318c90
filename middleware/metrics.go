package middleware

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// Outcome is the result of a mint or a revoke, as reported to Metrics and
// logs.
type Outcome string

// The outcomes.
const (
	// OutcomeOK: the platform call succeeded.
	OutcomeOK Outcome = "ok"
	// OutcomeDenied: the Policy or the platform refused (no retry helps).
	OutcomeDenied Outcome = "denied"
	// OutcomeInvalid: the request failed validation and was not sent.
	OutcomeInvalid Outcome = "invalid"
	// OutcomeUnavailable: the platform or the store is down or limiting.
	OutcomeUnavailable Outcome = "unavailable"
	// OutcomeError: any other failure.
	OutcomeError Outcome = "error"
	// OutcomeQueued: a revoke failed and was queued for retry.
	OutcomeQueued Outcome = "queued"
	// OutcomeExpired: a queued revoke was dropped because nothing minted
	// from its id can still be alive.
	OutcomeExpired Outcome = "expired"
	// OutcomeLimited: a mint was refused by the viewer's mint limit
	// (Config.MintLimit) and not sent.
	OutcomeLimited Outcome = "limited"
)

// Known reports whether o is one of the Outcome constants above.
func (o Outcome) Known() bool {
	switch o {
	case OutcomeOK, OutcomeDenied, OutcomeInvalid, OutcomeUnavailable, OutcomeError, OutcomeQueued, OutcomeExpired, OutcomeLimited:
		return true
	}
	return false
}

// OutcomesOf returns the outcomes the kit reports for op (to Metrics.Mint
// for OpMint, Metrics.Revoke for OpRevoke), and, of those, the ones
// reported with the latency of a platform call: every mint outcome but
// "limited" may come with or without a call (a platform 403 is "denied"
// after a call, a Policy refusal before), a "limited" mint is refused by
// the kit's per-viewer limit before any call, an "invalid" revoke is
// never sent and an "expired" one is dropped without a call. Metrics adapters create their
// series from these lists ahead of time, so that dashboards and alerts see
// every series from the start. Each call returns new slices.
func OutcomesOf(op Operation) (all, timed []Outcome) {
	switch op {
	case OpMint:
		timed = []Outcome{OutcomeOK, OutcomeDenied, OutcomeInvalid, OutcomeUnavailable, OutcomeError}
		return append(slices.Clone(timed), OutcomeLimited), timed
	case OpRevoke:
		return []Outcome{OutcomeOK, OutcomeInvalid, OutcomeQueued, OutcomeExpired}, []Outcome{OutcomeOK, OutcomeQueued}
	}
	return nil, nil
}

// DurationBuckets returns the histogram bucket boundaries, in seconds,
// that the metrics adapters use for the durations of platform calls: those
// the OpenTelemetry semantic conventions give
// http.client.request.duration, plus 30 s, the platform client's default
// overall timeout, since one call includes its retries and their backoff.
// Each call returns a new slice.
func DurationBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30}
}

// Metrics receives counts and latencies. Implementations must be safe for
// concurrent use and return quickly; the kit calls them inline.
type Metrics interface {
	// Mint reports one generate-session attempt, after the Policy accepted
	// the viewer, with the platform call's latency (zero when the request
	// was not sent).
	Mint(outcome Outcome, latency time.Duration)
	// Revoke reports one revoke attempt of one session id.
	Revoke(outcome Outcome, latency time.Duration)
	// RevokeQueueDepth reports how many revokes wait for a retry, after
	// each logout that queued some and each retry pass.
	RevokeQueueDepth(n int)
}

// NopMetrics discards everything; it is the default Metrics.
type NopMetrics struct{}

// Mint does nothing.
func (NopMetrics) Mint(Outcome, time.Duration) {}

// Revoke does nothing.
func (NopMetrics) Revoke(Outcome, time.Duration) {}

// RevokeQueueDepth does nothing.
func (NopMetrics) RevokeQueueDepth(int) {}

// Operation names what a Span traces.
type Operation string

// The traced operations.
const (
	// OpMint is one mint: policy, validation, the generate-session call
	// (with its retries) and the store.
	OpMint Operation = "mint"
	// OpRevoke is one revoke attempt of one session id (with the client's
	// own retries), at logout or from the retry queue.
	OpRevoke Operation = "revoke"
)

// Tracer starts a span around each mint and each revoke attempt;
// adapters/ekotel implements it on OpenTelemetry. The kit hands the span's
// context to the platform client, so a transport that traces requests
// (otelhttp, through embedkit.WithHTTPClient) nests every HTTP attempt,
// retries included, under the span and propagates the trace to the
// platform. Implementations must be safe for concurrent use.
type Tracer interface {
	// Start begins a span for op and returns the context the work runs
	// under.
	Start(ctx context.Context, op Operation) (context.Context, Span)
}

// Span is one traced operation.
type Span interface {
	// End ends the span with the operation's outcome and, for a failure,
	// its error: an *embedkit.APIError (errors.As) carries the platform's
	// request id when it answered one. The kit's errors never hold an API
	// key, token or session id, so an implementation may record err's
	// message.
	End(outcome Outcome, err error)
}

// nopTracer traces nothing; it is the default Tracer.
type nopTracer struct{}

func (nopTracer) Start(ctx context.Context, _ Operation) (context.Context, Span) {
	return ctx, nopSpan{}
}

type nopSpan struct{}

func (nopSpan) End(Outcome, error) {}

// LogoutStep names the part of a logout that could not be recorded on the
// server, as reported to LogoutMetrics and logs.
type LogoutStep string

// The logout steps.
const (
	// LogoutStepEmbeds: the embed session ids minted for the host session
	// could not be read from the Store (or the viewer could not be read,
	// or failed revokes could not be queued), so some were neither
	// revoked nor queued. When the Store did not answer, the Kit keeps
	// the logout and Run revokes them once it answers; otherwise, or if
	// the process ends first, they live until they expire on the
	// platform (at most 24 hours).
	LogoutStepEmbeds LogoutStep = "embeds"
	// LogoutStepLogin: the ended login could not be recorded in the list
	// of ended logins (middleware.EndedLogins). The browser's cookie
	// was expired, but a copy taken before logout still signs in until
	// it expires, unless an EndedLoginKeeper (the Kit) keeps the ended
	// login and writes it once the list answers.
	LogoutStepLogin LogoutStep = "login"
)

// LogoutMetrics is an optional extension of Metrics, found by type
// assertion: a Metrics that implements it counts logouts that ended the
// session in the browser but could not record a step on the server. The
// Prometheus and OpenTelemetry adapters implement it.
type LogoutMetrics interface {
	// LogoutIncomplete reports one logout whose step could not be
	// recorded.
	LogoutIncomplete(step LogoutStep)
}

// ReportLogoutIncomplete logs, at error level, that step of a logout
// could not be recorded, with err's message, and counts it when m
// implements LogoutMetrics. logger and m may be nil. The kit's Logout
// calls it for LogoutStepEmbeds; gorillasession.Identity.Clear for
// LogoutStepLogin. err must hold no secret (the kit's and the stores'
// errors hold none).
func ReportLogoutIncomplete(ctx context.Context, logger *slog.Logger, m Metrics, step LogoutStep, err error) {
	if logger != nil {
		logger.LogAttrs(ctx, slog.LevelError, "embedkit: logout ended the session in the browser but could not record it on the server",
			slog.String("step", string(step)), slog.String("error", errString(err)))
	}
	if lm, ok := m.(LogoutMetrics); ok {
		lm.LogoutIncomplete(step)
	}
}

// errString is err's message, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
