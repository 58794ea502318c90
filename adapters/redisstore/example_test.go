package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/middleware"
	"github.com/redis/go-redis/v9"
)

// The examples need a running Redis, so they are compiled but not run.

func Example() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer client.Close()
	store := redisstore.New(client, redisstore.WithPrefix("myapp:embed:"))

	// The middleware records each id it mints under the viewer's key...
	viewer := &middleware.Viewer{Subject: "alice", SessionKey: "host-session-1"}
	m := middleware.Minted{SessionID: "sess-1", Subject: "alice", ExpiresAt: time.Now().Add(24 * time.Hour)}
	if err := store.Add(ctx, viewer.Key(), m); err != nil {
		log.Fatal(err)
	}

	// ...and takes them all at logout, to revoke them.
	ms, err := store.Take(ctx, viewer.Key())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("to revoke:", len(ms))
}

func ExampleStore_Due() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer client.Close()
	store := redisstore.New(client)

	// After a restart, the revokes that failed before it are still queued:
	// retry those whose time has come, and queue again what still fails,
	// one attempt more and due after a longer wait. (The middleware's
	// Kit.Run does this; the schedule is the Kit's.)
	ds, err := store.Due(ctx, 100)
	if err != nil {
		log.Fatal(err)
	}
	var failed []middleware.Deferred
	for _, d := range ds {
		if err := revoke(ctx, d.SessionID); err != nil {
			d.Attempts++
			d.Due = time.Now().Add(middleware.DefaultRevokeBackoff.Delay(d.Attempts))
			failed = append(failed, d)
		}
	}
	if err := store.Defer(ctx, failed); err != nil {
		log.Fatal(err)
	}
}

// revoke stands for the platform call that revokes a session id.
func revoke(context.Context, string) error { return nil }

// Every call is bounded: a Redis that hangs costs a page load at most the
// timeout, DefaultTimeout unless WithTimeout says otherwise, whatever the
// client's own options.
func ExampleWithTimeout() {
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"localhost:7000", "localhost:7001", "localhost:7002"}})
	defer client.Close()
	store := redisstore.New(client, redisstore.WithTimeout(2*time.Second))
	list, err := redisstore.NewEndedLogins(client, 24*time.Hour, redisstore.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	// hand store to the middleware as its SessionStore, and list to
	// gorillasession.Identity.EndedLogins
	_, _ = store, list
}
