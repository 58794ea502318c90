package ekotel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/embedkit/embedkit/middleware"
)

// The instruments of Metrics, named and measured as the OpenTelemetry
// semantic conventions ask: dot-separated lower-case names under the
// "embedkit" namespace, durations in seconds ("s"), counts in annotated
// units ("{mint}"), counters pluralized and no "_total" suffix (exporters
// add their own, as Prometheus does).
const (
	// MetricMints counts generate-session attempts the Policy accepted,
	// by OutcomeKey. Int64Counter, unit "{mint}".
	MetricMints = "embedkit.mints"
	// MetricMintDuration is the latency of the generate-session call,
	// retries included, by OutcomeKey. Float64Histogram, unit "s".
	MetricMintDuration = "embedkit.mint.duration"
	// MetricRevokes counts revoke attempts of single session ids, by
	// OutcomeKey; "expired" counts queued ids dropped without a call.
	// Int64Counter, unit "{revoke}".
	MetricRevokes = "embedkit.revokes"
	// MetricRevokeDuration is the latency of the revoke call, retries
	// included, by OutcomeKey. Float64Histogram, unit "s".
	MetricRevokeDuration = "embedkit.revoke.duration"
	// MetricRevokeQueueLength is the number of session ids waiting in the
	// revoke retry queue, as last reported. Int64Gauge, unit "{session}".
	MetricRevokeQueueLength = "embedkit.revoke.queue.length"
	// MetricLogoutsIncomplete counts logouts that ended the session in the
	// browser but could not record a step on the server, by StepKey.
	// Int64Counter, unit "{logout}".
	MetricLogoutsIncomplete = "embedkit.logouts.incomplete"
)

// StepKey is the attribute that carries a middleware.LogoutStep
// ("embeds", "login") on MetricLogoutsIncomplete.
const StepKey = attribute.Key("embedkit.logout.step")

// OutcomeKey is the attribute that carries a middleware.Outcome ("ok",
// "denied", "invalid", "unavailable", "error", "queued", "expired",
// "limited") on the counters, the histograms and the spans.
const OutcomeKey = attribute.Key("embedkit.outcome")

// Metrics is a middleware.Metrics on the OpenTelemetry metrics API. Create
// one with NewMetrics and set it as middleware.Config.Metrics. It is safe
// for concurrent use.
//
// The kit calls it inline, on the request's path, so every method is a
// map lookup and one or two measurements: the attribute set of each
// outcome is built once, by NewMetrics. Its methods get no context, so
// the measurements carry no exemplar linking them to a trace; the spans
// of Tracer carry the same outcome attribute instead.
type Metrics struct {
	mint, revoke operation
	revokeQueue  metric.Int64Gauge
	logouts      metric.Int64Counter
	byOutcome    map[middleware.Outcome]measurement // read-only after NewMetrics
}

// operation is the counter and the histogram of one kind of attempt.
type operation struct {
	count    metric.Int64Counter
	duration metric.Float64Histogram
}

// report counts one attempt with ms's attributes and, when the platform
// was called (latency > 0), records its latency.
func (op operation) report(ms measurement, latency time.Duration) {
	op.count.Add(context.Background(), 1, ms.add...)
	if latency > 0 {
		op.duration.Record(context.Background(), latency.Seconds(), ms.record...)
	}
}

var (
	_ middleware.Metrics       = (*Metrics)(nil)
	_ middleware.LogoutMetrics = (*Metrics)(nil)
)

// measurement holds the ready-made options of one outcome.
type measurement struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

func newMeasurement(o middleware.Outcome) measurement {
	opt := metric.WithAttributeSet(attribute.NewSet(OutcomeKey.String(string(o))))
	return measurement{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
}

// NewMetrics creates the instruments (see MetricMints and the other
// Metric constants) on a meter named ScopeName of the MeterProvider given
// by WithMeterProvider, by default the global one. It returns an error,
// naming every instrument that failed, if the provider refused any.
func NewMetrics(opts ...Option) (*Metrics, error) {
	c := newConfig(opts)
	meter := c.meterProvider.Meter(ScopeName, metric.WithInstrumentationVersion(scopeVersion))
	m := &Metrics{byOutcome: make(map[middleware.Outcome]measurement)}
	var errs []error
	check := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("ekotel: creating instrument %s: %w", name, err))
		}
	}
	var err error
	m.mint.count, err = meter.Int64Counter(MetricMints,
		metric.WithUnit("{mint}"),
		metric.WithDescription("Generate-session attempts after the policy accepted the viewer, by outcome."))
	check(MetricMints, err)
	m.mint.duration, err = meter.Float64Histogram(MetricMintDuration,
		metric.WithUnit("s"),
		metric.WithDescription("Duration of the platform's generate-session call, retries included; recorded only when the call was made."),
		metric.WithExplicitBucketBoundaries(middleware.DurationBuckets()...))
	check(MetricMintDuration, err)
	m.revoke.count, err = meter.Int64Counter(MetricRevokes,
		metric.WithUnit("{revoke}"),
		metric.WithDescription("Revoke attempts of single session ids, by outcome."))
	check(MetricRevokes, err)
	m.revoke.duration, err = meter.Float64Histogram(MetricRevokeDuration,
		metric.WithUnit("s"),
		metric.WithDescription("Duration of the platform's revoke call, retries included; recorded only when the call was made."),
		metric.WithExplicitBucketBoundaries(middleware.DurationBuckets()...))
	check(MetricRevokeDuration, err)
	// A synchronous gauge: the kit reports the queue's length as an
	// absolute number at the moments it knows it. An UpDownCounter would
	// need deltas from a remembered previous value, and would be summed
	// across instances sharing one Redis queue, counting each id once per
	// instance; an observable gauge would need a callback and the same
	// remembered value. The gauge keeps the last value until the next
	// report.
	m.revokeQueue, err = meter.Int64Gauge(MetricRevokeQueueLength,
		metric.WithUnit("{session}"),
		metric.WithDescription("Session ids waiting in the revoke retry queue, as last reported."))
	check(MetricRevokeQueueLength, err)
	m.logouts, err = meter.Int64Counter(MetricLogoutsIncomplete,
		metric.WithUnit("{logout}"),
		metric.WithDescription("Logouts that ended the session in the browser but could not record a step on the server, by step."))
	check(MetricLogoutsIncomplete, err)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, op := range []middleware.Operation{middleware.OpMint, middleware.OpRevoke} {
		all, _ := middleware.OutcomesOf(op)
		for _, o := range all {
			m.byOutcome[o] = newMeasurement(o)
		}
	}
	return m, nil
}

// of returns the options of outcome o. The kit only reports the
// middleware.Outcome constants; any other value is measured as given, at
// the cost of building its attribute set on each call.
func (m *Metrics) of(o middleware.Outcome) measurement {
	if ms, ok := m.byOutcome[o]; ok {
		return ms
	}
	return newMeasurement(o)
}

// Mint counts one mint under MetricMints and, when the platform was
// called (latency > 0), records its latency under MetricMintDuration. The
// kit reports zero latency for mints the Policy refused or validation
// stopped before anything was sent; those have no duration to record and
// would only pile up in the lowest bucket.
func (m *Metrics) Mint(outcome middleware.Outcome, latency time.Duration) {
	m.mint.report(m.of(outcome), latency)
}

// Revoke counts one revoke attempt under MetricRevokes and, when the
// platform was called (latency > 0), records its latency under
// MetricRevokeDuration. Expired ids are counted without a duration: no
// call was made.
func (m *Metrics) Revoke(outcome middleware.Outcome, latency time.Duration) {
	m.revoke.report(m.of(outcome), latency)
}

// RevokeQueueDepth records n under MetricRevokeQueueLength. Instances
// that share one queue (a Redis store) all report its full length:
// aggregate the gauge across instances with max, not sum.
func (m *Metrics) RevokeQueueDepth(n int) {
	m.revokeQueue.Record(context.Background(), int64(n))
}

// LogoutIncomplete counts one logout under MetricLogoutsIncomplete whose
// step could not be recorded on the server, for middleware.LogoutMetrics.
func (m *Metrics) LogoutIncomplete(step middleware.LogoutStep) {
	m.logouts.Add(context.Background(), 1, metric.WithAttributes(StepKey.String(string(step))))
}
