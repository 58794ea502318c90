package embedkit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// This file holds the options of New.

// Option configures a Client in New.
type Option func(*Client) error

// WithHTTPClient makes the Client send requests with hc instead of its own
// http.Client (which has dial, TLS, response-header and 30s overall
// timeouts and keeps up to 100 idle connections per host). hc's Timeout, if
// any, also bounds streamed downloads (audit export, export files).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("embedkit: WithHTTPClient: nil client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithUserAgent puts product (for example "acme-portal/2.1") in front of
// the kit's own "embedkit-go/<version>" in the User-Agent header.
func WithUserAgent(product string) Option {
	return func(c *Client) error {
		if strings.ContainsAny(product, "\r\n\x00") {
			return errors.New("embedkit: WithUserAgent: control characters in user agent")
		}
		if product = strings.TrimSpace(product); product != "" {
			c.userAgent = product + " " + defaultUserAgent
		}
		return nil
	}
}

// WithRetry replaces the retry policy. Zero fields of p take the values of
// DefaultRetryPolicy; RetryPolicy{MaxAttempts: 1} turns retries off.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) error {
		p, err := p.withDefaults()
		if err != nil {
			return err
		}
		c.retry = p
		return nil
	}
}

// WithLogger makes the Client write one debug record per attempt (method,
// path template, status, attempt, latency) and a warning on each circuit
// breaker change. Secrets are never logged. The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		if l == nil {
			return errors.New("embedkit: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithAPIKeyHeader sets the Authorization scheme used on the embed
// endpoints (/api/v1/embed/...): "Bearer" (the default) or "Api-Key", the
// form the platform's embedding documentation shows. Every other endpoint
// always uses Bearer.
func WithAPIKeyHeader(scheme string) Option {
	return func(c *Client) error {
		switch scheme {
		case "Bearer", "Api-Key":
			c.embedScheme = scheme
			return nil
		}
		return fmt.Errorf("embedkit: WithAPIKeyHeader: scheme %q is neither \"Bearer\" nor \"Api-Key\"", scheme)
	}
}

// WithCircuitBreaker turns on the circuit breaker, which is off by
// default. After s.FailureThreshold consecutive failed attempts (5xx,
// connection errors, timeouts; not 4xx and not calls whose context the
// caller cancelled), every call fails at once with ErrCircuitOpen without
// touching the network. After s.CoolDown one trial call goes through: its
// success closes the circuit, its failure opens it for another cool-down.
// WithCircuitBreaker(BreakerSettings{}) uses the defaults (5 failures, 30s).
func WithCircuitBreaker(s BreakerSettings) Option {
	return func(c *Client) error {
		if s.FailureThreshold < 0 || s.CoolDown < 0 {
			return errors.New("embedkit: WithCircuitBreaker: negative threshold or cool-down")
		}
		c.breakerSet = &s
		return nil
	}
}

// WithClock replaces time.Now for session expiry estimates, export job
// expiry and the circuit breaker's cool-down. Sleeps between retries and
// polls use real timers.
func WithClock(now func() time.Time) Option {
	return func(c *Client) error {
		if now == nil {
			return errors.New("embedkit: WithClock: nil clock")
		}
		c.now = now
		return nil
	}
}

// WithExportPollInterval sets the first and the largest delay between two
// status polls of WaitDashboardExport (default 500ms growing to 5s).
func WithExportPollInterval(first, largest time.Duration) Option {
	return func(c *Client) error {
		if first <= 0 || largest < first {
			return errors.New("embedkit: WithExportPollInterval: need 0 < first <= largest")
		}
		c.pollMin, c.pollMax = first, largest
		return nil
	}
}
