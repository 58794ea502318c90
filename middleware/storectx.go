package middleware

import (
	"context"
	"sync"
	"time"
)

// detached returns a context for a store call that must finish even if
// the request that led to it is cancelled: it carries parent's values but
// not its cancellation, and it ends timeout from now, as
// context.WithTimeout(context.WithoutCancel(parent), timeout) would. Call
// the returned stop when the call is done.
//
// Its timer starts only when something asks for Done, which a network
// store does and an in-memory one (the default) never does: an iframe
// load through the memory store then pays for no timer and no cancel
// context. Err, Deadline and Value work without it.
func detached(parent context.Context, timeout time.Duration) (context.Context, func()) {
	c := &deadlineCtx{Context: context.WithoutCancel(parent), deadline: time.Now().Add(timeout)}
	return c, c.stop
}

// deadlineCtx is a context whose deadline is fixed and whose Done channel
// and timer are made on first use.
type deadlineCtx struct {
	context.Context // values only: a WithoutCancel context
	deadline        time.Time

	mu    sync.Mutex
	done  chan struct{} // made by the first Done
	timer *time.Timer   // ends the context at the deadline, once Done is made
	err   error         // why the context ended; nil while it runs
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Done returns a channel that is closed when the context ends: at the
// deadline, or at stop.
func (c *deadlineCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.err == nil {
		if d := time.Until(c.deadline); d > 0 {
			c.timer = time.AfterFunc(d, func() {
				c.mu.Lock()
				defer c.mu.Unlock()
				c.end(context.DeadlineExceeded)
			})
			return c.done
		}
		c.err = context.DeadlineExceeded
	}
	close(c.done)
	return c.done
}

// Err is nil while the context runs, then context.DeadlineExceeded when
// the deadline ended it, or context.Canceled when stop did. Before anyone
// asked for Done, the deadline is read from the clock.
func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.done == nil && !time.Now().Before(c.deadline) {
		c.err = context.DeadlineExceeded
	}
	return c.err
}

// end ends the context with err, unless it has ended. c.mu must be held.
func (c *deadlineCtx) end(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
}

// stop ends the context and releases its timer.
func (c *deadlineCtx) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.end(context.Canceled)
}
