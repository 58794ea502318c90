package memstore

import (
	"context"
	"errors"
	"hash/maphash"
	"iter"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/embedkit/embedkit/middleware"
	"github.com/patrickmn/go-cache"
)

// stripes is the number of locks that guard read-modify-write of keys. A
// key's stripe is chosen by its hash, so operations on different keys
// rarely wait for each other.
const stripes = 64

// errEmptyID is returned by Add for a record without a session id.
var errEmptyID = errors.New("memstore: record has no session id")

// Store keeps minted session ids in memory. It implements
// middleware.SessionStore, middleware.SubjectIndex and
// middleware.RevokeQueue. Make one with New; the zero value is not usable.
// A Store is safe for concurrent use.
type Store struct {
	cache     *cache.Cache
	locks     [stripes]paddedMutex
	seed      maphash.Seed
	maxPerKey int
	grace     time.Duration
	now       func() time.Time
	index     *subjectIndex
	// queue is the revoke queue: a plain queue by due time, whose schedule
	// the middleware's Kit owns.
	queue *middleware.MemoryQueue
}

// paddedMutex fills a cache line so that neighbouring stripes do not share
// one.
type paddedMutex struct {
	sync.Mutex
	_ [56]byte
}

var (
	_ middleware.SessionStore = (*Store)(nil)
	_ middleware.SubjectIndex = (*Store)(nil)
	_ middleware.RevokeQueue  = (*Store)(nil)
)

// New returns an empty Store.
func New(opts ...Option) *Store {
	c := newConfig(opts)
	s := &Store{
		cache:     cache.New(cache.NoExpiration, c.cleanup),
		seed:      maphash.MakeSeed(),
		maxPerKey: c.MaxPerKey,
		grace:     c.cleanup,
		now:       c.Now,
	}
	s.index = newSubjectIndex(s.seed, s.cache)
	s.queue = middleware.NewMemoryQueue(c.Now)
	// The callback reaches only the index, which reaches only the inner
	// cache: were it to reach the Store or the *cache.Cache wrapper, the
	// sweeper goroutine would keep the wrapper reachable, and its finalizer,
	// which stops the sweeper, would never run.
	s.cache.OnEvicted(s.index.evicted)
	return s
}

// Add records m under key. A record whose ExpiresAt has passed is not
// kept; Add returns nil for it. A record with the session id of one already
// under key replaces it. When key already holds the maximum number of
// records (WithMaxPerKey), the record that expires first leaves the key
// and goes to the store's revoke queue, due at once, so the retrier of the
// middleware revokes it instead of letting a session that logout can no
// longer find live on. A record without a session id is an error. ctx is
// not used.
func (s *Store) Add(ctx context.Context, key string, m middleware.Minted) error {
	if m.SessionID == "" {
		return errEmptyID
	}
	now := s.now().UnixNano()
	exp := m.ExpiresAt.UnixNano()
	if exp <= now {
		return nil
	}
	mu := s.lock(key)
	defer mu.Unlock()
	old, grow := s.loadView(key)

	// One pass over the key's records finds what Add needs to know of
	// those that stay, without listing them: a key may hold thousands.
	add := rec{id: m.SessionID, subject: m.Subject, exp: exp}
	sc := scanKey(old, now, add)
	keepAdd := true

	// Over the maximum, the record that expires first leaves: the first
	// such staying record, or the new one when it alone expires first.
	// Only Add puts records under a key, never more than the maximum, so
	// one leaving is always enough.
	drop := noSpan
	var evBuf [1]middleware.Deferred
	evicted := evBuf[:0]
	if sc.n+1 > s.maxPerKey {
		if exp < sc.oldest.exp {
			keepAdd = false
			evicted = append(evicted, middleware.Deferred{Minted: m, Due: time.Unix(0, now)})
		} else {
			drop = sc.oldest
			evicted = append(evicted, middleware.Deferred{Minted: drop.rec(old).minted(), Due: time.Unix(0, now)})
		}
	}

	s.cache.Set(key, sc.next(grow, drop, add, keepAdd), time.Duration(sc.latestAfter(add, keepAdd)-now)+s.grace)
	if old == "" || !sc.oneSubject {
		recs := make([]rec, 0, sc.n+1)
		for r := range sc.staying(drop) {
			recs = append(recs, r)
		}
		if keepAdd {
			recs = append(recs, add)
		}
		s.index.replace(key, old, recs)
	}
	if len(evicted) > 0 {
		return s.queue.Defer(ctx, evicted)
	}
	return nil
}

// Take removes and returns every record under key whose ExpiresAt has not
// passed. Take of a missing key returns no records and a nil error. ctx is
// not used.
func (s *Store) Take(_ context.Context, key string) ([]middleware.Minted, error) {
	mu := s.lock(key)
	defer mu.Unlock()
	now := s.now().UnixNano()
	old := s.load(key)
	if old == "" {
		return nil, nil
	}
	s.save(key, old, nil, now)
	var out []middleware.Minted
	for r := range records(old) {
		if r.exp > now {
			out = append(out, r.minted())
		}
	}
	return out, nil
}

// TakeSubject removes and returns every record whose Subject is subject,
// under any key, whose ExpiresAt has not passed. Records of other subjects
// stay. Subjects are compared exactly. TakeSubject of a subject without
// records returns no records and a nil error. ctx is not used.
//
// A record added for subject while TakeSubject runs is either returned or
// left in the store.
func (s *Store) TakeSubject(_ context.Context, subject string) ([]middleware.Minted, error) {
	var out []middleware.Minted
	for _, key := range s.index.keys(subject) {
		out = s.takeSubjectFrom(key, subject, out)
	}
	return out, nil
}

func (s *Store) takeSubjectFrom(key, subject string, out []middleware.Minted) []middleware.Minted {
	mu := s.lock(key)
	defer mu.Unlock()
	now := s.now().UnixNano()
	old := s.load(key)
	var (
		buf   [8]rec
		kept  = buf[:0]
		taken bool
	)
	for r := range records(old) {
		switch {
		case r.subject == subject:
			taken = true
			if r.exp > now {
				out = append(out, r.minted())
			}
		case r.exp > now:
			kept = append(kept, r)
		}
	}
	if taken {
		s.save(key, old, kept, now)
	}
	return out
}

// Len reports how many keys the store holds, counting keys whose records
// have all expired until the next sweep removes them.
func (s *Store) Len() int {
	return s.cache.ItemCount()
}

// stripe returns the lock that guards key.
func (s *Store) stripe(key string) *sync.Mutex {
	return &s.locks[maphash.String(s.seed, key)%stripes].Mutex
}

// lock locks key's stripe and returns it.
func (s *Store) lock(key string) *sync.Mutex {
	mu := s.stripe(key)
	mu.Lock()
	return mu
}

// load returns the encoded records under key, or "" when there are none.
// It must be called with the key's stripe locked.
func (s *Store) load(key string) string {
	v, _ := s.loadView(key)
	return v
}

// loadView is load that also returns the growable buffer the records are a
// view of, or nil when they are a string (see next).
func (s *Store) loadView(key string) (string, []byte) {
	if v, ok := s.cache.Get(key); ok {
		return view(v), grows(v)
	}
	// An expired entry may still be in the cache, waiting for the sweep.
	// Deleting it now hands it to the eviction callback, which unindexes
	// it, before a new entry takes its place unseen.
	s.cache.Delete(key)
	return "", nil
}

// save replaces the records old under key with recs and updates the subject
// index. It must be called with the key's stripe locked, and old must be
// what load returned.
//
// The cache entry lives until the last record expires plus the cleanup
// interval. The margin matters: the sweep may evict an entry between load
// and save only if the entry expired in between, which with live records
// in it takes longer than the margin.
func (s *Store) save(key, old string, recs []rec, now int64) {
	if len(recs) == 0 {
		if old != "" {
			s.cache.Delete(key)
		}
	} else {
		latest := recs[0].exp
		for _, r := range recs[1:] {
			latest = max(latest, r.exp)
		}
		s.cache.Set(key, encode(recs), time.Duration(latest-now)+s.grace)
	}
	s.index.replace(key, old, recs)
}

// Defer queues ds for a later revoke attempt, each due at its Due (see
// middleware.MemoryQueue). ctx is not used.
func (s *Store) Defer(ctx context.Context, ds []middleware.Deferred) error {
	return s.queue.Defer(ctx, ds)
}

// Due removes and returns up to n queued records whose Due has come,
// earliest first. ctx is not used.
func (s *Store) Due(ctx context.Context, n int) ([]middleware.Deferred, error) {
	return s.queue.Due(ctx, n)
}

// Pending reports how many live records are queued. ctx is not used.
func (s *Store) Pending(ctx context.Context) (int, error) {
	return s.queue.Pending(ctx)
}

// keyScan is what one pass over a key's encoded records tells Add of
// those that stay under the key when a record is added: the ones still
// live that do not carry the added record's session id.
type keyScan struct {
	old string
	now int64
	id  string // the added record's session id

	n          int   // how many stay
	size       int   // the bytes of their encodings
	first, end int   // from the start of the first to the end of the last
	gaps       bool  // whether records that leave lie between staying ones
	oldest     span  // the first of those that expire first
	latest     int64 // the latest expiry among them
	oneSubject bool  // whether every record, staying or not, is of the added record's subject
}

// noSpan is the span of no record.
var noSpan = span{start: -1, end: -1}

// scanKey scans old, the records under a key, for the addition of add at
// the time now (Unix nanoseconds).
func scanKey(old string, now int64, add rec) keyScan {
	sc := keyScan{old: old, now: now, id: add.id, oneSubject: true, oldest: span{exp: math.MaxInt64}}
	for off := 0; off < len(old); {
		r, end := nextRecord(old, off)
		sc.oneSubject = sc.oneSubject && r.subject == add.subject
		if sc.stays(r) {
			if sc.n == 0 {
				sc.first = off
			} else if off != sc.end {
				sc.gaps = true
			}
			sc.end = end
			sc.n++
			sc.size += end - off
			if r.exp < sc.oldest.exp {
				sc.oldest = span{exp: r.exp, start: off, end: end}
			}
			sc.latest = max(sc.latest, r.exp)
		}
		off = end
	}
	return sc
}

// stays reports whether r stays under the key.
func (sc *keyScan) stays(r rec) bool {
	return r.exp > sc.now && r.id != sc.id
}

// staying yields the staying records but drop, each with its span, in
// the order they are encoded.
func (sc *keyScan) staying(drop span) iter.Seq2[rec, span] {
	return func(yield func(rec, span) bool) {
		for off := sc.first; off < sc.end; {
			r, end := nextRecord(sc.old, off)
			if off != drop.start && sc.stays(r) && !yield(r, span{exp: r.exp, start: off, end: end}) {
				return
			}
			off = end
		}
	}
}

// latestAfter is the latest expiry under the key once add, if keepAdd,
// is in. A staying record that leaves for add expires no later than add,
// so it changes nothing here.
func (sc *keyScan) latestAfter(add rec, keepAdd bool) int64 {
	if keepAdd {
		return max(sc.latest, add.exp)
	}
	return sc.latest
}

// next returns the value that replaces the scanned records (whose
// growable buffer, if any, is grow) when the staying records but drop
// stay and add is appended if keepAdd.
//
// A key that only ever gains records at the end and loses them at the
// front (ids minted one after another with the same lifetime, and the
// oldest pushed out or expired) is kept in a buffer with spare capacity:
// the new value is a view of the same bytes that starts later and ends
// later, so an Add copies nothing but the new record. Every other change
// builds the value anew, as a string of exactly its size, which is also
// what a key with one record holds. The bytes of a view, once in the
// cache, are never written again: appends go past the end of the latest
// view, which is the longest, so readers holding an older view (the
// cache's sweep, a Take that loaded it) read bytes nobody writes.
func (sc *keyScan) next(grow []byte, drop span, add rec, keepAdd bool) any {
	old := sc.old
	start := sc.first
	if drop.start == sc.first {
		start = drop.end
	}
	// The records that stay are one run to the end of old, and drop, if
	// any, was its first.
	suffix := keepAdd && !sc.gaps && sc.end == len(old) && start < sc.end &&
		(drop == noSpan || drop.start == sc.first)
	if suffix {
		if grow == nil {
			// The first time: a buffer with room for as many records
			// again.
			b := make([]byte, 0, 2*(len(old)-start+add.encodedLen()))
			return add.append(append(b, old[start:]...))
		}
		// append writes in place while the buffer has room, and
		// otherwise copies only the view, leaving the front behind.
		return add.append(grow[start:])
	}
	size := sc.size
	if drop != noSpan {
		size -= drop.end - drop.start
	}
	if keepAdd {
		size += add.encodedLen()
	}
	var b strings.Builder
	b.Grow(size)
	for _, sp := range sc.staying(drop) {
		b.WriteString(old[sp.start:sp.end])
	}
	if keepAdd {
		add.appendTo(&b)
	}
	return b.String()
}
