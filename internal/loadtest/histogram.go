package loadtest

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// subBuckets is the number of buckets per power of two: values are kept
// to within 1/subBuckets (about 1.6%) of their size.
const subBuckets = 64

// histogram counts durations in log-linear buckets, in fixed memory, and
// is safe for concurrent use without locks.
type histogram struct {
	counts [64 * subBuckets]atomic.Int64
	total  atomic.Int64
}

// bucketOf returns the bucket of a duration in nanoseconds.
func bucketOf(ns int64) int {
	if ns < subBuckets {
		return int(max(ns, 0))
	}
	exp := bits.Len64(uint64(ns)) - 1 // ns in [2^exp, 2^(exp+1))
	shift := exp - 6                  // 2^6 == subBuckets
	sub := int(ns>>shift) - subBuckets
	return (shift+1)*subBuckets + sub
}

// lowerBound returns the smallest duration in nanoseconds of bucket b.
func lowerBound(b int) int64 {
	if b < subBuckets {
		return int64(b)
	}
	shift := b/subBuckets - 1
	sub := int64(b % subBuckets)
	return (subBuckets + sub) << shift
}

// add records d.
func (h *histogram) add(d time.Duration) {
	h.counts[bucketOf(int64(d))].Add(1)
	h.total.Add(1)
}

// quantile returns the duration below which the fraction q of the
// recorded values lie (the lower bound of its bucket).
func (h *histogram) quantile(q float64) time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	rank := int64(q*float64(n-1)) + 1
	var seen int64
	for b := range h.counts {
		seen += h.counts[b].Load()
		if seen >= rank {
			return time.Duration(lowerBound(b))
		}
	}
	return time.Duration(lowerBound(len(h.counts) - 1))
}

// reset zeroes every count.
func (h *histogram) reset() {
	for b := range h.counts {
		h.counts[b].Store(0)
	}
	h.total.Store(0)
}
