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
)

// Option configures a Store.
type Option func(*config)

type config struct {
	prefix    string
	maxPerKey int
	now       func() time.Time
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

// WithClock sets the clock the store compares ExpiresAt and the revoke
// queue's due times with. The default is time.Now. Redis drops expired keys
// by its own clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

func newConfig(opts []Option) config {
	c := config{
		prefix:    DefaultPrefix,
		maxPerKey: DefaultMaxPerKey,
		now:       time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}
