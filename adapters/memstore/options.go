package memstore

import (
	"time"

	"github.com/embedkit/embedkit/internal/storeopt"
)

// Defaults of the options.
const (
	// DefaultMaxPerKey, 1,024, is the number of records kept per host
	// session key unless WithMaxPerKey says otherwise.
	// A record lives as long as what was minted from it can (about a
	// day), so this is how many embeds one sign-in may open in a day
	// before its oldest is revoked early: far beyond what a person
	// opens, it bounds what a scripted client makes the store hold.
	DefaultMaxPerKey = storeopt.DefaultMaxPerKey
	// DefaultCleanupInterval is how often expired keys are swept unless
	// WithCleanupInterval says otherwise.
	DefaultCleanupInterval = time.Minute
)

// minCleanupInterval keeps the sweep from spinning; it is also the least
// grace a key outlives its last record by (see Store.Add).
const minCleanupInterval = time.Second

// Option configures a Store.
type Option func(*config)

type config struct {
	storeopt.Common
	cleanup time.Duration
}

// WithMaxPerKey bounds the records kept under one key to n. When a key is
// full, Add drops the record that expires first (the oldest) to make room.
// Values below 1 leave the default, DefaultMaxPerKey.
func WithMaxPerKey(n int) Option {
	return func(c *config) { c.SetMaxPerKey(n) }
}

// WithCleanupInterval sets how often the store sweeps keys whose records
// have all expired. It is also how long a key outlives its last record
// before the sweep may remove it. Values below one second are raised to one
// second.
func WithCleanupInterval(d time.Duration) Option {
	return func(c *config) {
		c.cleanup = max(d, minCleanupInterval)
	}
}

// WithClock sets the clock the store compares ExpiresAt and the revoke
// queue's due times with. The default is time.Now. The sweep of expired keys
// runs on the real clock whatever the option.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.SetClock(now) }
}

func newConfig(opts []Option) config {
	c := config{Common: storeopt.Defaults(), cleanup: DefaultCleanupInterval}
	for _, o := range opts {
		o(&c)
	}
	return c
}
