package storetest_test

import (
	"context"
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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append(s.m[key], m)
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
