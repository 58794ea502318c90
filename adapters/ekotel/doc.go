// Package ekotel reports the kit's mints and revokes to OpenTelemetry:
// Metrics implements middleware.Metrics on the metrics API and Tracer
// implements middleware.Tracer on the trace API. Both use whatever SDK
// and exporters the host application set up; this package only creates
// instruments and spans.
//
// Its name, ekotel, differs from go.opentelemetry.io/otel's, so a file
// imports both without an alias.
//
// # The short path
//
//	metrics, err := ekotel.NewMetrics() // the global MeterProvider
//	if err != nil { ... }
//	client, err := embedkit.New(platformURL, apiKey, embedkit.WithHTTPClient(&http.Client{
//		Timeout:   30 * time.Second,
//		Transport: otelhttp.NewTransport(http.DefaultTransport),
//	}))
//	if err != nil { ... }
//	kit, err := middleware.New(middleware.Config{
//		Platform: client,
//		Metrics:  metrics,
//		Tracer:   ekotel.NewTracer(), // the global TracerProvider
//		...
//	})
//
// WithMeterProvider and WithTracerProvider name other providers than the
// global ones.
//
// # Metrics
//
// Names and units follow the OpenTelemetry semantic conventions; every
// counter and histogram of mints and revokes has the attribute OutcomeKey ("embedkit.outcome").
//
//	embedkit.mints                counter    {mint}     mints the Policy accepted, by outcome
//	embedkit.mint.duration        histogram  s          the generate-session call, retries included
//	embedkit.revokes              counter    {revoke}   revoke attempts of one session id, by outcome
//	embedkit.revoke.duration      histogram  s          the revoke call, retries included
//	embedkit.revoke.queue.length  gauge      {session}  ids waiting in the revoke retry queue
//	embedkit.logouts.incomplete   counter    {logout}   logouts that could not record a step on the server, by StepKey
//
// The last one (middleware.LogoutMetrics) carries StepKey
// ("embedkit.logout.step") instead of the outcome: embeds (the embed
// session ids could not be read or queued) or login (the ended login
// could not be written to the list of ended logins).
//
// The histograms record only calls that reached the platform client: the
// kit reports zero latency for a mint the Policy refused or validation
// stopped, and for a queued revoke dropped as expired, and Metrics counts
// those without recording a duration. Their buckets are
// middleware.DurationBuckets, in seconds, the same as the Prometheus
// adapter's. The queue length is a synchronous gauge holding the last
// reported value; instances sharing one queue (the Redis store) report
// the same number, so aggregate it across instances with max.
//
// The kit calls Metrics inline, without a context, so the measurements
// carry no exemplars; the attribute set of each outcome is built once.
//
// # Traces
//
// Tracer puts an internal span around each mint (SpanMint,
// "embedkit.mint") and each revoke attempt (SpanRevoke, "embedkit.revoke"),
// with the outcome, and for a failure the status Error, error.type, the
// platform's HTTP status (http.response.status_code) and request id
// (PlatformRequestIDKey, "embedkit.platform.request_id"). The Tracer type
// says exactly what is recorded when. Spans never hold an API key, a token
// or a session id: the error message a failed span records comes from the
// kit, which builds its errors without them and scrubs them from the
// platform's answers.
//
// # Propagation to the platform
//
// The kit calls the platform client under the span's context. Give the
// client a tracing transport, as in the short path, and each HTTP attempt
// of the call, retries included, becomes a client span under the mint or
// revoke span, and the trace continues at the platform through the W3C
// traceparent header. Three things to know:
//
//   - otelhttp injects headers with the global propagator, which is a
//     no-op until the application installs one:
//     otel.SetTextMapPropagator(propagation.TraceContext{}), or pass
//     otelhttp.WithPropagators to NewTransport. Without it the spans nest
//     but the platform receives no traceparent.
//   - Without otelhttp.WithTracerProvider the transport starts its spans
//     on the provider of the span in the request's context, so the HTTP
//     spans go where the Tracer's spans go.
//   - embedkit.WithHTTPClient replaces the client's own http.Client, and
//     with it its timeouts: set Timeout (the default client's is 30s; it
//     also bounds streamed exports) or a Transport with dial and header
//     timeouts of its own. The retry policy (embedkit.WithRetry) and the
//     circuit breaker stay the client's: they call the http.Client once
//     per attempt, which is why each attempt gets its own span.
//
// otelhttp records the method, URL, status and peer of each request, not
// its headers or body: the API key travels in the Authorization header,
// and generate-session, revoke and the token exchange carry session ids in
// bodies, never in a URL, so the HTTP spans hold no secret either (the
// end-to-end tests check every recorded span).
package ekotel
