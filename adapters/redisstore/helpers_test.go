package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/internal/testredis"
)

// A server is a Redis deployment the tests run against. Every test that
// talks to Redis runs once against each (eachServer): a single
// redis-server, and a three-node Redis Cluster, which refuses with
// CROSSSLOT any command whose keys lie in different hash slots, so that
// such a command fails a test here rather than a host on Cluster.
type server struct {
	name  string
	addrs func(testing.TB) []string
}

var servers = []server{
	{"single", func(tb testing.TB) []string { return []string{testredis.Addr(tb)} }},
	{"cluster", testredis.ClusterAddrs},
}

// eachServer runs fn as a subtest for each server.
func eachServer(t *testing.T, fn func(t *testing.T, srv server)) {
	t.Helper()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) { fn(t, srv) })
	}
}

// client returns a new client of srv, checked with PING and closed when
// the test ends: a redis.Client for a single server, a
// redis.ClusterClient for a cluster.
func (srv server) client(tb testing.TB) redis.UniversalClient {
	tb.Helper()
	addrs := srv.addrs(tb)
	var c redis.UniversalClient
	if srv.name == "cluster" {
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	} else {
		c = redis.NewClient(&redis.Options{Addr: addrs[0]})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		tb.Fatalf("redis %s at %s does not answer: %v", srv.name, strings.Join(addrs, ","), err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
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

// flush deletes the keys under prefix, and only those, one key a command:
// in a cluster, keys of different slots cannot go in one UNLINK.
func flush(tb testing.TB, c redis.UniversalClient, prefix string) {
	tb.Helper()
	ctx := context.Background()
	keys := keysUnder(tb, c, prefix)
	if len(keys) == 0 {
		return
	}
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Unlink(ctx, k)
		}
		return nil
	})
	if err != nil {
		tb.Errorf("flush %s: %v", prefix, err)
	}
}

// keysUnder lists the Redis keys under prefix, on every primary of a
// cluster.
func keysUnder(tb testing.TB, c redis.UniversalClient, prefix string) []string {
	tb.Helper()
	ctx := context.Background()
	var (
		mu  sync.Mutex
		out []string
	)
	scan := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			out = append(out, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	} else {
		err = scan(ctx, c)
	}
	if err != nil {
		tb.Fatalf("listing keys under %s: %v", prefix, err)
	}
	return out
}

type fakeClock = testkit.Clock

func newFakeClock() *fakeClock {
	return testkit.NewClock(time.Now().Truncate(time.Millisecond))
}
