package storetest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

// mapStore is the smallest correct SessionStore: a map under a mutex. The
// suite must pass it, and skip the capabilities it lacks.
type mapStore struct {
	mu sync.Mutex
	m  map[string][]middleware.Minted
}

func (s *mapStore) Add(_ context.Context, key string, m middleware.Minted) error {
	if m.SessionID == "" {
		return errors.New("mapStore: record has no session id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := slices.DeleteFunc(s.m[key], func(r middleware.Minted) bool { return r.SessionID == m.SessionID })
	s.m[key] = append(recs, m)
	return nil
}

func (s *mapStore) Take(_ context.Context, key string) ([]middleware.Minted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []middleware.Minted
	for _, m := range s.m[key] {
		if m.ExpiresAt.After(time.Now()) {
			out = append(out, m)
		}
	}
	delete(s.m, key)
	return out, nil
}

func TestRunOnAMapStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) middleware.SessionStore {
		return &mapStore{m: make(map[string][]middleware.Minted)}
	})
}

// countStore counts the records added to it and checks that each comes
// with a session id after the last one's, keeping nothing else.
type countStore struct {
	keys   map[string]bool
	adds   int
	lastID string
	dup    bool
}

func (s *countStore) Add(_ context.Context, key string, m middleware.Minted) error {
	s.keys[key] = true
	s.adds++
	if m.SessionID <= s.lastID {
		s.dup = true
	}
	s.lastID = m.SessionID
	return nil
}

func (s *countStore) Take(context.Context, string) ([]middleware.Minted, error) { return nil, nil }

// TestBenchAddToFullKey runs the benchmark helper on countStore and checks
// that it filled one key with the given number of records before the
// timed loop and added one record, with an id of its own, for each
// iteration.
func TestBenchAddToFullKey(t *testing.T) {
	const full = 8
	var s *countStore
	var n int
	r := testing.Benchmark(func(b *testing.B) {
		s = &countStore{keys: map[string]bool{}}
		storetest.BenchAddToFullKey(b, s, full)
		n = b.N
	})
	if r.N == 0 {
		t.Fatal("the benchmark failed")
	}
	if len(s.keys) != 1 {
		t.Errorf("the benchmark used %d keys, want 1", len(s.keys))
	}
	if s.adds != full+n {
		t.Errorf("%d records added, want %d to fill the key and %d timed", s.adds, full, n)
	}
	if s.dup {
		t.Error("a session id came again, or out of mint order")
	}
}

// TestFillAndBenchAddTake runs the population helper and the Add-and-Take
// benchmark on mapStore: Fill stores exactly sessions keys of perKey
// distinct ids, from several workers; BenchAddTake's loops pass on a
// correct store.
func TestFillAndBenchAddTake(t *testing.T) {
	var s *mapStore
	r := testing.Benchmark(func(b *testing.B) {
		s = &mapStore{m: make(map[string][]middleware.Minted)}
		storetest.Fill(b, s, 10, 3, 4)
		storetest.BenchAddTake(b, s, false)
		storetest.BenchAddTake(b, s, true)
	})
	if r.N == 0 {
		t.Fatal("the benchmark failed")
	}
	ids := map[string]bool{}
	for key, ms := range s.m {
		if len(ms) != 3 || !strings.HasPrefix(key, "s:") {
			t.Errorf("key %q holds %d records, want 3", key, len(ms))
		}
		for _, m := range ms {
			ids[m.SessionID] = true
		}
	}
	if len(s.m) != 10 || len(ids) != 30 {
		t.Errorf("Fill stored %d keys and %d distinct ids, want 10 and 30", len(s.m), len(ids))
	}
}
