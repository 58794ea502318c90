package middleware

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNoSessionID is the error of RevokeQueue.Defer for a record without a
// session id.
var ErrNoSessionID = errors.New("middleware: a deferred revoke has no session id")

// MemoryQueue is a RevokeQueue in process memory, ordered by due time: the
// Kit's own queue when the store has none, and the memory store's. It is
// lost on restart. The zero value is not usable: use NewMemoryQueue.
type MemoryQueue struct {
	mu    sync.Mutex
	now   func() time.Time
	byID  map[string]*queued
	order dueHeap
}

type queued struct {
	d   Deferred
	pos int
}

// NewMemoryQueue returns an empty queue whose clock is now (nil means
// time.Now).
func NewMemoryQueue(now func() time.Time) *MemoryQueue {
	if now == nil {
		now = time.Now
	}
	return &MemoryQueue{now: now, byID: map[string]*queued{}}
}

// Defer queues ds, replacing a queued record of the same session id.
// Expired records are not queued. ctx is not used.
func (q *MemoryQueue) Defer(_ context.Context, ds []Deferred) error {
	for _, d := range ds {
		if d.SessionID == "" {
			return ErrNoSessionID
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for _, d := range ds {
		if !d.ExpiresAt.IsZero() && !d.ExpiresAt.After(now) {
			continue
		}
		if it, ok := q.byID[d.SessionID]; ok {
			it.d = d
			heap.Fix(&q.order, it.pos)
			continue
		}
		it := &queued{d: d}
		q.byID[d.SessionID] = it
		heap.Push(&q.order, it)
	}
	return nil
}

// Due removes and returns up to n records due by now, earliest first,
// dropping expired ones. ctx is not used.
func (q *MemoryQueue) Due(_ context.Context, n int) ([]Deferred, error) {
	if n < 1 {
		return nil, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	var out []Deferred
	for len(out) < n && len(q.order) > 0 && !q.order[0].d.Due.After(now) {
		it := heap.Pop(&q.order).(*queued)
		delete(q.byID, it.d.SessionID)
		if !it.d.ExpiresAt.IsZero() && !it.d.ExpiresAt.After(now) {
			continue
		}
		out = append(out, it.d)
	}
	return out, nil
}

// Pending reports how many live records are queued. It drops the expired
// ones, in time linear in the queue's length. ctx is not used.
func (q *MemoryQueue) Pending(context.Context) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	for id, it := range q.byID {
		if !it.d.ExpiresAt.IsZero() && !it.d.ExpiresAt.After(now) {
			heap.Remove(&q.order, it.pos)
			delete(q.byID, id)
		}
	}
	return len(q.order), nil
}

// dueHeap orders queued records by due time.
type dueHeap []*queued

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].d.Due.Before(h[j].d.Due) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos = i
	h[j].pos = j
}

func (h *dueHeap) Push(x any) {
	it := x.(*queued)
	it.pos = len(*h)
	*h = append(*h, it)
}

func (h *dueHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	it.pos = -1
	return it
}
