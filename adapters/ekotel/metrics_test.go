package ekotel

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// setupMetrics returns a Metrics on an SDK MeterProvider and the reader
// that collects it.
func setupMetrics(t *testing.T) (*Metrics, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	m, err := NewMetrics(WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	return m, reader
}

// collect returns the metrics of this package's scope, by name; other
// scopes (otelhttp's, in the end-to-end tests) are left out.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName {
			continue
		}
		if sm.Scope.Version != embedkit.Version {
			t.Errorf("scope version %q, want %q", sm.Scope.Version, embedkit.Version)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// counts returns a counter's value per outcome.
func counts(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s: data %T, want metricdata.Sum[int64]", m.Name, m.Data)
	}
	if !sum.IsMonotonic || sum.Temporality != metricdata.CumulativeTemporality {
		t.Errorf("%s: monotonic %v temporality %v, want a cumulative counter", m.Name, sum.IsMonotonic, sum.Temporality)
	}
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		out[outcomeOf(t, m.Name, dp.Attributes.ToSlice())] += dp.Value
	}
	return out
}

// histogram is what a test checks of one histogram data point.
type histogram struct {
	count uint64
	sum   float64
}

// histograms returns a histogram's count and sum per outcome, and checks
// its buckets are middleware.DurationBuckets.
func histograms(t *testing.T, m metricdata.Metrics) map[string]histogram {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s: data %T, want metricdata.Histogram[float64]", m.Name, m.Data)
	}
	out := map[string]histogram{}
	for _, dp := range h.DataPoints {
		if want := middleware.DurationBuckets(); !equalFloats(dp.Bounds, want) {
			t.Errorf("%s: bounds %v, want middleware.DurationBuckets %v", m.Name, dp.Bounds, want)
		}
		out[outcomeOf(t, m.Name, dp.Attributes.ToSlice())] = histogram{count: dp.Count, sum: dp.Sum}
	}
	return out
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// outcomeOf checks that attrs is exactly the outcome attribute and returns
// its value.
func outcomeOf(t *testing.T, name string, attrs []attribute.KeyValue) string {
	t.Helper()
	if len(attrs) != 1 || attrs[0].Key != OutcomeKey {
		t.Fatalf("%s: attributes %v, want only %s", name, attrs, OutcomeKey)
	}
	return attrs[0].Value.AsString()
}

func TestMetricsInstruments(t *testing.T) {
	m, reader := setupMetrics(t)
	m.Mint(middleware.OutcomeOK, time.Millisecond)
	m.Revoke(middleware.OutcomeOK, time.Millisecond)
	m.RevokeQueueDepth(0)
	m.LogoutIncomplete(middleware.LogoutStepLogin)
	got := collect(t, reader)

	tests := []struct {
		name string
		unit string
		data any
	}{
		{MetricMints, "{mint}", metricdata.Sum[int64]{}},
		{MetricMintDuration, "s", metricdata.Histogram[float64]{}},
		{MetricRevokes, "{revoke}", metricdata.Sum[int64]{}},
		{MetricRevokeDuration, "s", metricdata.Histogram[float64]{}},
		{MetricRevokeQueueLength, "{session}", metricdata.Gauge[int64]{}},
		{MetricLogoutsIncomplete, "{logout}", metricdata.Sum[int64]{}},
	}
	if len(got) != len(tests) {
		t.Errorf("collected %d metrics, want %d", len(got), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ok := got[tt.name]
			if !ok {
				t.Fatalf("metric %s not collected", tt.name)
			}
			if md.Unit != tt.unit {
				t.Errorf("unit %q, want %q", md.Unit, tt.unit)
			}
			if md.Description == "" {
				t.Error("no description")
			}
			if gotType, wantType := typeName(md.Data), typeName(tt.data); gotType != wantType {
				t.Errorf("data %s, want %s", gotType, wantType)
			}
		})
	}
}

func typeName(v any) string {
	switch v.(type) {
	case metricdata.Sum[int64]:
		return "Sum[int64]"
	case metricdata.Histogram[float64]:
		return "Histogram[float64]"
	case metricdata.Gauge[int64]:
		return "Gauge[int64]"
	}
	return "other"
}

// report is one call to Metrics.
type report struct {
	revoke  bool
	outcome middleware.Outcome
	latency time.Duration
}

func TestMetricsCountsAndDurations(t *testing.T) {
	tests := []struct {
		name          string
		reports       []report
		mints         map[string]int64
		mintDurations map[string]histogram
		revokes       map[string]int64
		revokeDurs    map[string]histogram
	}{
		{
			name: "mints by outcome",
			reports: []report{
				{outcome: middleware.OutcomeOK, latency: 100 * time.Millisecond},
				{outcome: middleware.OutcomeOK, latency: 300 * time.Millisecond},
				{outcome: middleware.OutcomeUnavailable, latency: 2 * time.Second},
				{outcome: middleware.OutcomeDenied, latency: 50 * time.Millisecond}, // the platform refused
			},
			mints: map[string]int64{"ok": 2, "unavailable": 1, "denied": 1},
			mintDurations: map[string]histogram{
				"ok":          {count: 2, sum: 0.4},
				"unavailable": {count: 1, sum: 2},
				"denied":      {count: 1, sum: 0.05},
			},
		},
		{
			name: "mints never sent are counted without a duration",
			reports: []report{
				{outcome: middleware.OutcomeDenied},  // the Policy refused
				{outcome: middleware.OutcomeInvalid}, // validation stopped it
				{outcome: middleware.OutcomeInvalid},
				{outcome: middleware.OutcomeOK, latency: time.Second},
			},
			mints:         map[string]int64{"denied": 1, "invalid": 2, "ok": 1},
			mintDurations: map[string]histogram{"ok": {count: 1, sum: 1}},
		},
		{
			name: "revokes by outcome, expired without a duration",
			reports: []report{
				{revoke: true, outcome: middleware.OutcomeOK, latency: 20 * time.Millisecond},
				{revoke: true, outcome: middleware.OutcomeQueued, latency: 10 * time.Second},
				{revoke: true, outcome: middleware.OutcomeExpired},
				{revoke: true, outcome: middleware.OutcomeExpired},
			},
			revokes: map[string]int64{"ok": 1, "queued": 1, "expired": 2},
			revokeDurs: map[string]histogram{
				"ok":     {count: 1, sum: 0.02},
				"queued": {count: 1, sum: 10},
			},
		},
		{
			name: "an outcome the kit may add later is measured as given",
			reports: []report{
				{outcome: "throttled", latency: time.Second},
				{revoke: true, outcome: "throttled"},
			},
			mints:         map[string]int64{"throttled": 1},
			mintDurations: map[string]histogram{"throttled": {count: 1, sum: 1}},
			revokes:       map[string]int64{"throttled": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, reader := setupMetrics(t)
			for _, r := range tt.reports {
				if r.revoke {
					m.Revoke(r.outcome, r.latency)
				} else {
					m.Mint(r.outcome, r.latency)
				}
			}
			got := collect(t, reader)
			checkCounts(t, got, MetricMints, tt.mints)
			checkHistograms(t, got, MetricMintDuration, tt.mintDurations)
			checkCounts(t, got, MetricRevokes, tt.revokes)
			checkHistograms(t, got, MetricRevokeDuration, tt.revokeDurs)
		})
	}
}

func checkCounts(t *testing.T, got map[string]metricdata.Metrics, name string, want map[string]int64) {
	t.Helper()
	checkSeries(t, got, name, want, counts, func(a, b int64) bool { return a == b })
}

func checkHistograms(t *testing.T, got map[string]metricdata.Metrics, name string, want map[string]histogram) {
	t.Helper()
	checkSeries(t, got, name, want, histograms, func(a, b histogram) bool { return a.count == b.count && near(a.sum, b.sum) })
}

// checkSeries compares metric name of got, read per outcome by read, with
// want: the same outcomes, each equal by eq. A metric not collected
// matches an empty want.
func checkSeries[V any](t *testing.T, got map[string]metricdata.Metrics, name string, want map[string]V,
	read func(*testing.T, metricdata.Metrics) map[string]V, eq func(a, b V) bool) {
	t.Helper()
	md, ok := got[name]
	if !ok {
		if len(want) > 0 {
			t.Errorf("%s not collected, want %v", name, want)
		}
		return
	}
	series := read(t, md)
	if len(series) != len(want) {
		t.Errorf("%s = %v, want %v", name, series, want)
	}
	for o, w := range want {
		if g := series[o]; !eq(g, w) {
			t.Errorf("%s{outcome=%s} = %+v, want %+v", name, o, g, w)
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

func TestMetricsRevokeQueueLength(t *testing.T) {
	tests := []struct {
		name    string
		reports []int
		want    int64
	}{
		{"one report", []int{7}, 7},
		{"the last report wins", []int{3, 12, 1}, 1},
		{"an emptied queue reads zero", []int{5, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, reader := setupMetrics(t)
			for _, n := range tt.reports {
				m.RevokeQueueDepth(n)
			}
			md, ok := collect(t, reader)[MetricRevokeQueueLength]
			if !ok {
				t.Fatalf("%s not collected", MetricRevokeQueueLength)
			}
			g, ok := md.Data.(metricdata.Gauge[int64])
			if !ok {
				t.Fatalf("data %T, want metricdata.Gauge[int64]", md.Data)
			}
			if len(g.DataPoints) != 1 {
				t.Fatalf("%d data points, want 1", len(g.DataPoints))
			}
			dp := g.DataPoints[0]
			if dp.Value != tt.want {
				t.Errorf("queue length %d, want %d", dp.Value, tt.want)
			}
			if dp.Attributes.Len() != 0 {
				t.Errorf("attributes %v, want none", dp.Attributes.ToSlice())
			}
		})
	}
}

func TestMetricsLogoutIncomplete(t *testing.T) {
	m, reader := setupMetrics(t)
	m.LogoutIncomplete(middleware.LogoutStepLogin)
	m.LogoutIncomplete(middleware.LogoutStepLogin)
	m.LogoutIncomplete(middleware.LogoutStepEmbeds)
	md, ok := collect(t, reader)[MetricLogoutsIncomplete]
	if !ok {
		t.Fatalf("%s not collected", MetricLogoutsIncomplete)
	}
	sum, ok := md.Data.(metricdata.Sum[int64])
	if !ok || !sum.IsMonotonic {
		t.Fatalf("data %T, want a monotonic metricdata.Sum[int64]", md.Data)
	}
	got := map[string]int64{}
	for _, dp := range sum.DataPoints {
		v, ok := dp.Attributes.Value(StepKey)
		if !ok || dp.Attributes.Len() != 1 {
			t.Fatalf("attributes %v, want only %s", dp.Attributes.ToSlice(), StepKey)
		}
		got[v.AsString()] += dp.Value
	}
	if got["login"] != 2 || got["embeds"] != 1 || len(got) != 2 {
		t.Errorf("logouts by step %v, want login 2, embeds 1", got)
	}
}

func TestMetricsConcurrent(t *testing.T) {
	m, reader := setupMetrics(t)
	const goroutines, each = 8, 100
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			for j := range each {
				m.Mint(middleware.OutcomeOK, time.Millisecond)
				m.Revoke(middleware.OutcomeQueued, time.Millisecond)
				m.RevokeQueueDepth(i*each + j)
			}
		})
	}
	wg.Wait()
	got := collect(t, reader)
	checkCounts(t, got, MetricMints, map[string]int64{"ok": goroutines * each})
	checkCounts(t, got, MetricRevokes, map[string]int64{"queued": goroutines * each})
}

// failingMeter refuses to create the instruments named in fail.
type failingMeter struct {
	noop.Meter
	fail map[string]bool
}

var errRefused = errors.New("refused by the test meter")

func (m failingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	if m.fail[name] {
		return nil, errRefused
	}
	return m.Meter.Int64Counter(name, opts...)
}

func (m failingMeter) Int64Gauge(name string, opts ...metric.Int64GaugeOption) (metric.Int64Gauge, error) {
	if m.fail[name] {
		return nil, errRefused
	}
	return m.Meter.Int64Gauge(name, opts...)
}

type failingProvider struct {
	noop.MeterProvider
	meter failingMeter
}

func (p failingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return p.meter }

func TestNewMetricsInstrumentError(t *testing.T) {
	mp := failingProvider{meter: failingMeter{fail: map[string]bool{MetricRevokes: true, MetricRevokeQueueLength: true}}}
	m, err := NewMetrics(WithMeterProvider(mp))
	if err == nil {
		t.Fatal("NewMetrics succeeded with a provider that refuses instruments")
	}
	if m != nil {
		t.Error("NewMetrics returned a Metrics with its error")
	}
	if !errors.Is(err, errRefused) {
		t.Errorf("error %v does not wrap the provider's", err)
	}
	msg := err.Error()
	for _, want := range []string{"ekotel: ", MetricRevokes, MetricRevokeQueueLength} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	if strings.Contains(msg, MetricMints+":") {
		t.Errorf("error %q names an instrument that was created", msg)
	}
}

func TestNewWithGlobalProviders(t *testing.T) {
	// The global providers are no-ops until an application sets them; the
	// constructors must work on them all the same.
	m, err := NewMetrics(WithMeterProvider(nil))
	if err != nil {
		t.Fatal(err)
	}
	m.Mint(middleware.OutcomeOK, time.Millisecond)
	m.RevokeQueueDepth(1)
	ctx, span := NewTracer(WithTracerProvider(nil), nil).Start(context.Background(), middleware.OpMint)
	span.End(middleware.OutcomeOK, nil)
	if ctx == nil {
		t.Error("Start returned a nil context")
	}
}

func BenchmarkMetricsMint(b *testing.B) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	m, err := NewMetrics(WithMeterProvider(mp))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Mint(middleware.OutcomeOK, 120*time.Millisecond)
		}
	})
}
