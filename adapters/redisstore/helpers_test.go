package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/internal/testredis"
)

// redisAddr returns the address of the test redis-server: the one the test
// command started, or a private one (see internal/testredis). Without
// either the test fails; it never skips.
func redisAddr(tb testing.TB) string {
	tb.Helper()
	return testredis.Addr(tb)
}

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
}

// newClient connects to the test redis-server and closes the client when
// the test ends.
func newClient(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr(tb)})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		tb.Fatalf("redis at %s does not answer: %v", c.Options().Addr, err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// newPrefix returns a key prefix no other test uses, and deletes every key
// under it when the test ends.
func newPrefix(tb testing.TB, c redis.UniversalClient) string {
	tb.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	prefix := "embedkit-test:" + hex.EncodeToString(b) + ":"
	tb.Cleanup(func() { flush(tb, c, prefix) })
	return prefix
}

// flush deletes the keys under prefix, and only those.
func flush(tb testing.TB, c redis.UniversalClient, prefix string) {
	tb.Helper()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) == 1000 {
			if err := c.Unlink(ctx, batch...).Err(); err != nil {
				tb.Errorf("flush %s: %v", prefix, err)
			}
			batch = batch[:0]
		}
	}
	if err := iter.Err(); err != nil {
		tb.Errorf("flush %s: %v", prefix, err)
	}
	if len(batch) > 0 {
		if err := c.Unlink(ctx, batch...).Err(); err != nil {
			tb.Errorf("flush %s: %v", prefix, err)
		}
	}
}

// keysUnder lists the Redis keys under prefix.
func keysUnder(tb testing.TB, c redis.UniversalClient, prefix string) []string {
	tb.Helper()
	ctx := context.Background()
	var out []string
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		out = append(out, iter.Val())
	}
	if err := iter.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

type fakeClock = testkit.Clock

func newFakeClock() *fakeClock {
	return testkit.NewClock(time.Now().Truncate(time.Millisecond))
}
