package embedkit

import (
	"sync"
	"time"
)

// BreakerSettings configure the circuit breaker of WithCircuitBreaker.
// Zero fields take the defaults.
type BreakerSettings struct {
	// FailureThreshold is the number of consecutive failed attempts that
	// opens the circuit. Default 5.
	FailureThreshold int
	// CoolDown is how long the circuit stays open before one trial call is
	// let through. Default 30s.
	CoolDown time.Duration
	// OnStateChange, if set, is called (synchronously, without locks held)
	// whenever the state changes.
	OnStateChange func(from, to BreakerState)
}

// BreakerState is the state of the circuit breaker.
type BreakerState int

// The breaker states.
const (
	// BreakerClosed lets every call through.
	BreakerClosed BreakerState = iota
	// BreakerOpen fails every call with ErrCircuitOpen.
	BreakerOpen
	// BreakerHalfOpen lets one trial call through; its outcome closes or
	// reopens the circuit.
	BreakerHalfOpen
)

// String names the state.
func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "unknown"
}

// outcome is what an attempt tells the breaker.
type outcome int

const (
	// outcomeSuccess: the platform answered (2xx, 3xx or 4xx).
	outcomeSuccess outcome = iota
	// outcomeFailure: a 5xx, a connection error or a timeout.
	outcomeFailure
	// outcomeNeutral: the caller cancelled; says nothing about the platform.
	outcomeNeutral
)

// breaker is a consecutive-failure circuit breaker with one trial call in
// the half-open state. It is safe for concurrent use.
type breaker struct {
	threshold int
	coolDown  time.Duration
	now       func() time.Time
	onChange  func(from, to BreakerState)

	mu       sync.Mutex
	state    BreakerState
	failures int
	openedAt time.Time
	trial    bool // a half-open trial is in flight
}

// newBreaker applies the defaults of s.
func newBreaker(s BreakerSettings, now func() time.Time) *breaker {
	if s.FailureThreshold <= 0 {
		s.FailureThreshold = 5
	}
	if s.CoolDown <= 0 {
		s.CoolDown = 30 * time.Second
	}
	return &breaker{threshold: s.FailureThreshold, coolDown: s.CoolDown, now: now, onChange: s.OnStateChange}
}

// allow reports whether an attempt may go out. When it returns true the
// caller must call done exactly once with the attempt's outcome.
func (b *breaker) allow() (done func(outcome), ok bool) {
	b.mu.Lock()
	from := b.state
	switch b.state {
	case BreakerOpen:
		if b.now().Sub(b.openedAt) < b.coolDown {
			b.mu.Unlock()
			return nil, false
		}
		b.state = BreakerHalfOpen
		b.trial = true
	case BreakerHalfOpen:
		if b.trial {
			b.mu.Unlock()
			return nil, false
		}
		b.trial = true
	}
	isTrial := b.state == BreakerHalfOpen
	to := b.state
	b.mu.Unlock()
	b.changed(from, to)

	var once sync.Once
	return func(o outcome) { once.Do(func() { b.record(o, isTrial) }) }, true
}

// record applies an attempt's outcome.
func (b *breaker) record(o outcome, isTrial bool) {
	b.mu.Lock()
	from := b.state
	if isTrial {
		b.trial = false
	}
	switch o {
	case outcomeSuccess:
		b.failures = 0
		if b.state == BreakerHalfOpen && isTrial {
			b.state = BreakerClosed
		}
	case outcomeFailure:
		b.failures++
		switch {
		case b.state == BreakerHalfOpen && isTrial:
			b.state = BreakerOpen
			b.openedAt = b.now()
		case b.state == BreakerClosed && b.failures >= b.threshold:
			b.state = BreakerOpen
			b.openedAt = b.now()
		}
	}
	to := b.state
	b.mu.Unlock()
	b.changed(from, to)
}

// State returns the current state (an open circuit whose cool-down ended
// still reports open until the next call tries it).
func (b *breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// retryIn is how long an open circuit stays open.
func (b *breaker) retryIn() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != BreakerOpen {
		return 0
	}
	return max(b.coolDown-b.now().Sub(b.openedAt), 0)
}

func (b *breaker) changed(from, to BreakerState) {
	if from != to && b.onChange != nil {
		b.onChange(from, to)
	}
}
