package ekprom_test

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/embedkit/embedkit/adapters/ekprom"
	"github.com/embedkit/embedkit/middleware"
)

// compare fails the test unless the named metrics of c are exactly want,
// in the text exposition format (HELP and TYPE lines included).
func compare(t *testing.T, c prometheus.Collector, want string, names ...string) {
	t.Helper()
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

const (
	mintsHelp   = "# HELP embedkit_mints_total Generate-session attempts after the policy accepted the viewer, by outcome.\n# TYPE embedkit_mints_total counter\n"
	revokesHelp = "# HELP embedkit_revokes_total Revoke attempts of single session ids, by outcome; expired counts queued ids dropped without a call.\n# TYPE embedkit_revokes_total counter\n"
	depthHelp   = "# HELP embedkit_revoke_queue_depth Session ids waiting in the revoke retry queue, as last reported by the kit.\n# TYPE embedkit_revoke_queue_depth gauge\n"
	mintDurHelp = "# HELP embedkit_mint_duration_seconds Duration of the platform's generate-session call, retries included, by outcome; observed only when the call was made.\n# TYPE embedkit_mint_duration_seconds histogram\n"
)

func TestNewPreinitialisesSeries(t *testing.T) {
	m := ekprom.New()
	compare(t, m, mintsHelp+`
embedkit_mints_total{outcome="denied"} 0
embedkit_mints_total{outcome="error"} 0
embedkit_mints_total{outcome="invalid"} 0
embedkit_mints_total{outcome="limited"} 0
embedkit_mints_total{outcome="ok"} 0
embedkit_mints_total{outcome="unavailable"} 0
`+revokesHelp+`
embedkit_revokes_total{outcome="expired"} 0
embedkit_revokes_total{outcome="invalid"} 0
embedkit_revokes_total{outcome="ok"} 0
embedkit_revokes_total{outcome="queued"} 0
`+depthHelp+`
embedkit_revoke_queue_depth 0
`, "embedkit_mints_total", "embedkit_revokes_total", "embedkit_revoke_queue_depth")

	// Histogram series: every mint outcome, revoke ok and queued.
	if n := testutil.CollectAndCount(m, "embedkit_mint_duration_seconds"); n != 5 {
		t.Errorf("mint_duration_seconds has %d series, want 5 (one per mint outcome)", n)
	}
	if n := testutil.CollectAndCount(m, "embedkit_revoke_duration_seconds"); n != 2 {
		t.Errorf("revoke_duration_seconds has %d series, want 2 (ok and queued)", n)
	}
}

func TestCountsPerOutcome(t *testing.T) {
	m := ekprom.New()
	for _, o := range []middleware.Outcome{
		middleware.OutcomeOK, middleware.OutcomeOK, middleware.OutcomeOK,
		middleware.OutcomeDenied, middleware.OutcomeInvalid,
		middleware.OutcomeUnavailable, middleware.OutcomeUnavailable,
		middleware.OutcomeError,
	} {
		m.Mint(o, 20*time.Millisecond)
	}
	for _, o := range []middleware.Outcome{
		middleware.OutcomeOK, middleware.OutcomeOK,
		middleware.OutcomeQueued, middleware.OutcomeExpired, middleware.OutcomeInvalid,
		// Outcomes the kit does not report for revokes are still
		// middleware.Outcome constants, and are counted as themselves.
		middleware.OutcomeUnavailable,
	} {
		m.Revoke(o, 0)
	}
	compare(t, m, mintsHelp+`
embedkit_mints_total{outcome="denied"} 1
embedkit_mints_total{outcome="error"} 1
embedkit_mints_total{outcome="invalid"} 1
embedkit_mints_total{outcome="limited"} 0
embedkit_mints_total{outcome="ok"} 3
embedkit_mints_total{outcome="unavailable"} 2
`+revokesHelp+`
embedkit_revokes_total{outcome="expired"} 1
embedkit_revokes_total{outcome="invalid"} 1
embedkit_revokes_total{outcome="ok"} 2
embedkit_revokes_total{outcome="queued"} 1
embedkit_revokes_total{outcome="unavailable"} 1
`, "embedkit_mints_total", "embedkit_revokes_total")
}

func TestDurationObservedOnlyWhenCalled(t *testing.T) {
	m := ekprom.New(ekprom.WithBuckets(0.01, 0.1, 1))
	m.Mint(middleware.OutcomeDenied, 0)                   // refused by the Policy: nothing sent
	m.Mint(middleware.OutcomeInvalid, 0)                  // stopped by validation
	m.Mint(middleware.OutcomeDenied, 50*time.Millisecond) // refused by the platform
	m.Mint(middleware.OutcomeOK, 5*time.Millisecond)
	m.Mint(middleware.OutcomeOK, 250*time.Millisecond)
	m.Mint(middleware.OutcomeOK, -time.Millisecond) // a clock step backwards: not a duration

	compare(t, m, mintDurHelp+`
embedkit_mint_duration_seconds_bucket{outcome="denied",le="0.01"} 0
embedkit_mint_duration_seconds_bucket{outcome="denied",le="0.1"} 1
embedkit_mint_duration_seconds_bucket{outcome="denied",le="1"} 1
embedkit_mint_duration_seconds_bucket{outcome="denied",le="+Inf"} 1
embedkit_mint_duration_seconds_sum{outcome="denied"} 0.05
embedkit_mint_duration_seconds_count{outcome="denied"} 1
embedkit_mint_duration_seconds_bucket{outcome="error",le="0.01"} 0
embedkit_mint_duration_seconds_bucket{outcome="error",le="0.1"} 0
embedkit_mint_duration_seconds_bucket{outcome="error",le="1"} 0
embedkit_mint_duration_seconds_bucket{outcome="error",le="+Inf"} 0
embedkit_mint_duration_seconds_sum{outcome="error"} 0
embedkit_mint_duration_seconds_count{outcome="error"} 0
embedkit_mint_duration_seconds_bucket{outcome="invalid",le="0.01"} 0
embedkit_mint_duration_seconds_bucket{outcome="invalid",le="0.1"} 0
embedkit_mint_duration_seconds_bucket{outcome="invalid",le="1"} 0
embedkit_mint_duration_seconds_bucket{outcome="invalid",le="+Inf"} 0
embedkit_mint_duration_seconds_sum{outcome="invalid"} 0
embedkit_mint_duration_seconds_count{outcome="invalid"} 0
embedkit_mint_duration_seconds_bucket{outcome="ok",le="0.01"} 1
embedkit_mint_duration_seconds_bucket{outcome="ok",le="0.1"} 1
embedkit_mint_duration_seconds_bucket{outcome="ok",le="1"} 2
embedkit_mint_duration_seconds_bucket{outcome="ok",le="+Inf"} 2
embedkit_mint_duration_seconds_sum{outcome="ok"} 0.255
embedkit_mint_duration_seconds_count{outcome="ok"} 2
embedkit_mint_duration_seconds_bucket{outcome="unavailable",le="0.01"} 0
embedkit_mint_duration_seconds_bucket{outcome="unavailable",le="0.1"} 0
embedkit_mint_duration_seconds_bucket{outcome="unavailable",le="1"} 0
embedkit_mint_duration_seconds_bucket{outcome="unavailable",le="+Inf"} 0
embedkit_mint_duration_seconds_sum{outcome="unavailable"} 0
embedkit_mint_duration_seconds_count{outcome="unavailable"} 0
`, "embedkit_mint_duration_seconds")

	// Every attempt is counted, timed or not.
	if got := value(t, m, "embedkit_mints_total", "ok"); got != 3 {
		t.Errorf(`mints_total{outcome="ok"} = %v, want 3`, got)
	}

	// Revokes: expired ids are dropped without a call.
	m.Revoke(middleware.OutcomeExpired, 0)
	m.Revoke(middleware.OutcomeOK, 30*time.Millisecond)
	if n := histogramCount(t, m, "embedkit_revoke_duration_seconds", "ok"); n != 1 {
		t.Errorf(`revoke_duration_seconds_count{outcome="ok"} = %d, want 1`, n)
	}
	if n := histogramCount(t, m, "embedkit_revoke_duration_seconds", "expired"); n != -1 {
		t.Errorf(`revoke_duration_seconds{outcome="expired"} has %d observations, want no series`, n)
	}
}

func TestRevokeQueueDepth(t *testing.T) {
	m := ekprom.New()
	for _, n := range []int{3, 7, 0, 2} {
		m.RevokeQueueDepth(n)
		compare(t, m, depthHelp+"embedkit_revoke_queue_depth "+itoa(n)+"\n", "embedkit_revoke_queue_depth")
	}
}

func TestUnknownOutcomeIsOther(t *testing.T) {
	m := ekprom.New()
	// Every distinct unknown string lands in the one "other" series, so a
	// caller passing free text cannot blow up the series count.
	for i := range 100 {
		m.Mint(middleware.Outcome("weird-"+itoa(i)), time.Millisecond)
		m.Revoke(middleware.Outcome(""), time.Millisecond)
	}
	compare(t, m, mintsHelp+`
embedkit_mints_total{outcome="denied"} 0
embedkit_mints_total{outcome="error"} 0
embedkit_mints_total{outcome="invalid"} 0
embedkit_mints_total{outcome="limited"} 0
embedkit_mints_total{outcome="ok"} 0
embedkit_mints_total{outcome="other"} 100
embedkit_mints_total{outcome="unavailable"} 0
`, "embedkit_mints_total")
	if got := value(t, m, "embedkit_revokes_total", ekprom.OutcomeOther); got != 100 {
		t.Errorf(`revokes_total{outcome="other"} = %v, want 100`, got)
	}
	if n := histogramCount(t, m, "embedkit_mint_duration_seconds", ekprom.OutcomeOther); n != 100 {
		t.Errorf(`mint_duration_seconds_count{outcome="other"} = %d, want 100`, n)
	}
	if n := testutil.CollectAndCount(m, "embedkit_mints_total"); n != 7 {
		t.Errorf("mints_total has %d series, want 7 (six outcomes and other)", n)
	}
}

func TestLint(t *testing.T) {
	m := ekprom.New()
	for _, o := range []middleware.Outcome{"ok", "denied", "invalid", "unavailable", "error", "queued", "expired", "limited", "bogus"} {
		m.Mint(o, time.Millisecond)
		m.Revoke(o, time.Millisecond)
	}
	m.RevokeQueueDepth(4)
	problems, err := testutil.CollectAndLint(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	if n := testutil.CollectAndCount(m); n != 2*9+2*9+1+2 {
		t.Errorf("%d series in all, want 39: nine outcomes per counter and histogram, the gauge and two logout steps", n)
	}
}

func TestRegisterTwice(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := ekprom.New()
	if err := reg.Register(m); err != nil {
		t.Fatalf("first Register: %v", err)
	}

	tests := []struct {
		name     string
		c        *ekprom.Metrics
		existing *ekprom.Metrics
	}{
		{"the same Metrics again", m, m},
		{"a second Metrics with the same names", ekprom.New(), m},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reg.Register(tt.c)
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				t.Fatalf("Register = %v, want an AlreadyRegisteredError", err)
			}
			if are.ExistingCollector != tt.existing {
				t.Errorf("ExistingCollector is %p, want the first Metrics %p", are.ExistingCollector, tt.existing)
			}
			if !strings.Contains(err.Error(), "duplicate metrics collector registration") {
				t.Errorf("error %q does not say what went wrong", err)
			}
		})
	}

	// Set apart by namespace, two Metrics share a registry.
	if err := reg.Register(ekprom.New(ekprom.WithNamespace("shop_embedkit"))); err != nil {
		t.Errorf("Register with another namespace: %v", err)
	}
	if _, err := reg.Gather(); err != nil {
		t.Errorf("Gather: %v", err)
	}

	// Or by the values of one const label; a registry refuses one name
	// with two label sets, so the label must be on both.
	reg = prometheus.NewPedanticRegistry()
	reg.MustRegister(ekprom.New(ekprom.WithConstLabels(prometheus.Labels{"kit": "admin"})))
	if err := reg.Register(ekprom.New(ekprom.WithConstLabels(prometheus.Labels{"kit": "public"}))); err != nil {
		t.Errorf("Register with another const label value: %v", err)
	}
	if err := reg.Register(ekprom.New()); err == nil || !strings.Contains(err.Error(), "different label names") {
		t.Errorf("Register without the const label = %v, want an error about different label names", err)
	}
	if _, err := reg.Gather(); err != nil {
		t.Errorf("Gather: %v", err)
	}
}

func TestRegisterRejectsBadConstLabelValue(t *testing.T) {
	err := prometheus.NewRegistry().Register(ekprom.New(ekprom.WithConstLabels(prometheus.Labels{"kit": "\xff"})))
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Register = %v, want an error saying the value is not valid UTF-8", err)
	}
}

func TestOptions(t *testing.T) {
	m := ekprom.New(
		ekprom.WithNamespace("shop"),
		ekprom.WithConstLabels(prometheus.Labels{"kit": "admin"}),
		ekprom.WithConstLabels(prometheus.Labels{"region": "eu"}),
		ekprom.WithBuckets(0.1, 1, math.Inf(1)),
		nil, // ignored
	)
	m.Revoke(middleware.OutcomeOK, 500*time.Millisecond)
	m.RevokeQueueDepth(1)
	compare(t, m, `
# HELP shop_revoke_duration_seconds Duration of the platform's revoke call, retries included, by outcome; observed only when the call was made.
# TYPE shop_revoke_duration_seconds histogram
shop_revoke_duration_seconds_bucket{kit="admin",outcome="ok",region="eu",le="0.1"} 0
shop_revoke_duration_seconds_bucket{kit="admin",outcome="ok",region="eu",le="1"} 1
shop_revoke_duration_seconds_bucket{kit="admin",outcome="ok",region="eu",le="+Inf"} 1
shop_revoke_duration_seconds_sum{kit="admin",outcome="ok",region="eu"} 0.5
shop_revoke_duration_seconds_count{kit="admin",outcome="ok",region="eu"} 1
shop_revoke_duration_seconds_bucket{kit="admin",outcome="queued",region="eu",le="0.1"} 0
shop_revoke_duration_seconds_bucket{kit="admin",outcome="queued",region="eu",le="1"} 0
shop_revoke_duration_seconds_bucket{kit="admin",outcome="queued",region="eu",le="+Inf"} 0
shop_revoke_duration_seconds_sum{kit="admin",outcome="queued",region="eu"} 0
shop_revoke_duration_seconds_count{kit="admin",outcome="queued",region="eu"} 0
# HELP shop_revoke_queue_depth Session ids waiting in the revoke retry queue, as last reported by the kit.
# TYPE shop_revoke_queue_depth gauge
shop_revoke_queue_depth{kit="admin",region="eu"} 1
`, "shop_revoke_duration_seconds", "shop_revoke_queue_depth")

	t.Run("empty values leave the defaults", func(t *testing.T) {
		m := ekprom.New(ekprom.WithNamespace(""), ekprom.WithBuckets(), ekprom.WithConstLabels(nil))
		m.Mint(middleware.OutcomeOK, time.Millisecond)
		if got := value(t, m, "embedkit_mints_total", "ok"); got != 1 {
			t.Errorf(`embedkit_mints_total{outcome="ok"} = %v, want 1`, got)
		}
		want := len(middleware.DurationBuckets()) + 3 // buckets, +Inf, sum, count
		if n := len(strings.Split(strings.TrimSpace(exposition(t, m, "embedkit_mint_duration_seconds")), "\n")); n != 5*want+2 {
			t.Errorf("mint_duration_seconds has %d lines, want %d: the default buckets", n, 5*want+2)
		}
	})

	t.Run("options are copied", func(t *testing.T) {
		labels := prometheus.Labels{"kit": "a"}
		buckets := []float64{1, 2}
		m := ekprom.New(ekprom.WithConstLabels(labels), ekprom.WithBuckets(buckets...))
		labels["kit"] = "changed"
		buckets[0] = 3
		m.Mint(middleware.OutcomeOK, 1500*time.Millisecond)
		out := exposition(t, m, "embedkit_mint_duration_seconds")
		if !strings.Contains(out, `embedkit_mint_duration_seconds_bucket{kit="a",outcome="ok",le="1"} 0`) {
			t.Errorf("New kept a reference to the caller's labels or buckets:\n%s", out)
		}
	})
}

func TestNewPanicsOnBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  ekprom.Option
		want string
	}{
		{"namespace with a dash", ekprom.WithNamespace("my-app"), `WithNamespace("my-app")`},
		{"namespace with a colon", ekprom.WithNamespace("a:b"), `WithNamespace("a:b")`},
		{"namespace starting with a digit", ekprom.WithNamespace("1kit"), `WithNamespace("1kit")`},
		{"buckets out of order", ekprom.WithBuckets(0.1, 1, 0.5), "WithBuckets: bounds must be strictly increasing, but [2] = 0.5 follows 1"},
		{"duplicate bucket", ekprom.WithBuckets(1, 1), "WithBuckets"},
		{"NaN bucket", ekprom.WithBuckets(1, math.NaN()), "WithBuckets"},
		{"const label clashing with outcome", ekprom.WithConstLabels(prometheus.Labels{"outcome": "x"}), `label name "outcome" is the variable label`},
		{"const label not snake_case", ekprom.WithConstLabels(prometheus.Labels{"kit-name": "x"}), `label name "kit-name"`},
		{"const label starting with a digit", ekprom.WithConstLabels(prometheus.Labels{"2kit": "x"}), `label name "2kit"`},
		{"const label with the reserved prefix", ekprom.WithConstLabels(prometheus.Labels{"__kit": "x"}), "Prometheus reserves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "ekprom: ") || !strings.Contains(msg, tt.want) {
					t.Errorf("New panicked with %v, want a message starting with %q and containing %q", r, "ekprom: ", tt.want)
				}
			}()
			ekprom.New(tt.opt)
		})
	}
}

// TestConcurrentUse reports from many goroutines while others scrape;
// run it with -race.
func TestConcurrentUse(t *testing.T) {
	m := ekprom.New()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)

	const workers, each = 8, 600 // each a multiple of len(outcomes)
	outcomes := []middleware.Outcome{middleware.OutcomeOK, middleware.OutcomeUnavailable, "unknown"}
	var reporters, scrapers sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		scrapers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := reg.Gather(); err != nil {
					t.Errorf("Gather: %v", err)
					return
				}
			}
		})
	}
	for w := range workers {
		reporters.Go(func() {
			for i := range each {
				o := outcomes[i%len(outcomes)]
				m.Mint(o, time.Millisecond)
				m.Revoke(o, 0)
				m.RevokeQueueDepth(w)
			}
		})
	}
	reporters.Wait()
	close(stop)
	scrapers.Wait()

	perOutcome := float64(workers * each / len(outcomes))
	for _, o := range []string{"ok", "unavailable", ekprom.OutcomeOther} {
		if got := value(t, m, "embedkit_mints_total", o); got != perOutcome {
			t.Errorf(`mints_total{outcome=%q} = %v, want %v`, o, got, perOutcome)
		}
		if got := value(t, m, "embedkit_revokes_total", o); got != perOutcome {
			t.Errorf(`revokes_total{outcome=%q} = %v, want %v`, o, got, perOutcome)
		}
		if n := histogramCount(t, m, "embedkit_mint_duration_seconds", o); n != int(perOutcome) {
			t.Errorf(`mint_duration_seconds_count{outcome=%q} = %d, want %v`, o, n, perOutcome)
		}
	}
}

// TestReportDoesNotAllocate holds the promise of Metrics' doc: the kit
// calls it inline, on every page load.
func TestReportDoesNotAllocate(t *testing.T) {
	m := ekprom.New()
	allocs := testing.AllocsPerRun(1000, func() {
		m.Mint(middleware.OutcomeOK, 20*time.Millisecond)
		m.Mint(middleware.OutcomeDenied, 0)
		m.Revoke(middleware.OutcomeQueued, 20*time.Millisecond)
		m.Revoke(middleware.OutcomeExpired, 0)
		m.RevokeQueueDepth(3)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per round of reports, want 0", allocs)
	}
}

func BenchmarkMint(b *testing.B) {
	m := ekprom.New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Mint(middleware.OutcomeOK, 20*time.Millisecond)
		}
	})
}

func TestLogoutIncomplete(t *testing.T) {
	const help = "# HELP embedkit_logouts_incomplete_total Logouts that ended the session in the browser but could not record a step on the server, by step.\n# TYPE embedkit_logouts_incomplete_total counter\n"
	m := ekprom.New()
	compare(t, m, help+`
embedkit_logouts_incomplete_total{step="embeds"} 0
embedkit_logouts_incomplete_total{step="login"} 0
`, "embedkit_logouts_incomplete_total")
	m.LogoutIncomplete(middleware.LogoutStepLogin)
	m.LogoutIncomplete(middleware.LogoutStepLogin)
	m.LogoutIncomplete(middleware.LogoutStepEmbeds)
	m.LogoutIncomplete("made-up")
	compare(t, m, help+`
embedkit_logouts_incomplete_total{step="embeds"} 1
embedkit_logouts_incomplete_total{step="login"} 2
embedkit_logouts_incomplete_total{step="other"} 1
`, "embedkit_logouts_incomplete_total")
}
