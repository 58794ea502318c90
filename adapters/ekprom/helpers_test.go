package ekprom_test

import (
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/embedkit/embedkit/adapters/ekprom"
)

// series returns the series of family name whose outcome label is
// outcome, or nil when there is none. It gathers c through a pedantic
// registry, which checks the metrics' consistency on the way.
func series(t *testing.T, c prometheus.Collector, name, outcome string) *dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatalf("Register: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == ekprom.OutcomeLabel && lp.GetValue() == outcome {
					return m
				}
			}
		}
	}
	return nil
}

// value returns the value of the counter name{outcome=outcome}; the test
// fails when there is no such series.
func value(t *testing.T, c prometheus.Collector, name, outcome string) float64 {
	t.Helper()
	m := series(t, c, name, outcome)
	if m == nil || m.GetCounter() == nil {
		t.Fatalf("no counter %s{outcome=%q}", name, outcome)
	}
	return m.GetCounter().GetValue()
}

// histogramCount returns the observation count of the histogram
// name{outcome=outcome}, or -1 when there is no such series.
func histogramCount(t *testing.T, c prometheus.Collector, name, outcome string) int {
	t.Helper()
	m := series(t, c, name, outcome)
	if m == nil {
		return -1
	}
	if m.GetHistogram() == nil {
		t.Fatalf("%s{outcome=%q} is not a histogram", name, outcome)
	}
	return int(m.GetHistogram().GetSampleCount())
}

// exposition returns the named metrics of c in the text format.
func exposition(t *testing.T, c prometheus.Collector, names ...string) string {
	t.Helper()
	b, err := testutil.CollectAndFormat(c, expfmt.TypeTextPlain, names...)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }
