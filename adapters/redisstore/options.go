package redisstore

import "time"

// Defaults of the options.
const (
	// DefaultPrefix starts the name of every Redis key the store writes,
	// unless WithPrefix says otherwise.
	DefaultPrefix = "embedkit:"
	// DefaultMaxPerKey is the number of records kept per host session key
	// unless WithMaxPerKey says otherwise.
	// A record lives as long as what was minted from it can (about a
	// day), so this is how many embeds one sign-in may open in a day
	// before its oldest is revoked early: far beyond what a person opens
	// (an open dashboard does not die under a heavy user), it bounds what
	// a scripted client makes the store hold.
	DefaultMaxPerKey = 1024
	// DefaultBackoff and DefaultMaxBackoff bound the wait before a deferred
	// revoke is due again unless WithBackoff says otherwise.
	DefaultBackoff    = 5 * time.Second
	DefaultMaxBackoff = 10 * time.Minute
)

// Option configures a Store.
type Option func(*config)

type config struct {
	prefix     string
	maxPerKey  int
	now        func() time.Time
	backoff    time.Duration
	maxBackoff time.Duration
}

// WithPrefix sets the string that starts the name of every Redis key the
// store writes, so that several applications, or several stores, share one
// Redis without meeting. An empty prefix leaves the default, DefaultPrefix.
// Two Stores with the same prefix on the same Redis see the same records,
// which is how instances of one application share them.
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
	return func(c *config) {
		if n >= 1 {
			c.maxPerKey = n
		}
	}
}

// WithClock sets the clock the store compares ExpiresAt with and schedules
// deferred revokes by. The default is time.Now. Redis drops expired keys
// by its own clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithBackoff sets the wait before a deferred revoke is due: first after the
// first Defer of a session id, doubling at each further Defer of the same
// id, never more than limit. Waits are kept in whole milliseconds.
// Non-positive values leave the defaults, DefaultBackoff and
// DefaultMaxBackoff; limit is raised to first when lower.
func WithBackoff(first, limit time.Duration) Option {
	return func(c *config) {
		if first > 0 {
			c.backoff = first
		}
		if limit > 0 {
			c.maxBackoff = limit
		}
		c.maxBackoff = max(c.maxBackoff, c.backoff)
	}
}

func newConfig(opts []Option) config {
	c := config{
		prefix:     DefaultPrefix,
		maxPerKey:  DefaultMaxPerKey,
		now:        time.Now,
		backoff:    DefaultBackoff,
		maxBackoff: DefaultMaxBackoff,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}
