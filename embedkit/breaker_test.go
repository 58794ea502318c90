package embedkit

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedkit/embedkit/internal/testkit"
)

type fakeClock = testkit.Clock

func newFakeClock() *fakeClock {
	return testkit.NewClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
}

func TestBreakerStates(t *testing.T) {
	clk := newFakeClock()
	var changes []string
	b := newBreaker(BreakerSettings{FailureThreshold: 3, CoolDown: 10 * time.Second, OnStateChange: func(from, to BreakerState) {
		changes = append(changes, from.String()+">"+to.String())
	}}, clk.Now)

	fail := func() {
		t.Helper()
		done, ok := b.allow()
		if !ok {
			t.Fatal("refused while closed")
		}
		done(outcomeFailure)
	}
	fail()
	fail()
	// A success resets the count.
	done, _ := b.allow()
	done(outcomeSuccess)
	fail()
	fail()
	if b.State() != BreakerClosed {
		t.Fatal("opened before threshold")
	}
	// Neutral outcomes (cancelled by the caller) do not count either way.
	done, _ = b.allow()
	done(outcomeNeutral)
	fail()
	if b.State() != BreakerOpen {
		t.Fatalf("state = %v after 3 consecutive failures", b.State())
	}
	if _, ok := b.allow(); ok {
		t.Fatal("open breaker let a call through")
	}
	if b.retryIn() != 10*time.Second {
		t.Errorf("retryIn = %v", b.retryIn())
	}

	clk.Advance(9 * time.Second)
	if _, ok := b.allow(); ok {
		t.Fatal("let through before the cool-down ended")
	}
	clk.Advance(time.Second)
	trial, ok := b.allow()
	if !ok || b.State() != BreakerHalfOpen {
		t.Fatal("no trial after the cool-down")
	}
	if _, ok := b.allow(); ok {
		t.Fatal("a second call went through during the trial")
	}
	trial(outcomeFailure)
	if b.State() != BreakerOpen {
		t.Fatal("failed trial did not reopen")
	}
	clk.Advance(10 * time.Second)
	trial, _ = b.allow()
	trial(outcomeNeutral) // cancelled trial: stays half-open, slot freed
	if b.State() != BreakerHalfOpen {
		t.Fatalf("state after neutral trial = %v", b.State())
	}
	trial, ok = b.allow()
	if !ok {
		t.Fatal("slot not freed after a neutral trial")
	}
	trial(outcomeSuccess)
	trial(outcomeFailure) // done is once-only
	if b.State() != BreakerClosed || b.retryIn() != 0 {
		t.Fatalf("state after successful trial = %v", b.State())
	}
	want := []string{"closed>open", "open>half-open", "half-open>open", "open>half-open", "half-open>closed"}
	if len(changes) != len(want) {
		t.Fatalf("changes = %v, want %v", changes, want)
	}
	for i := range want {
		if changes[i] != want[i] {
			t.Errorf("changes = %v, want %v", changes, want)
		}
	}
	if BreakerState(9).String() != "unknown" {
		t.Error("unknown state name")
	}
}

func TestBreakerDefaults(t *testing.T) {
	b := newBreaker(BreakerSettings{}, time.Now)
	if b.threshold != 5 || b.coolDown != 30*time.Second {
		t.Errorf("defaults = %d, %v", b.threshold, b.coolDown)
	}
}

func TestBreakerConcurrent(t *testing.T) {
	clk := newFakeClock()
	b := newBreaker(BreakerSettings{FailureThreshold: 1, CoolDown: time.Second}, clk.Now)
	done, _ := b.allow()
	done(outcomeFailure)
	clk.Advance(time.Second)
	var through atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, ok := b.allow(); ok {
				through.Add(1)
			}
		})
	}
	wg.Wait()
	if through.Load() != 1 {
		t.Errorf("%d trials in half-open, want 1", through.Load())
	}
}

// TestClientBreaker drives the breaker through the Client: 5xx count,
// 4xx and caller cancellation do not, an open circuit does not touch the
// network, a trial after the cool-down closes it.
func TestClientBreaker(t *testing.T) {
	clk := newFakeClock()
	var states []BreakerState
	c, mux, _ := setup(t,
		WithRetry(RetryPolicy{MaxAttempts: 1}),
		WithClock(clk.Now),
		WithCircuitBreaker(BreakerSettings{FailureThreshold: 3, CoolDown: time.Minute, OnStateChange: func(_, to BreakerState) { states = append(states, to) }}),
	)
	var calls atomic.Int32
	status := atomic.Int32{}
	status.Store(500)
	mux.HandleFunc("GET /api/v1/spec", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, int(status.Load()), `{}`)
	})
	ctx := context.Background()

	// 4xx answers never open it.
	status.Store(404)
	for range 10 {
		c.Spec(ctx)
	}
	// A cancelled context does not count.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for range 10 {
		c.Spec(cctx)
	}
	if c.BreakerState() != BreakerClosed {
		t.Fatal("4xx or cancellation opened the circuit")
	}

	status.Store(500)
	for range 3 {
		if _, err := c.Spec(ctx); !errors.Is(err, ErrServer) {
			t.Fatal(err)
		}
	}
	if c.BreakerState() != BreakerOpen {
		t.Fatal("not open after 3 failures")
	}
	before := calls.Load()
	_, err := c.Spec(ctx)
	if !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("err = %v, want ErrCircuitOpen", err)
	}
	if calls.Load() != before {
		t.Fatal("open circuit touched the network")
	}

	clk.Advance(time.Minute)
	status.Store(200)
	if _, err := c.Spec(ctx); err != nil {
		t.Fatalf("trial: %v", err)
	}
	if c.BreakerState() != BreakerClosed {
		t.Fatalf("state after trial = %v", c.BreakerState())
	}
	if len(states) != 3 || states[0] != BreakerOpen || states[1] != BreakerHalfOpen || states[2] != BreakerClosed {
		t.Errorf("states = %v", states)
	}
}

// TestClientBreakerStopsRetries: when the circuit opens during a retry
// loop, the loop stops with the last real error.
func TestClientBreakerStopsRetries(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 10}), WithCircuitBreaker(BreakerSettings{FailureThreshold: 2}))
	recordSleeps(c)
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/spec", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
	})
	_, err := c.Spec(context.Background())
	if !errors.Is(err, ErrServer) || calls.Load() != 2 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}

// TestClientBreakerConnectionErrors: connection failures count.
func TestClientBreakerConnectionErrors(t *testing.T) {
	c, err := New("http://127.0.0.1:1", testKey, WithRetry(RetryPolicy{MaxAttempts: 1}), WithCircuitBreaker(BreakerSettings{FailureThreshold: 2}))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Spec(context.Background()); err == nil || errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("err = %v", err)
		}
	}
	if _, err := c.Spec(context.Background()); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("err = %v, want ErrCircuitOpen", err)
	}
}
