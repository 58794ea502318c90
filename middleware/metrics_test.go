package middleware

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// TestOutcomeVocabulary holds the one list of outcomes that the metrics
// adapters build their series from to the Outcome constants: every
// constant is reported for some operation, every listed outcome is Known,
// a timed outcome is one of its operation's outcomes, and the lists come
// back as new slices each call.
func TestOutcomeVocabulary(t *testing.T) {
	constants := []Outcome{OutcomeOK, OutcomeDenied, OutcomeInvalid, OutcomeUnavailable, OutcomeError, OutcomeQueued, OutcomeExpired, OutcomeLimited}
	reported := map[Outcome]bool{}
	for _, op := range []Operation{OpMint, OpRevoke} {
		all, timed := OutcomesOf(op)
		if len(all) == 0 {
			t.Errorf("OutcomesOf(%s) lists no outcome", op)
		}
		for _, o := range all {
			if !o.Known() {
				t.Errorf("OutcomesOf(%s) lists %q, which is not Known", op, o)
			}
			reported[o] = true
		}
		for _, o := range timed {
			if !slices.Contains(all, o) {
				t.Errorf("OutcomesOf(%s): timed outcome %q is not one of its outcomes", op, o)
			}
		}
		all[0] = "changed"
		if again, _ := OutcomesOf(op); again[0] == "changed" {
			t.Errorf("OutcomesOf(%s) hands out a shared slice", op)
		}
	}
	for _, o := range constants {
		if !o.Known() || !reported[o] {
			t.Errorf("outcome %q: Known %v, reported for an operation %v; want both", o, o.Known(), reported[o])
		}
	}
	if Outcome("other").Known() {
		t.Error(`Outcome("other") is Known`)
	}
	if a, b := OutcomesOf("nope"); a != nil || b != nil {
		t.Errorf("OutcomesOf of an unknown operation = %v, %v; want none", a, b)
	}
	b := DurationBuckets()
	if !slices.IsSorted(b) || b[0] <= 0 || b[len(b)-1] != 30 {
		t.Errorf("DurationBuckets = %v, want increasing, positive, up to 30 s", b)
	}
	b[0] = -1
	if DurationBuckets()[0] == -1 {
		t.Error("DurationBuckets hands out a shared slice")
	}
}

// TestMintOutcome: a failed mint's outcome comes from the kind of its
// error, through any wrapping, and OutcomeOf reads it back from the error
// a mint returns.
func TestMintOutcome(t *testing.T) {
	tests := []struct {
		err  error
		want Outcome
	}{
		{fmt.Errorf("%w: no", ErrDenied), OutcomeDenied},
		{fmt.Errorf("wrapped: %w", embedkit.ErrForbidden), OutcomeDenied},
		{&mintLimitedError{wait: time.Second}, OutcomeLimited},
		{fmt.Errorf("%w: bad target", ErrMisconfigured), OutcomeInvalid},
		{fmt.Errorf("x: %w", embedkit.ErrInvalidRequest), OutcomeInvalid},
		{fmt.Errorf("%w: down", ErrStore), OutcomeUnavailable},
		{fmt.Errorf("x: %w", embedkit.ErrServer), OutcomeUnavailable},
		{embedkit.ErrRateLimited, OutcomeUnavailable},
		{embedkit.ErrCircuitOpen, OutcomeUnavailable},
		{context.DeadlineExceeded, OutcomeUnavailable},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, OutcomeUnavailable},
		{embedkit.ErrUnauthorized, OutcomeError},
		{embedkit.ErrUnexpectedResponse, OutcomeError},
		{errors.New("other"), OutcomeError},
	}
	for _, tt := range tests {
		if got := mintOutcome(tt.err); got != tt.want {
			t.Errorf("mintOutcome(%v) = %q, want %q", tt.err, got, tt.want)
		}
		wrapped := fmt.Errorf("handler: %w", &mintError{outcome: tt.want, err: tt.err})
		if got := OutcomeOf(wrapped); got != tt.want || !errors.Is(wrapped, tt.err) {
			t.Errorf("OutcomeOf(%v) = %q, want %q and the cause kept", wrapped, got, tt.want)
		}
	}
	if got := OutcomeOf(ErrNoViewer); got != "" {
		t.Errorf("OutcomeOf(ErrNoViewer) = %q, want none", got)
	}
}
