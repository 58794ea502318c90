package embedkit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestBackoffBounds checks the jittered delays with a seeded source: each
// within [0, min(max, min·2^(n-1))], spread out, and repeatable.
func TestBackoffBounds(t *testing.T) {
	const lo, hi = 100 * time.Millisecond, 2 * time.Second
	b := JitterBackoff(rand.NewPCG(1, 2))
	for attempt := 1; attempt <= 10; attempt++ {
		ceil := min(lo<<(attempt-1), hi)
		var sum time.Duration
		minSeen, maxSeen := time.Duration(1<<62), time.Duration(0)
		const n = 2000
		for range n {
			d := b(attempt, lo, hi)
			if d < 0 || d > ceil {
				t.Fatalf("attempt %d: delay %v outside [0, %v]", attempt, d, ceil)
			}
			sum += d
			minSeen, maxSeen = min(minSeen, d), max(maxSeen, d)
		}
		mean := sum / n
		if mean < ceil*4/10 || mean > ceil*6/10 {
			t.Errorf("attempt %d: mean %v, want about %v (full jitter)", attempt, mean, ceil/2)
		}
		if minSeen > ceil/10 || maxSeen < ceil*9/10 {
			t.Errorf("attempt %d: delays %v..%v do not spread over [0, %v]", attempt, minSeen, maxSeen, ceil)
		}
	}
	b1, b2 := JitterBackoff(rand.NewPCG(7, 7)), JitterBackoff(rand.NewPCG(7, 7))
	for i := range 20 {
		if x, y := b1(i, lo, hi), b2(i, lo, hi); x != y {
			t.Fatalf("same seed, different delays: %v %v", x, y)
		}
	}
	// Defaults: attempt < 1 is the first, zero min is a millisecond.
	if d := b(0, 0, time.Second); d > time.Millisecond {
		t.Errorf("b(0, 0, 1s) = %v", d)
	}
	if d := DefaultBackoff(3, lo, hi); d < 0 || d > 4*lo {
		t.Errorf("DefaultBackoff(3) = %v", d)
	}
	// A Max below Min counts as Min.
	if c := (Backoff{Min: time.Second}).Ceiling(3); c != time.Second {
		t.Errorf("Backoff{Min: 1s}.Ceiling(3) = %v, want 1s", c)
	}
}

// TestBackoffType: the ceiling doubles from Min to Max, Delay draws below
// it through Rand, and the client's DefaultBackoff is the same schedule.
func TestBackoffType(t *testing.T) {
	b := Backoff{Min: 5 * time.Second, Max: time.Minute}
	for attempt, want := range map[int]time.Duration{0: 5 * time.Second, 1: 5 * time.Second, 2: 10 * time.Second, 4: 40 * time.Second, 5: time.Minute, 60: time.Minute} {
		if got := b.Ceiling(attempt); got != want {
			t.Errorf("Ceiling(%d) = %v, want %v", attempt, got, want)
		}
	}
	var asked int64
	top := Backoff{Min: 5 * time.Second, Max: time.Minute, Rand: func(n int64) int64 { asked = n; return n - 1 }}
	if d := top.Delay(3); d != 20*time.Second || asked != int64(20*time.Second)+1 {
		t.Errorf("Delay(3) with the top draw = %v (asked for %d)", d, asked)
	}
	zero := Backoff{Min: 5 * time.Second, Max: time.Minute, Rand: func(int64) int64 { return 0 }}
	if d := zero.Delay(3); d != 0 {
		t.Errorf("Delay(3) with the bottom draw = %v", d)
	}
	for range 100 {
		if d, c := DefaultBackoff(4, 5*time.Second, time.Minute), b.Ceiling(4); d < 0 || d > c {
			t.Fatalf("DefaultBackoff(4) = %v, outside [0, %v]", d, c)
		}
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	p, err := RetryPolicy{}.withDefaults()
	d := DefaultRetryPolicy()
	if err != nil || p.MaxAttempts != d.MaxAttempts || p.MinDelay != d.MinDelay || p.MaxDelay != d.MaxDelay || p.MaxRetryAfter != d.MaxRetryAfter || p.Backoff == nil || p.CheckRetry == nil {
		t.Fatalf("withDefaults = %+v, %v", p, err)
	}
	p, err = RetryPolicy{MinDelay: 10 * time.Second}.withDefaults()
	if err != nil || p.MaxDelay != 10*time.Second {
		t.Errorf("MaxDelay below a large MinDelay: %v, %v", p.MaxDelay, err)
	}
	if _, err := (RetryPolicy{MaxRetryAfter: -1}).withDefaults(); err == nil {
		t.Error("negative accepted")
	}
	if d.MaxRetryAfter > 60*time.Second || d.MaxAttempts > 5 {
		t.Errorf("unsafe defaults: %+v", d)
	}
}

func TestDefaultCheckRetry(t *testing.T) {
	ctx := context.Background()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	dns := &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}
	cert := fmt.Errorf("tls: %w", x509.UnknownAuthorityError{})
	certPtr := fmt.Errorf("tls: %w", &tls.CertificateVerificationError{Err: errors.New("bad")})
	tests := []struct {
		name       string
		idempotent bool
		status     int
		err        error
		want       bool
	}{
		{"idempotent dial", true, 0, dial, true},
		{"idempotent reset", true, 0, read, true},
		{"idempotent timeout", true, 0, context.DeadlineExceeded, true},
		{"idempotent canceled", true, 0, context.Canceled, false},
		{"idempotent circuit open", true, 0, ErrCircuitOpen, false},
		{"idempotent bad cert", true, 0, certPtr, false},
		{"idempotent bad cert value", true, 0, cert, false},
		{"mint dial", false, 0, dial, true},
		{"mint dns", false, 0, dns, true},
		{"mint reset", false, 0, read, false},
		{"mint timeout", false, 0, context.DeadlineExceeded, false},
		{"mint 429", false, 429, nil, true},
		{"mint 503", false, 503, nil, false},
		{"mint 502", false, 502, nil, false},
		{"get 503", true, 503, nil, true},
		{"get 500", true, 500, nil, true},
		{"get 505", true, 505, nil, false},
		{"post 500", false, 500, nil, false},
		{"get 501", true, 501, nil, false},
		{"get 400", true, 400, nil, false},
		{"get 200", true, 200, nil, false},
		{"nothing", true, 0, nil, false},
	}
	for _, tt := range tests {
		var resp *http.Response
		if tt.status != 0 {
			resp = &http.Response{StatusCode: tt.status}
		}
		if got := DefaultCheckRetry(ctx, tt.idempotent, resp, tt.err); got != tt.want {
			t.Errorf("%s: DefaultCheckRetry = %v, want %v", tt.name, got, tt.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if DefaultCheckRetry(cctx, true, &http.Response{StatusCode: 503}, nil) {
		t.Error("retried on a cancelled context")
	}
}

func TestIsIdempotentMethod(t *testing.T) {
	for m, want := range map[string]bool{"GET": true, "HEAD": true, "PUT": true, "DELETE": true, "OPTIONS": true, "POST": false, "PATCH": false} {
		if isIdempotentMethod(m) != want {
			t.Errorf("%s: %v", m, !want)
		}
	}
}
