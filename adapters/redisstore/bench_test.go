package redisstore

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/internal/testredis"
	"github.com/redis/go-redis/v9"
)

// benchSessions is how many host sessions the store holds while the
// benchmark runs.
const benchSessions = 100_000

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
	c := redis.NewClient(&redis.Options{Addr: testredis.Addr(b), PoolSize: 64})
	b.Cleanup(func() { _ = c.Close() })
	s := New(c, WithPrefix(newPrefix(b, c)))

	before := usedMemory(b, c)
	storetest.Fill(b, s, benchSessions, 1, 32)
	perID := float64(usedMemory(b, c)-before) / benchSessions

	b.Run("redis", func(b *testing.B) {
		storetest.BenchAddTake(b, s, false)
		b.ReportMetric(perID, "redis-bytes/id")
	})
	b.Run("redis/parallel", func(b *testing.B) {
		storetest.BenchAddTake(b, s, true)
	})
}

// BenchmarkAddToFullKey measures Add to a host session that already holds
// DefaultMaxPerKey records (see storetest.BenchAddToFullKey), over
// loopback. Compare with BenchmarkStore/redis, an Add and a Take of a host
// session with one id.
func BenchmarkAddToFullKey(b *testing.B) {
	b.Run("redis", func(b *testing.B) {
		c := redis.NewClient(&redis.Options{Addr: testredis.Addr(b)})
		b.Cleanup(func() { _ = c.Close() })
		storetest.BenchAddToFullKey(b, New(c, WithPrefix(newPrefix(b, c))), DefaultMaxPerKey)
	})
}
