package memstore

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"slices"
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

	// One pass over the key's records: which stay, and whether they all
	// belong to m's subject (then the subject index needs no change).
	var spans [64]span
	kept := spans[:0]
	oneSubject := true
	for off := 0; off < len(old); {
		r, end := nextRecord(old, off)
		oneSubject = oneSubject && r.subject == m.Subject
		if r.exp > now && r.id != m.SessionID {
			kept = append(kept, span{exp: r.exp, start: off, end: end})
		}
		off = end
	}
	add := rec{id: m.SessionID, subject: m.Subject, exp: exp}
	keepAdd := true

	// Over the maximum, the record that expires first leaves: the first
	// such kept record, or the new one when it alone expires first.
	var evBuf [1]middleware.Deferred
	evicted := evBuf[:0]
	for len(kept)+boolInt(keepAdd) > s.maxPerKey {
		oldest, first := -1, int64(math.MaxInt64)
		for i, sp := range kept {
			if sp.exp < first {
				oldest, first = i, sp.exp
			}
		}
		if keepAdd && exp < first {
			evicted = append(evicted, middleware.Deferred{Minted: m, Due: time.Unix(0, now)})
			keepAdd = false
			continue
		}
		evicted = append(evicted, middleware.Deferred{Minted: kept[oldest].rec(old).minted(), Due: time.Unix(0, now)})
		if oldest == 0 {
			kept = kept[1:] // the usual case, the first minted: no copying
		} else {
			kept = slices.Delete(kept, oldest, oldest+1)
		}
	}

	s.cache.Set(key, next(old, grow, kept, add, keepAdd), time.Duration(latestOf(kept, add, keepAdd)-now)+s.grace)
	if old == "" || !oneSubject {
		recs := make([]rec, 0, len(kept)+1)
		for _, sp := range kept {
			recs = append(recs, sp.rec(old))
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

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// next returns the value that replaces old (whose growable buffer, if any,
// is grow) when the records kept stay and add is appended if keepAdd.
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
func next(old string, grow []byte, kept []span, add rec, keepAdd bool) any {
	suffix := keepAdd && len(kept) > 0 && kept[len(kept)-1].end == len(old)
	for i := 1; suffix && i < len(kept); i++ {
		suffix = kept[i].start == kept[i-1].end
	}
	if suffix {
		start := kept[0].start
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
	size := 0
	for _, sp := range kept {
		size += sp.end - sp.start
	}
	if keepAdd {
		size += add.encodedLen()
	}
	var b strings.Builder
	b.Grow(size)
	for _, sp := range kept {
		b.WriteString(old[sp.start:sp.end])
	}
	if keepAdd {
		add.appendTo(&b)
	}
	return b.String()
}

// latestOf is the latest expiry of the kept records and add (if keepAdd).
func latestOf(kept []span, add rec, keepAdd bool) int64 {
	latest := int64(0)
	for _, sp := range kept {
		latest = max(latest, sp.exp)
	}
	if keepAdd {
		latest = max(latest, add.exp)
	}
	return latest
}
