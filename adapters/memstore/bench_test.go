package memstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

// benchSessions is how many host sessions the store holds while the
// benchmark runs.
const benchSessions = 100_000

// randomHex returns n random bytes in hex: the shape of host session keys
// and platform session ids.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// fill stores benchSessions host sessions, perKey ids each, and returns
// the heap bytes that the store retains per stored id. Keys are "s:" and
// 32 hex digits, session ids 36 characters, subjects like
// "user-012345@example.com".
func fill(b *testing.B, s *Store, perKey int) float64 {
	b.Helper()
	ctx := context.Background()
	exp := time.Now().Add(24 * time.Hour)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range benchSessions {
		key := "s:" + randomHex(16)
		subject := fmt.Sprintf("user-%06d@example.com", i)
		for range perKey {
			m := middleware.Minted{SessionID: randomHex(18), Subject: subject, ExpiresAt: exp}
			if err := s.Add(ctx, key, m); err != nil {
				b.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(benchSessions*perKey)
}

// BenchmarkStore measures, with 100,000 host sessions already stored, one
// Add and one Take (fetch all) of a host session: the work of one embed
// load and one logout. B/id is the heap the store retains per stored id
// (runtime.GC and MemStats.HeapAlloc before and after storing them); the
// 1-id and 4-id variants store that many ids per host session.
func BenchmarkStore(b *testing.B) {
	for _, perKey := range []int{1, 4} {
		name := "memory"
		if perKey != 1 {
			name = fmt.Sprintf("memory/%d-ids", perKey)
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			s := New()
			perID := fill(b, s, perKey)
			m := middleware.Minted{SessionID: randomHex(18), Subject: "user-bench@example.com", ExpiresAt: time.Now().Add(24 * time.Hour)}
			key := "s:" + randomHex(16)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := s.Add(ctx, key, m); err != nil {
					b.Fatal(err)
				}
				if ms, err := s.Take(ctx, key); err != nil || len(ms) != 1 {
					b.Fatalf("Take = %d records, %v", len(ms), err)
				}
			}
			b.StopTimer()
			b.ReportMetric(perID, "B/id")
			if s.Len() < benchSessions {
				b.Fatalf("store lost host sessions: %d left", s.Len())
			}
		})
	}
	b.Run("memory/parallel", func(b *testing.B) {
		s := New()
		fill(b, s, 1)
		exp := time.Now().Add(24 * time.Hour)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			key := "s:" + randomHex(16)
			m := middleware.Minted{SessionID: randomHex(18), Subject: "user-bench@example.com", ExpiresAt: exp}
			for pb.Next() {
				if err := s.Add(ctx, key, m); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Take(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkAddToFullKey measures Add to a host session that already holds
// DefaultMaxPerKey records (see storetest.BenchAddToFullKey).
func BenchmarkAddToFullKey(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		storetest.BenchAddToFullKey(b, New(), DefaultMaxPerKey)
	})
}
