// Package ekprom reports the kit's mints and revokes as Prometheus
// metrics: Metrics implements middleware.Metrics and is a
// prometheus.Collector of github.com/prometheus/client_golang, so it is
// registered like the client's own collectors.
//
// Its name, ekprom, differs from the client library's package, so a file
// uses both without an alias:
//
//	import (
//		"github.com/prometheus/client_golang/prometheus"
//		"github.com/prometheus/client_golang/prometheus/promhttp"
//
//		"github.com/embedkit/embedkit/adapters/ekprom"
//	)
//
// # The short path
//
//	metrics := ekprom.New()
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(metrics) // or prometheus.MustRegister(metrics) on the default registry
//	kit, err := middleware.New(middleware.Config{
//		Metrics: metrics,
//		...
//	})
//	if err != nil { ... }
//	go kit.Run(ctx) // the revoke retrier, which also reports the queue depth
//
//	// Serve the metrics on a listener of its own, reachable from the
//	// Prometheus server only.
//	internal := http.NewServeMux()
//	internal.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
//	go http.ListenAndServe("127.0.0.1:9090", internal)
//
// Never mount /metrics on the host application's public mux. The metrics
// hold no session id, token or user data (their only variable label is
// the outcome), but they show who signs in to dashboards how often and
// whether the platform is failing, and anyone can scrape a public
// endpoint as often as they like. Bind it to loopback or an internal
// interface, or put it behind the same authentication as the rest of the
// operator's endpoints.
//
// # Metrics
//
// Names follow the Prometheus naming conventions: snake_case under the
// namespace "embedkit" (WithNamespace), base units (seconds), counters
// ending in _total. The counters and histograms have one label, outcome
// (OutcomeLabel), whose values are the middleware.Outcome constants.
//
//	embedkit_mints_total{outcome}             counter    generate-session attempts after the Policy accepted the viewer
//	embedkit_mint_duration_seconds{outcome}   histogram  the generate-session call, the client's retries included
//	embedkit_revokes_total{outcome}           counter    revoke attempts of one session id each
//	embedkit_revoke_duration_seconds{outcome} histogram  the revoke call, the client's retries included
//	embedkit_revoke_queue_depth               gauge      session ids waiting in the revoke retry queue
//	embedkit_logouts_incomplete_total{step}   counter    logouts that ended the session in the browser but could not record a step on the server
//
// The step label of the last one (StepLabel) is a middleware.LogoutStep:
// embeds (the embed session ids could not be read or queued, so they
// live until they expire) or login (the ended login could not be written
// to the list of ended logins, so a copy of the cookie taken before
// logout still signs in until it expires). Both start at zero; alert on
// any increase.
//
// Outcomes of a mint: ok; denied (the Policy or the platform refused);
// invalid (the request failed validation and was not sent); unavailable
// (the platform is down, limiting or timing out); error (anything else,
// such as an answer the kit cannot use); limited (the kit's per-viewer
// mint limit, middleware.Config.MintLimit, refused it before any call:
// alert on a rate of these, a viewer or a script minting in a loop).
// Outcomes of a revoke: ok;
// invalid (the id was refused before sending); queued (the call failed
// and the id waits for the retrier); expired (a queued id was dropped,
// since nothing minted from it can still be alive). New creates these series at
// zero, so a dashboard shows a flat line, not "no data", before the first
// failure. Any value outside the middleware.Outcome constants is counted
// as OutcomeOther ("other"): at most nine series per metric, whatever a
// caller passes.
//
// The histograms observe only attempts reported with a latency, which the
// kit measures around the platform client's call. It reports zero for a
// mint the Policy refused or stopped as invalid, and for an expired
// revoke; those are counted without an observation, so
// embedkit_mints_total counts every attempt and
// embedkit_mint_duration_seconds_count the calls, and their difference is
// what the kit refused without a round trip. (A request the client's own
// validation refuses is timed too, at microseconds; the Policy validates
// first, so this is rare.) The buckets are middleware.DurationBuckets,
// 5ms to 30s, the same as the OpenTelemetry adapter's, so the two compare
// bucket for bucket (WithBuckets).
//
// The queue depth is a gauge of the last reported value: the kit reports
// it after each logout that queued revokes and after each pass of
// Kit.Run, and it reads 0 until the first report. Instances sharing one
// queue (the Redis store) report the same depth; aggregate it across
// instances with max, not sum.
//
// Some queries:
//
//	# share of mints failing on the platform's side
//	sum(rate(embedkit_mints_total{outcome=~"unavailable|error"}[5m])) / sum(rate(embedkit_mints_total[5m]))
//	# 99th percentile of the generate-session call
//	histogram_quantile(0.99, sum by (le) (rate(embedkit_mint_duration_seconds_bucket{outcome="ok"}[5m])))
//	# revokes have waited for half an hour: the platform keeps refusing them
//	min_over_time(max(embedkit_revoke_queue_depth)[30m:]) > 0
//
// # Alongside adapters/ekotel
//
// adapters/ekotel reports the same events through OpenTelemetry. Use one of
// the two: the OpenTelemetry Prometheus exporter turns that adapter's
// instruments into names close to these (embedkit_mints_total, with the
// label embedkit_outcome), and both on one registry would collide.
package ekprom
