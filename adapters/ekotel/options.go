package ekotel

import (
	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/embedkit/embedkit/embedkit"
)

// ScopeName is the instrumentation scope of the meter and the tracer this
// package creates: the package's import path, as OpenTelemetry asks.
const ScopeName = "github.com/embedkit/embedkit/adapters/ekotel"

// Option configures NewMetrics and NewTracer. Each constructor reads the
// options that concern it and ignores the others, so one list can serve
// both.
type Option func(*config)

type config struct {
	meterProvider  metric.MeterProvider
	tracerProvider trace.TracerProvider
}

// WithMeterProvider makes NewMetrics create its instruments with mp. The
// default is the global provider, otel.GetMeterProvider(); a nil mp
// leaves the default.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.meterProvider = mp
		}
	}
}

// WithTracerProvider makes NewTracer start its spans with tp. The default
// is the global provider, otel.GetTracerProvider(); a nil tp leaves the
// default.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tracerProvider = tp
		}
	}
}

// newConfig applies opts over the global providers. The globals are read
// here, once: they delegate to whatever provider the application installs
// later with otel.SetMeterProvider or otel.SetTracerProvider, so creating
// the Metrics or Tracer before the SDK is set up still works.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.meterProvider == nil {
		c.meterProvider = global.GetMeterProvider()
	}
	if c.tracerProvider == nil {
		c.tracerProvider = global.GetTracerProvider()
	}
	return c
}

// scopeVersion is the version reported with the instrumentation scope.
const scopeVersion = embedkit.Version
