package embedkit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// RetryPolicy says which failed attempts are tried again and how long to
// wait in between. Zero fields take the values of DefaultRetryPolicy.
type RetryPolicy struct {
	// MaxAttempts is the number of attempts, the first included. 1 turns
	// retries off.
	MaxAttempts int
	// MinDelay and MaxDelay bound the exponential backoff.
	MinDelay, MaxDelay time.Duration
	// MaxRetryAfter caps how long the client honours a Retry-After header.
	// When the platform asks for a longer wait, the call returns the 429 or
	// 503 at once (APIError.RetryAfter says how long it asked) instead of
	// sleeping past the cap.
	MaxRetryAfter time.Duration
	// Backoff returns the delay before each retry. The default is
	// DefaultBackoff, capped exponential with full jitter.
	Backoff BackoffFunc
	// CheckRetry decides whether an attempt is tried again. The default
	// is DefaultCheckRetry.
	CheckRetry CheckRetryFunc
}

// BackoffFunc returns the delay before retry number attempt (1 for the
// first retry), between min and max (RetryPolicy.MinDelay and MaxDelay).
// A Retry-After from the platform, within RetryPolicy.MaxRetryAfter, is
// honoured instead. DefaultBackoff is one.
type BackoffFunc func(attempt int, min, max time.Duration) time.Duration

// CheckRetryFunc decides whether an attempt is tried again. idempotent
// says whether the request may safely reach the platform twice; resp and
// err are the attempt's outcome (exactly one is non-nil). A custom one
// should answer false once ctx is done, as DefaultCheckRetry does.
type CheckRetryFunc func(ctx context.Context, idempotent bool, resp *http.Response, err error) bool

// DefaultRetryPolicy returns the policy a Client uses unless WithRetry
// says otherwise: 4 attempts, backoff from 200ms up to 5s with full
// jitter, Retry-After honoured up to 30s, DefaultCheckRetry.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:   4,
		MinDelay:      200 * time.Millisecond,
		MaxDelay:      5 * time.Second,
		MaxRetryAfter: 30 * time.Second,
		Backoff:       DefaultBackoff,
		CheckRetry:    DefaultCheckRetry,
	}
}

// withDefaults fills zero fields from DefaultRetryPolicy and checks the
// others.
func (p RetryPolicy) withDefaults() (RetryPolicy, error) {
	d := DefaultRetryPolicy()
	if p.MaxAttempts < 0 || p.MinDelay < 0 || p.MaxDelay < 0 || p.MaxRetryAfter < 0 {
		return p, errors.New("embedkit: retry policy: negative attempts or delays")
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.MinDelay == 0 {
		p.MinDelay = d.MinDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = max(d.MaxDelay, p.MinDelay)
	}
	if p.MaxDelay < p.MinDelay {
		return p, errors.New("embedkit: retry policy: MaxDelay is below MinDelay")
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	if p.Backoff == nil {
		p.Backoff = d.Backoff
	}
	if p.CheckRetry == nil {
		p.CheckRetry = d.CheckRetry
	}
	return p, nil
}

// Backoff is capped exponential backoff with full jitter: attempt n waits
// a uniformly random time in [0, min(Max, Min·2^(n-1))]. It is the one
// schedule of the kit: the client's retries (RetryPolicy, through
// DefaultBackoff) and the middleware's revoke retries
// (middleware.Config.Revoke.Backoff) both use it. Full jitter spreads the
// retries of many callers, so that they do not come back in step.
type Backoff struct {
	// Min is the ceiling of the first attempt's wait; Max caps every
	// ceiling. A Min of zero or less counts as 1 ms; a Max below Min
	// counts as Min.
	Min, Max time.Duration
	// Rand draws a uniform integer in [0, n). Nil means math/rand/v2's
	// Int64N. It must be safe for concurrent use when the Backoff is.
	Rand func(n int64) int64
}

// Delay returns the wait before attempt number attempt (from 1; lower
// counts as 1).
func (b Backoff) Delay(attempt int) time.Duration {
	draw := b.Rand
	if draw == nil {
		draw = rand.Int64N
	}
	return jitter(attempt, b.Min, b.Max, draw)
}

// Ceiling returns the longest wait Delay can return for attempt.
func (b Backoff) Ceiling(attempt int) time.Duration {
	return jitter(attempt, b.Min, b.Max, func(n int64) int64 { return n - 1 })
}

// DefaultBackoff is Backoff{Min: min, Max: max}.Delay(attempt), the
// RetryPolicy.Backoff a Client uses by default.
func DefaultBackoff(attempt int, min, max time.Duration) time.Duration {
	return Backoff{Min: min, Max: max}.Delay(attempt)
}

// JitterBackoff returns DefaultBackoff drawing from src instead of the
// global source, so a seeded source gives repeatable delays. The result is
// safe for concurrent use.
func JitterBackoff(src rand.Source) func(attempt int, min, max time.Duration) time.Duration {
	r := rand.New(src)
	var mu sync.Mutex
	draw := func(n int64) int64 {
		mu.Lock()
		defer mu.Unlock()
		return r.Int64N(n)
	}
	return func(attempt int, min, max time.Duration) time.Duration {
		return Backoff{Min: min, Max: max, Rand: draw}.Delay(attempt)
	}
}

// jitter computes the capped exponential ceiling and draws below it.
func jitter(attempt int, lo, hi time.Duration, draw func(int64) int64) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	if lo <= 0 {
		lo = time.Millisecond
	}
	hi = max(hi, lo)
	ceil := lo
	for i := 1; i < attempt && ceil < hi; i++ {
		ceil *= 2
	}
	if ceil > hi {
		ceil = hi
	}
	return time.Duration(draw(int64(ceil) + 1))
}

// DefaultCheckRetry is the default retry decision.
//
// Idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS, and session
// revoke, which answers 204 for unknown ids) are retried on 429, on every
// 5xx except 501 Not Implemented and 505, and on connection errors and
// timeouts. Other requests (the POSTs that
// mint a session or a token, or submit an export) are retried only when
// the platform cannot have acted on them: when the connection could not be
// made at all (refused, DNS failure) and on 429. They are never retried
// after a 5xx or after a connection failed mid-request, because a blind
// retry could mint a second session.
//
// 400, 401, 403, 404, 409, 422, 501 and every other status are never
// retried, nor a cancelled context or a TLS certificate error.
func DefaultCheckRetry(ctx context.Context, idempotent bool, resp *http.Response, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, ErrCircuitOpen) || errors.Is(err, errRedirect) {
			return false
		}
		var verifyErr *tls.CertificateVerificationError
		var authErr x509.UnknownAuthorityError
		var hostErr x509.HostnameError
		var invalidErr x509.CertificateInvalidError
		if errors.As(err, &verifyErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) || errors.As(err, &invalidErr) {
			return false
		}
		if idempotent {
			return true
		}
		return isDialError(err)
	}
	if resp == nil {
		return false
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return idempotent && resp.StatusCode >= 500 && resp.StatusCode <= 599
}

// isDialError reports whether err happened while opening the connection,
// before any byte of the request was written.
func isDialError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Op == "dial"
	}
	return false
}

// isIdempotentMethod reports whether method may be repeated safely.
func isIdempotentMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// retryAfterStatus reports whether a Retry-After header is read for code.
func retryAfterStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// fitsDeadline reports whether waiting d still leaves time before the
// context's deadline.
func fitsDeadline(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	return time.Until(dl) > d
}
