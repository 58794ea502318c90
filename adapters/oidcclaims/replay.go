package oidcclaims

import (
	"container/heap"
	"sync"
	"time"
)

// replayCache remembers token ids until their token expires, so that a
// logout token is accepted once. It holds at most max ids; when full it
// first forgets expired ids, then the id whose token expires first.
type replayCache struct {
	mu   sync.Mutex
	max  int
	now  func() time.Time
	seen map[string]time.Time
	q    expiryHeap
}

func newReplayCache(max int, now func() time.Time) *replayCache {
	return &replayCache{max: max, now: now, seen: make(map[string]time.Time)}
}

// add records id until exp. It reports false when id is already recorded
// and its token has not expired.
func (c *replayCache) add(id string, exp time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	if until, ok := c.seen[id]; ok && now.Before(until) {
		return false
	}
	for len(c.seen) >= c.max && c.q.Len() > 0 {
		e := heap.Pop(&c.q).(expiryEntry)
		if until, ok := c.seen[e.id]; ok && until.Equal(e.exp) {
			delete(c.seen, e.id)
		}
	}
	c.seen[id] = exp
	heap.Push(&c.q, expiryEntry{id: id, exp: exp})
	return true
}

// remove forgets id, so that a token whose processing failed can be sent
// again.
func (c *replayCache) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, id)
}

// len reports how many ids are recorded.
func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// expire drops ids whose token has expired. Heap entries of removed or
// re-added ids are skipped when they surface.
func (c *replayCache) expire(now time.Time) {
	for c.q.Len() > 0 && !now.Before(c.q[0].exp) {
		e := heap.Pop(&c.q).(expiryEntry)
		if until, ok := c.seen[e.id]; ok && until.Equal(e.exp) {
			delete(c.seen, e.id)
		}
	}
	// Entries left behind by remove would otherwise keep the heap growing
	// while the map stays small.
	if c.q.Len() > 2*c.max {
		c.q = c.q[:0]
		for id, exp := range c.seen {
			c.q = append(c.q, expiryEntry{id: id, exp: exp})
		}
		heap.Init(&c.q)
	}
}

type expiryEntry struct {
	id  string
	exp time.Time
}

type expiryHeap []expiryEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].exp.Before(h[j].exp) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
