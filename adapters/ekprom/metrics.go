package ekprom

import (
	"slices"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/embedkit/embedkit/middleware"
)

// OutcomeLabel is the one variable label of the counters and histograms:
// the middleware.Outcome of the mint or revoke ("ok", "denied",
// "invalid", "unavailable", "error", "queued", "expired", "limited"), or
// OutcomeOther.
const OutcomeLabel = "outcome"

// OutcomeOther is the OutcomeLabel value of any outcome that is not one of
// the middleware.Outcome constants. The kit reports only those; the
// mapping keeps the number of series bounded whatever a future caller
// passes.
const OutcomeOther = "other"

// outcomeLabel returns the OutcomeLabel value of o: o itself when it is
// one of the middleware.Outcome constants, else OutcomeOther.
func outcomeLabel(o middleware.Outcome) string {
	if o.Known() {
		return string(o)
	}
	return OutcomeOther
}

// Metrics is a middleware.Metrics that keeps its counts as Prometheus
// collectors. It is itself a prometheus.Collector: create one with New,
// register it on a registry, and set it as middleware.Config.Metrics.
// The metrics are listed in the package documentation.
//
// A Metrics is safe for concurrent use. The kit calls it inline, on the
// request's path, so for the series New creates ahead a report is a
// lookup in a map built by New and an atomic add or two, without
// allocating or waiting for a scrape; other outcomes go through the
// client's label lookup first.
//
// One Metrics serves one Kit, or several whose counts should be summed.
// Registering it on two registries exports the same counts twice.
// Registering it twice on one registry, or two of them with the same
// names, fails with a prometheus.AlreadyRegisteredError, unless
// WithNamespace or WithConstLabels set them apart.
type Metrics struct {
	mint, revoke operation
	queueDepth   prom.Gauge
	logouts      *prom.CounterVec
}

var (
	_ middleware.Metrics       = (*Metrics)(nil)
	_ middleware.LogoutMetrics = (*Metrics)(nil)
	_ prom.Collector           = (*Metrics)(nil)
)

// StepLabel is the label of logouts_incomplete_total: the
// middleware.LogoutStep that could not be recorded ("embeds", "login"), or
// OutcomeOther.
const StepLabel = "step"

// logoutSteps are the steps whose series New creates at zero.
var logoutSteps = []middleware.LogoutStep{middleware.LogoutStepEmbeds, middleware.LogoutStepLogin}

// operation is the counter and the histogram of one kind of attempt.
type operation struct {
	total    *prom.CounterVec
	duration *prom.HistogramVec
	ready    map[middleware.Outcome]series // built by New, read-only after
}

// series are the children of one outcome; duration is nil when New did not
// create it.
type series struct {
	total    prom.Counter
	duration prom.Observer
}

// New creates the collectors, with every series of the outcomes the kit
// reports at zero. It panics when an option is invalid (see WithNamespace,
// WithConstLabels and WithBuckets), as client_golang's constructors do.
func New(opts ...Option) *Metrics {
	c := newConfig(opts)
	mintAll, mintTimed := middleware.OutcomesOf(middleware.OpMint)
	revokeAll, revokeTimed := middleware.OutcomesOf(middleware.OpRevoke)
	m := &Metrics{
		mint: newOperation(c, "mints_total", "mint_duration_seconds",
			"Generate-session attempts after the policy accepted the viewer, by outcome.",
			"Duration of the platform's generate-session call, retries included, by outcome; observed only when the call was made.",
			mintAll, mintTimed),
		revoke: newOperation(c, "revokes_total", "revoke_duration_seconds",
			"Revoke attempts of single session ids, by outcome; expired counts queued ids dropped without a call.",
			"Duration of the platform's revoke call, retries included, by outcome; observed only when the call was made.",
			revokeAll, revokeTimed),
		queueDepth: prom.NewGauge(prom.GaugeOpts{
			Namespace:   c.namespace,
			Name:        "revoke_queue_depth",
			Help:        "Session ids waiting in the revoke retry queue, as last reported by the kit.",
			ConstLabels: c.constLabels,
		}),
		logouts: prom.NewCounterVec(prom.CounterOpts{
			Namespace:   c.namespace,
			Name:        "logouts_incomplete_total",
			Help:        "Logouts that ended the session in the browser but could not record a step on the server, by step.",
			ConstLabels: c.constLabels,
		}, []string{StepLabel}),
	}
	for _, s := range logoutSteps {
		m.logouts.WithLabelValues(string(s))
	}
	return m
}

func newOperation(c config, total, duration, totalHelp, durationHelp string, outcomes, timed []middleware.Outcome) operation {
	op := operation{
		total: prom.NewCounterVec(prom.CounterOpts{
			Namespace:   c.namespace,
			Name:        total,
			Help:        totalHelp,
			ConstLabels: c.constLabels,
		}, []string{OutcomeLabel}),
		duration: prom.NewHistogramVec(prom.HistogramOpts{
			Namespace:   c.namespace,
			Name:        duration,
			Help:        durationHelp,
			ConstLabels: c.constLabels,
			Buckets:     c.buckets,
		}, []string{OutcomeLabel}),
		ready: make(map[middleware.Outcome]series, len(outcomes)),
	}
	for _, o := range outcomes {
		op.ready[o] = series{total: op.total.WithLabelValues(string(o))}
	}
	for _, o := range timed {
		s := op.ready[o]
		s.duration = op.duration.WithLabelValues(string(o))
		op.ready[o] = s
	}
	return op
}

// report counts one attempt and, when latency > 0, observes it.
func (op *operation) report(outcome middleware.Outcome, latency time.Duration) {
	s, ok := op.ready[outcome]
	if !ok {
		s.total = op.total.WithLabelValues(outcomeLabel(outcome))
	}
	s.total.Inc()
	if latency <= 0 {
		return
	}
	if s.duration == nil {
		s.duration = op.duration.WithLabelValues(outcomeLabel(outcome))
	}
	s.duration.Observe(latency.Seconds())
}

// Mint counts one generate-session attempt under mints_total and, when
// the kit timed a platform call (latency > 0), observes the call's latency
// under mint_duration_seconds. The kit reports zero latency for mints the
// Policy refused or validation stopped before anything was sent: those
// are counted but not observed, since they would only pile up in the
// lowest bucket and drag every quantile of the platform's latency down.
func (m *Metrics) Mint(outcome middleware.Outcome, latency time.Duration) {
	m.mint.report(outcome, latency)
}

// Revoke counts one revoke attempt of one session id under revokes_total
// and, when latency > 0, observes it under revoke_duration_seconds. Queued
// ids dropped as expired are counted (outcome "expired") without a
// duration: no call was made.
func (m *Metrics) Revoke(outcome middleware.Outcome, latency time.Duration) {
	m.revoke.report(outcome, latency)
}

// RevokeQueueDepth sets revoke_queue_depth to n. The kit reports the depth
// after each logout that queued revokes and after each retry pass; in
// between the gauge keeps the last value. Instances that share one queue
// (a Redis store) all report its full depth: aggregate the gauge across
// instances with max, not sum.
func (m *Metrics) RevokeQueueDepth(n int) {
	m.queueDepth.Set(float64(n))
}

// LogoutIncomplete counts one logout under logouts_incomplete_total whose
// step could not be recorded on the server, for middleware.LogoutMetrics.
func (m *Metrics) LogoutIncomplete(step middleware.LogoutStep) {
	label := OutcomeOther
	if slices.Contains(logoutSteps, step) {
		label = string(step)
	}
	m.logouts.WithLabelValues(label).Inc()
}

// Describe sends the descriptors of the six metrics, for
// prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prom.Desc) {
	m.mint.total.Describe(ch)
	m.mint.duration.Describe(ch)
	m.revoke.total.Describe(ch)
	m.revoke.duration.Describe(ch)
	m.queueDepth.Describe(ch)
	m.logouts.Describe(ch)
}

// Collect sends the current values of the six metrics, for
// prometheus.Collector. It runs concurrently with Mint and Revoke without
// holding them up.
func (m *Metrics) Collect(ch chan<- prom.Metric) {
	m.mint.total.Collect(ch)
	m.mint.duration.Collect(ch)
	m.revoke.total.Collect(ch)
	m.revoke.duration.Collect(ch)
	m.queueDepth.Collect(ch)
	m.logouts.Collect(ch)
}
