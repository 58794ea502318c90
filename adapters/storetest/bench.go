package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// BenchAddToFullKey measures Add to a host session key that already holds
// full records, the store's bound per key, so that every Add pushes the
// oldest record out: the cost of an embed load for a sign-in that has
// loaded embeds all day (a dashboard left open and reloading). s must be
// an empty store that keeps full records per key. A store that implements
// middleware.RevokeQueue has its queue emptied every 256 Adds, as the
// middleware's retrier would.
func BenchAddToFullKey(b *testing.B, s middleware.SessionStore, full int) {
	b.Helper()
	ctx := context.Background()
	q, _ := s.(middleware.RevokeQueue)
	const key = "s:bench-full-key"
	exp := time.Now().Add(24 * time.Hour)
	// Ids in mint order, a millisecond apart: the order a store that
	// keeps milliseconds sees them in too.
	add := func(i int) {
		m := middleware.Minted{SessionID: fmt.Sprintf("%032x", i), Subject: "user-bench@example.com", ExpiresAt: exp.Add(time.Duration(i) * time.Millisecond)}
		if err := s.Add(ctx, key, m); err != nil {
			b.Fatal(err)
		}
	}
	for i := range full {
		add(i)
	}
	i := full
	b.ReportAllocs()
	for b.Loop() {
		add(i)
		if i++; q != nil && i%256 == 0 {
			if _, err := q.Due(ctx, 256); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Fill stores sessions host sessions with perKey session ids each, from
// workers goroutines, in the shapes the middleware writes: keys of "s:"
// and 32 hex digits, 36-character random ids, subjects like
// "user-012345@example.com", records a day from expiry. It is the
// population a store's benchmarks measure against; the caller measures
// what it costs (heap, Redis's used_memory). It fails b on the first
// error.
func Fill(b *testing.B, s middleware.SessionStore, sessions, perKey, workers int) {
	b.Helper()
	ctx := context.Background()
	exp := time.Now().Add(24 * time.Hour)
	workers = max(workers, 1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < sessions; i += workers {
				key := "s:" + randomHex(16)
				subject := fmt.Sprintf("user-%06d@example.com", i)
				for range perKey {
					m := middleware.Minted{SessionID: randomHex(18), Subject: subject, ExpiresAt: exp}
					if err := s.Add(ctx, key, m); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// BenchAddTake measures one Add and one Take of a host session with one
// id: the work of one embed load and one logout. With parallel set, it
// runs on every GOMAXPROCS goroutine, each with a host session of its
// own.
func BenchAddTake(b *testing.B, s middleware.SessionStore, parallel bool) {
	b.Helper()
	ctx := context.Background()
	exp := time.Now().Add(24 * time.Hour)
	one := func() (string, middleware.Minted) {
		return "s:" + randomHex(16), middleware.Minted{SessionID: randomHex(18), Subject: "user-bench@example.com", ExpiresAt: exp}
	}
	b.ReportAllocs()
	if !parallel {
		key, m := one()
		for b.Loop() {
			if err := s.Add(ctx, key, m); err != nil {
				b.Fatal(err)
			}
			if ms, err := s.Take(ctx, key); err != nil || len(ms) != 1 {
				b.Fatalf("Take = %d records, %v; want the one added", len(ms), err)
			}
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		key, m := one()
		for pb.Next() {
			if err := s.Add(ctx, key, m); err != nil {
				b.Error(err)
				return
			}
			if ms, err := s.Take(ctx, key); err != nil || len(ms) != 1 {
				b.Errorf("Take = %d records, %v; want the one added", len(ms), err)
				return
			}
		}
	})
}

// randomHex returns n random bytes in hex: the shape of host session keys
// and platform session ids.
func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}
