package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
	"github.com/redis/go-redis/v9"
)

// benchSessions is how many host sessions the store holds while the
// benchmark runs.
const benchSessions = 100_000

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// usedMemory returns Redis's used_memory.
func usedMemory(b *testing.B, c redis.UniversalClient) int64 {
	b.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}

// BenchmarkStore measures, with 100,000 host sessions already stored (one
// id each, keys of "s:" and 32 hex digits, 36-character ids), one Add and
// one Take (fetch all) of a host session: the work of one embed load and
// one logout, over loopback. redis-bytes/id is the growth of Redis's
// used_memory per stored id, index included.
func BenchmarkStore(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: redisAddr(b), PoolSize: 64})
	b.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	s := New(c, WithPrefix(newPrefix(b, c)))

	before := usedMemory(b, c)
	exp := time.Now().Add(24 * time.Hour)
	var wg sync.WaitGroup
	const workers = 32
	for w := range workers {
		wg.Go(func() {
			for i := w; i < benchSessions; i += workers {
				m := middleware.Minted{SessionID: randomHex(18), Subject: fmt.Sprintf("user-%06d@example.com", i), ExpiresAt: exp}
				if err := s.Add(ctx, "s:"+randomHex(16), m); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	perID := float64(usedMemory(b, c)-before) / benchSessions

	b.Run("redis", func(b *testing.B) {
		m := middleware.Minted{SessionID: randomHex(18), Subject: "user-bench@example.com", ExpiresAt: exp}
		key := "s:" + randomHex(16)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Add(ctx, key, m); err != nil {
				b.Fatal(err)
			}
			if ms, err := s.Take(ctx, key); err != nil || len(ms) != 1 {
				b.Fatalf("Take = %d records, %v", len(ms), err)
			}
		}
		b.ReportMetric(perID, "redis-bytes/id")
	})
	b.Run("redis/parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			m := middleware.Minted{SessionID: randomHex(18), Subject: "user-bench@example.com", ExpiresAt: exp}
			key := "s:" + randomHex(16)
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
// DefaultMaxPerKey records (see storetest.BenchAddToFullKey), over
// loopback. Compare with BenchmarkStore/redis, an Add and a Take of a host
// session with one id.
func BenchmarkAddToFullKey(b *testing.B) {
	b.Run("redis", func(b *testing.B) {
		c := redis.NewClient(&redis.Options{Addr: redisAddr(b)})
		b.Cleanup(func() { _ = c.Close() })
		storetest.BenchAddToFullKey(b, New(c, WithPrefix(newPrefix(b, c))), DefaultMaxPerKey)
	})
}
