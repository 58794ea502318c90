package middleware

import "time"

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
)

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
