package middleware

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// TestDetachedBehavesLikeWithTimeout holds detached to what
// context.WithTimeout(context.WithoutCancel(parent), d) does, for each
// order in which a caller may use it.
func TestDetachedBehavesLikeWithTimeout(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	cancelParent() // a cancelled request must not end the store call

	tests := []struct {
		name    string
		timeout time.Duration
		use     func(t *testing.T, ctx context.Context, stop func()) error
		want    error
	}{
		{"running, Done never asked", time.Hour, func(t *testing.T, ctx context.Context, stop func()) error {
			return ctx.Err()
		}, nil},
		{"running, Done asked", time.Hour, func(t *testing.T, ctx context.Context, stop func()) error {
			select {
			case <-ctx.Done():
				t.Fatal("Done closed before the deadline")
			default:
			}
			return ctx.Err()
		}, nil},
		{"deadline passed, Done never asked", time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			time.Sleep(5 * time.Millisecond)
			return ctx.Err()
		}, context.DeadlineExceeded},
		{"deadline passed, Done asked after", time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			time.Sleep(5 * time.Millisecond)
			<-ctx.Done() // must be closed already
			return ctx.Err()
		}, context.DeadlineExceeded},
		{"Done asked, then the deadline passes", 5 * time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			<-ctx.Done()
			return ctx.Err()
		}, context.DeadlineExceeded},
		{"Err read after the deadline, Done asked after", time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			time.Sleep(5 * time.Millisecond)
			if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Err = %v", err)
			}
			<-ctx.Done()
			return ctx.Err()
		}, context.DeadlineExceeded},
		{"stopped, Done asked before", time.Hour, func(t *testing.T, ctx context.Context, stop func()) error {
			done := ctx.Done()
			stop()
			<-done
			return ctx.Err()
		}, context.Canceled},
		{"stopped, Done asked after", time.Hour, func(t *testing.T, ctx context.Context, stop func()) error {
			stop()
			<-ctx.Done()
			return ctx.Err()
		}, context.Canceled},
		{"stopped after the deadline", time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			<-ctx.Done()
			stop()
			return ctx.Err()
		}, context.DeadlineExceeded},
		{"a context derived from it", 5 * time.Millisecond, func(t *testing.T, ctx context.Context, stop func()) error {
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			<-child.Done()
			return child.Err()
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			ctx, stop := detached(parent, tt.timeout)
			defer stop()
			if got := ctx.Value(ctxKey{}); got != "v" {
				t.Errorf("Value = %v, want the parent's", got)
			}
			dl, ok := ctx.Deadline()
			if !ok || dl.Before(before.Add(tt.timeout)) || dl.After(time.Now().Add(tt.timeout)) {
				t.Errorf("Deadline = %v, %v; want %v from now", dl, ok, tt.timeout)
			}
			if err := tt.use(t, ctx, stop); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestDetachedStartsNoTimerUnlessAsked checks the point of detached: a
// store that never asks for Done (the memory store) costs no timer, and
// stop releases the timer of one that does.
func TestDetachedStartsNoTimerUnlessAsked(t *testing.T) {
	ctx, stop := detached(context.Background(), time.Hour)
	_ = ctx.Err()
	_, _ = ctx.Deadline()
	stop()
	if c := ctx.(*deadlineCtx); c.timer != nil || c.done != nil {
		t.Fatal("a timer or channel was made although nobody asked for Done")
	}

	ctx, stop = detached(context.Background(), time.Hour)
	<-func() <-chan struct{} { d := ctx.Done(); stop(); return d }()
	if c := ctx.(*deadlineCtx); c.timer == nil || c.timer.Stop() {
		t.Fatal("stop left the timer running")
	}
}
