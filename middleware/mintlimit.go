package middleware

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults of MintLimitOptions.
const (
	// DefaultMintBurst is how many sessions one viewer may mint at once:
	// a page of many frames, reloaded a few times, stays well within it.
	DefaultMintBurst = 120
	// DefaultMintInterval is the time in which a viewer earns one more
	// mint after a burst: 30 a minute, sustained.
	DefaultMintInterval = 2 * time.Second
)

// ErrMintLimited: the viewer minted more sessions than
// Config.MintLimit allows in the time (429, with Retry-After). Nothing
// was sent to the platform.
var ErrMintLimited = errors.New("middleware: too many mints for this viewer")

// MintLimitOptions bound how fast one viewer (one platform user: the
// normalised Subject, whatever host session it mints from) can mint
// sessions, each a platform call and, past a store's per-session bound,
// a revoke of that viewer's oldest open embeds. It is a token bucket per
// viewer: Burst mints at once, then one more each Interval. A mint over
// the limit answers 429 with Retry-After, which the host script honours,
// and is counted as OutcomeLimited; it reaches neither the platform nor
// the store. The limit is kept in each process: behind N instances a
// viewer may mint up to N times as much.
type MintLimitOptions struct {
	// Burst is how many mints a viewer may make at once. Default
	// DefaultMintBurst.
	Burst int
	// Interval is the time in which a viewer earns one more mint, up to
	// Burst. Default DefaultMintInterval.
	Interval time.Duration
	// Off turns the limit off, for a host that bounds minting itself
	// (for example in a gateway in front of every instance).
	Off bool
}

// normalize fills in the defaults and checks the options.
func (o *MintLimitOptions) normalize() error {
	if o.Off {
		return nil
	}
	if o.Burst < 0 {
		return fmt.Errorf("middleware: Config.MintLimit.Burst is %d, must not be negative (0 means DefaultMintBurst; use Off to turn the limit off)", o.Burst)
	}
	if o.Interval < 0 {
		return fmt.Errorf("middleware: Config.MintLimit.Interval is %s, must not be negative (0 means DefaultMintInterval)", o.Interval)
	}
	if o.Burst == 0 {
		o.Burst = DefaultMintBurst
	}
	if o.Interval == 0 {
		o.Interval = DefaultMintInterval
	}
	return nil
}

// mintLimitedError is ErrMintLimited with the wait before the viewer's
// next mint.
type mintLimitedError struct{ wait time.Duration }

func (e *mintLimitedError) Error() string {
	return fmt.Sprintf("%s: the next mint is allowed in %s (Config.MintLimit)", ErrMintLimited, e.wait.Round(time.Millisecond))
}

func (e *mintLimitedError) Unwrap() error { return ErrMintLimited }

// mintLimiter keeps one token bucket per viewer. A bucket that has filled
// up again is the same as none, so such buckets are dropped: the map holds
// only viewers who minted within the last Burst·Interval.
type mintLimiter struct {
	burst    float64
	interval time.Duration

	mu        sync.Mutex
	buckets   map[string]bucket
	pruneSize int // prune when the map grows past this
}

type bucket struct {
	tokens float64
	at     time.Time
}

// minPruneSize is the map size below which the limiter never prunes.
const minPruneSize = 1024

func newMintLimiter(o MintLimitOptions) *mintLimiter {
	if o.Off {
		return nil
	}
	return &mintLimiter{burst: float64(o.Burst), interval: o.Interval, buckets: map[string]bucket{}, pruneSize: minPruneSize}
}

// take takes one mint from viewer's bucket at now, or returns the wait
// until one is available. A nil limiter allows everything.
func (l *mintLimiter) take(viewer string, now time.Time) (wait time.Duration, ok bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[viewer]
	if !found {
		b = bucket{tokens: l.burst, at: now}
	}
	b = l.refill(b, now)
	if b.tokens < 1 {
		l.buckets[viewer] = b
		return time.Duration((1 - b.tokens) * float64(l.interval)), false
	}
	b.tokens--
	l.buckets[viewer] = b
	if len(l.buckets) > l.pruneSize {
		l.prune(now)
	}
	return 0, true
}

// refill adds the mints earned between b.at and now.
func (l *mintLimiter) refill(b bucket, now time.Time) bucket {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+float64(elapsed)/float64(l.interval))
		b.at = now
	}
	return b
}

// prune drops full buckets, and sets the next size to prune at to twice
// what is left, so that pruning costs O(1) per take on average.
func (l *mintLimiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if l.refill(b, now).tokens >= l.burst {
			delete(l.buckets, k)
		}
	}
	l.pruneSize = max(minPruneSize, 2*len(l.buckets))
}
