// Package storeopt holds the options the kit's server-side session stores
// (adapters/memstore, adapters/redisstore) share: the bound on records per
// host session key and the clock, with their one rule each.
package storeopt

import "time"

// DefaultMaxPerKey is the number of records a store keeps per key unless
// told otherwise. A record lives as long as what was minted from it can
// (about a day), so this is how many embeds one sign-in may open in a day
// before its oldest is revoked early: far beyond what a person opens (an
// open dashboard does not die under a heavy user), it bounds what a
// scripted client makes the store hold.
const DefaultMaxPerKey = 1024

// Common is the shared part of a store's configuration.
type Common struct {
	MaxPerKey int
	Now       func() time.Time
}

// Defaults returns DefaultMaxPerKey and time.Now.
func Defaults() Common {
	return Common{MaxPerKey: DefaultMaxPerKey, Now: time.Now}
}

// SetMaxPerKey sets the bound; values below 1 leave it as it is.
func (c *Common) SetMaxPerKey(n int) {
	if n >= 1 {
		c.MaxPerKey = n
	}
}

// SetClock sets the clock; nil leaves it as it is.
func (c *Common) SetClock(now func() time.Time) {
	if now != nil {
		c.Now = now
	}
}
