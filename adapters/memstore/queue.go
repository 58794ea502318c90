package memstore

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// queueSweepEvery is how often Defer and Due forget the attempt counts of
// session ids that expired or did not come back in time (Pending always
// does).
const queueSweepEvery = time.Minute

// revokeQueue holds deferred revokes. A session id seen by Defer has an
// item while it is queued (pos >= 0, in the heap by next attempt time),
// and for one maximum backoff after Due handed it out (pos < 0): then the
// item only remembers the attempt count, so that a Defer of the same id
// soon after (its revoke failed again) backs off longer. An id that does
// not come back within that window was revoked, or is retried from the
// first backoff again; either way nothing about it is kept.
type revokeQueue struct {
	mu         sync.Mutex
	items      map[string]*queueItem
	due        dueHeap
	now        func() time.Time
	backoff    time.Duration
	maxBackoff time.Duration
	lastSweep  time.Time
}

type queueItem struct {
	id       string
	subject  string
	exp      time.Time
	next     time.Time
	attempts int
	pos      int
}

func (q *revokeQueue) init(c config) {
	q.items = make(map[string]*queueItem)
	q.now = c.now
	q.backoff = c.backoff
	q.maxBackoff = c.maxBackoff
}

// Defer queues ms for a later attempt. A record whose ExpiresAt has passed
// is not queued. The first Defer of a session id makes it due after the
// backoff (WithBackoff); each further Defer of the same id within the
// limit of the backoff after Due handed it out doubles the wait, up to the
// limit. Deferring an id that is
// already queued reschedules it rather than queueing it twice. A record
// without a session id is an error, and then nothing is queued. ctx is not
// used.
func (s *Store) Defer(_ context.Context, ms []middleware.Minted) error {
	for _, m := range ms {
		if m.SessionID == "" {
			return errEmptyID
		}
	}
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	q.maybeSweep(now)
	for _, m := range ms {
		if !m.ExpiresAt.After(now) {
			continue
		}
		it := q.items[m.SessionID]
		if it == nil {
			it = &queueItem{id: m.SessionID, pos: -1}
			q.items[m.SessionID] = it
		}
		it.subject = m.Subject
		it.exp = m.ExpiresAt
		it.attempts++
		it.next = now.Add(backoffFor(q.backoff, q.maxBackoff, it.attempts))
		if it.pos >= 0 {
			heap.Fix(&q.due, it.pos)
		} else {
			heap.Push(&q.due, it)
		}
	}
	return nil
}

// Due removes and returns up to n queued records whose next attempt time
// has come, earliest first. Records that expired while queued are dropped,
// not returned. Due on an empty queue, or with nothing due yet, returns no
// records and a nil error; so does Due with n below 1. ctx is not used.
func (s *Store) Due(_ context.Context, n int) ([]middleware.Minted, error) {
	if n < 1 {
		return nil, nil
	}
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	q.maybeSweep(now)
	var out []middleware.Minted
	for len(out) < n && len(q.due) > 0 && !q.due[0].next.After(now) {
		it := heap.Pop(&q.due).(*queueItem)
		if !it.exp.After(now) {
			delete(q.items, it.id)
			continue
		}
		out = append(out, middleware.Minted{SessionID: it.id, Subject: it.subject, ExpiresAt: it.exp})
	}
	return out, nil
}

// Pending reports how many records are queued, not counting records that
// have expired. It is linear in the number of session ids the queue
// remembers. ctx is not used.
func (s *Store) Pending(_ context.Context) (int, error) {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sweep(q.now())
	return len(q.due), nil
}

func (q *revokeQueue) maybeSweep(now time.Time) {
	if now.Sub(q.lastSweep) >= queueSweepEvery || now.Before(q.lastSweep) {
		q.sweep(now)
	}
}

// sweep forgets every session id whose ExpiresAt has passed, queued or
// not, and every handed-out id whose window for coming back has passed.
func (q *revokeQueue) sweep(now time.Time) {
	q.lastSweep = now
	for id, it := range q.items {
		handedOutLongAgo := it.pos < 0 && now.Sub(it.next) > q.maxBackoff
		if it.exp.After(now) && !handedOutLongAgo {
			continue
		}
		if it.pos >= 0 {
			heap.Remove(&q.due, it.pos)
		}
		delete(q.items, id)
	}
}

// dueHeap orders queued items by next attempt time.
type dueHeap []*queueItem

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].next.Before(h[j].next) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos = i
	h[j].pos = j
}

func (h *dueHeap) Push(x any) {
	it := x.(*queueItem)
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
