package memstore

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/embedkit/embedkit/adapters/storetest"
)

// benchSessions is how many host sessions the store holds while the
// benchmark runs.
const benchSessions = 100_000

// fill stores benchSessions host sessions, perKey ids each
// (storetest.Fill), and returns the heap bytes that the store retains per
// stored id.
func fill(b *testing.B, s *Store, perKey int) float64 {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	storetest.Fill(b, s, benchSessions, perKey, 1)
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
			s := New()
			perID := fill(b, s, perKey)
			b.ResetTimer()
			storetest.BenchAddTake(b, s, false)
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
		b.ResetTimer()
		storetest.BenchAddTake(b, s, true)
	})
}

// BenchmarkAddToFullKey measures Add to a host session that already holds
// DefaultMaxPerKey records (see storetest.BenchAddToFullKey).
func BenchmarkAddToFullKey(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		storetest.BenchAddToFullKey(b, New(), DefaultMaxPerKey)
	})
}
