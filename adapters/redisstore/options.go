package redisstore

import (
	"time"

	"github.com/embedkit/embedkit/internal/storeopt"
)

// Defaults of the options.
const (
	// DefaultPrefix starts the name of every Redis key the store writes,
	// unless WithPrefix says otherwise.
	DefaultPrefix = "embedkit:"
	// DefaultMaxPerKey, 1,024, is the number of records kept per host
	// session key unless WithMaxPerKey says otherwise.
	// A record lives as long as what was minted from it can (about a
	// day), so this is how many embeds one sign-in may open in a day
	// before its oldest is revoked early: far beyond what a person
	// opens, it bounds what a scripted client makes the store hold.
	DefaultMaxPerKey = storeopt.DefaultMaxPerKey
	// DefaultTimeout bounds each call of a Store or EndedLogins method
	// unless WithTimeout says otherwise: a healthy Redis answers in
	// milliseconds, and a node that hangs costs a page load, a logout or
	// a mint no more than this (docs/reliability.md).
	DefaultTimeout = 3 * time.Second
)

// Option configures a Store.
type Option func(*config)

type config struct {
	storeopt.Common
	prefix  string
	timeout time.Duration
}

// WithPrefix sets the string that starts the name of every Redis key the
// store writes, so that several applications, or several stores, share one
// Redis without meeting. An empty prefix leaves the default, DefaultPrefix.
// Two Stores with the same prefix on the same Redis see the same records,
// which is how instances of one application share them. With Redis
// Cluster, braces in the prefix must make a hash tag (see the package
// documentation, Atomicity).
func WithPrefix(prefix string) Option {
	return func(c *config) {
		if prefix != "" {
			c.prefix = prefix
		}
	}
}

// WithMaxPerKey bounds the records kept under one host session key to n.
// When a key is full, Add drops the record that expires first (the oldest)
// to make room. Values below 1 leave the default, DefaultMaxPerKey.
func WithMaxPerKey(n int) Option {
	return func(c *config) { c.SetMaxPerKey(n) }
}

// WithClock sets the clock the store compares ExpiresAt and the revoke
// queue's due times with. The default is time.Now. Redis drops expired keys
// by its own clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.SetClock(now) }
}

// WithTimeout bounds each call of a method to d: the method returns an
// error wrapping context.DeadlineExceeded when Redis has not answered by
// then, however the client is configured (go-redis's own defaults wait
// 35 to 40 seconds a call on a node that hangs) and whatever deadline the
// caller's context has, the earlier of the two deciding. A Store or an
// EndedLogins is on the path of every signed-in request, so this is how
// long a Redis node that hangs holds up a page load. Values of zero and
// below leave the default, DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

func newConfig(opts []Option) config {
	c := config{Common: storeopt.Defaults(), prefix: DefaultPrefix, timeout: DefaultTimeout}
	for _, o := range opts {
		o(&c)
	}
	return c
}
