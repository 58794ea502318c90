package redisstore

import (
	"context"
	"fmt"
	"time"
)

// bounded runs f, one method's talk with Redis, under a deadline of
// timeout (WithTimeout, DefaultTimeout), and returns no later than the
// deadline whatever f does. Every method of Store and EndedLogins goes
// through it: a method added later is bounded by wrapping its body in
// one call.
//
// The deadline is on f's context, which go-redis honours only with
// ContextTimeoutEnabled: by default it waits on its own ReadTimeout
// and retries (MaxRetries), 35 to 40 seconds a call against a node that
// hangs (a stopped process, a network partition). So f runs in its own
// goroutine and bounded returns at the deadline without it; f finishes in
// the background when go-redis gives up, and its answer is dropped. A
// command the node reads after the deadline is still carried out, as with
// any timeout: the caller must not assume that a write it gave up on did
// not happen.
func bounded[T any](parent context.Context, timeout time.Duration, f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer cancel()
		v, err := f(ctx)
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.v, a.err
	case <-ctx.Done():
		select {
		case a := <-done: // f answered as the deadline came
			return a.v, a.err
		default:
		}
		var zero T
		if err := parent.Err(); err != nil {
			return zero, fmt.Errorf("redisstore: the caller's context ended before Redis answered: %w", err)
		}
		return zero, fmt.Errorf("redisstore: no answer from Redis within %s (WithTimeout): %w", timeout, context.DeadlineExceeded)
	}
}

// boundedErr is bounded for a call that answers only an error.
func boundedErr(ctx context.Context, timeout time.Duration, f func(ctx context.Context) error) error {
	_, err := bounded(ctx, timeout, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}
