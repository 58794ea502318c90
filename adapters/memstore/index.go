package memstore

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/patrickmn/go-cache"
)

// indexShards is the number of independently locked parts of the subject
// index.
const indexShards = 64

// subjectIndex maps each subject to the keys holding its records. Subjects
// are kept as 64-bit hashes, which makes an entry small and keeps no
// subject string alive; TakeSubject compares the subjects of the records
// themselves, so two subjects sharing a hash only cost a look at the
// other's keys. Most subjects have one key, kept in a map of single keys;
// subjects with more move to a map of key lists.
//
// The index is exact: an entry (hash, key) exists while the cache holds
// records of a subject with that hash under key. Changes made under a key's
// stripe lock replace the key's entries (replace). The cache's sweep evicts
// keys without that lock; evicted then drops an entry only if, under the
// entry's shard lock, the cache no longer holds such a record. Since an Add
// writes the cache before it takes the shard lock to index the key, an
// entry written by an Add that raced the sweep survives.
type subjectIndex struct {
	seed maphash.Seed
	// get is the cache's Get method value, which holds the inner cache,
	// not the *cache.Cache wrapper whose finalizer stops the sweeper.
	get    func(key string) (any, bool)
	shards [indexShards]indexShard
}

type indexShard struct {
	mu   sync.Mutex
	one  map[uint64]string
	many map[uint64][]string
}

func newSubjectIndex(seed maphash.Seed, c *cache.Cache) *subjectIndex {
	x := &subjectIndex{seed: seed, get: c.Get}
	for i := range x.shards {
		x.shards[i].one = make(map[uint64]string)
		x.shards[i].many = make(map[uint64][]string)
	}
	return x
}

func (x *subjectIndex) hash(subject string) uint64 {
	return maphash.String(x.seed, subject)
}

func (x *subjectIndex) shard(h uint64) *indexShard {
	return &x.shards[h%indexShards]
}

// keys returns the keys that hold records of subject (or of a subject with
// the same hash).
func (x *subjectIndex) keys(subject string) []string {
	h := x.hash(subject)
	sh := x.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if key, ok := sh.one[h]; ok {
		return []string{key}
	}
	return slices.Clone(sh.many[h])
}

// replace records that key, which held the encoded records old, now holds
// recs. It must be called with key's stripe locked, after the cache was
// written.
func (x *subjectIndex) replace(key, old string, recs []rec) {
	var buf [4]uint64
	cur := buf[:0]
	for _, r := range recs {
		if h := x.hash(r.subject); !slices.Contains(cur, h) {
			cur = append(cur, h)
		}
	}
	var gone [4]uint64
	seen := gone[:0]
	for r := range records(old) {
		h := x.hash(r.subject)
		if slices.Contains(cur, h) || slices.Contains(seen, h) {
			continue
		}
		seen = append(seen, h)
		sh := x.shard(h)
		sh.mu.Lock()
		sh.remove(h, key)
		sh.mu.Unlock()
	}
	for _, h := range cur {
		sh := x.shard(h)
		sh.mu.Lock()
		sh.add(h, key)
		sh.mu.Unlock()
	}
}

// evicted is the cache's eviction callback: the sweep (or Delete) removed
// key, which held the encoded records v.
func (x *subjectIndex) evicted(key string, v any) {
	var buf [4]uint64
	seen := buf[:0]
	for r := range records(view(v)) {
		h := x.hash(r.subject)
		if slices.Contains(seen, h) {
			continue
		}
		seen = append(seen, h)
		sh := x.shard(h)
		sh.mu.Lock()
		if !x.holds(key, h) {
			sh.remove(h, key)
		}
		sh.mu.Unlock()
	}
}

// holds reports whether the cache holds a record with subject hash h under
// key.
func (x *subjectIndex) holds(key string, h uint64) bool {
	v, ok := x.get(key)
	if !ok {
		return false
	}
	for r := range records(view(v)) {
		if x.hash(r.subject) == h {
			return true
		}
	}
	return false
}

// add adds entry (h, key) unless present.
func (sh *indexShard) add(h uint64, key string) {
	if k, ok := sh.one[h]; ok {
		if k != key {
			delete(sh.one, h)
			sh.many[h] = []string{k, key}
		}
		return
	}
	ks, ok := sh.many[h]
	if !ok {
		sh.one[h] = key
		return
	}
	if !slices.Contains(ks, key) {
		sh.many[h] = append(ks, key)
	}
}

// remove deletes entry (h, key) if present.
func (sh *indexShard) remove(h uint64, key string) {
	if k, ok := sh.one[h]; ok {
		if k == key {
			delete(sh.one, h)
		}
		return
	}
	ks := sh.many[h]
	i := slices.Index(ks, key)
	if i < 0 {
		return
	}
	ks[i] = ks[len(ks)-1]
	ks = ks[:len(ks)-1]
	if len(ks) == 1 {
		delete(sh.many, h)
		sh.one[h] = ks[0]
		return
	}
	sh.many[h] = ks
}
