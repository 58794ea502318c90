package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/middleware"
)

func Example() {
	ctx := context.Background()
	store := memstore.New()

	// The middleware records each id it mints under the viewer's key...
	viewer := &middleware.Viewer{Subject: "alice", SessionKey: "host-session-1"}
	exp := time.Now().Add(24 * time.Hour)
	_ = store.Add(ctx, viewer.Key(), middleware.Minted{SessionID: "sess-1", Subject: "alice", ExpiresAt: exp})
	_ = store.Add(ctx, viewer.Key(), middleware.Minted{SessionID: "sess-2", Subject: "alice", ExpiresAt: exp})

	// ...and takes them all at logout, to revoke them.
	ms, _ := store.Take(ctx, viewer.Key())
	fmt.Println("to revoke:", len(ms))
	ms, _ = store.Take(ctx, viewer.Key())
	fmt.Println("left:", len(ms))
	// Output:
	// to revoke: 2
	// left: 0
}

func ExampleStore_TakeSubject() {
	ctx := context.Background()
	store := memstore.New()
	exp := time.Now().Add(24 * time.Hour)
	_ = store.Add(ctx, "s:laptop", middleware.Minted{SessionID: "sess-1", Subject: "alice", ExpiresAt: exp})
	_ = store.Add(ctx, "s:phone", middleware.Minted{SessionID: "sess-2", Subject: "alice", ExpiresAt: exp})
	_ = store.Add(ctx, "s:phone", middleware.Minted{SessionID: "sess-3", Subject: "bob", ExpiresAt: exp})

	// A back-channel logout for alice ends her sessions on every device.
	ms, _ := store.TakeSubject(ctx, "alice")
	fmt.Println("alice:", len(ms))
	ms, _ = store.Take(ctx, "s:phone")
	fmt.Println("left on the phone:", ms[0].Subject)
	// Output:
	// alice: 2
	// left on the phone: bob
}

func ExampleStore_Due() {
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	store := memstore.New(memstore.WithClock(func() time.Time { return now }))

	// A revoke failed at logout: the middleware queues it, due after its
	// backoff (here 10 s, its first attempt having failed).
	failed := []middleware.Deferred{{
		Minted:   middleware.Minted{SessionID: "sess-1", Subject: "alice", ExpiresAt: now.Add(24 * time.Hour)},
		Attempts: 1,
		Due:      now.Add(10 * time.Second),
	}}
	_ = store.Defer(ctx, failed)

	ds, _ := store.Due(ctx, 100)
	fmt.Println("due at once:", len(ds))
	now = now.Add(10 * time.Second)
	ds, _ = store.Due(ctx, 100)
	fmt.Println("due after the backoff:", len(ds), "attempts so far:", ds[0].Attempts)
	// Output:
	// due at once: 0
	// due after the backoff: 1 attempts so far: 1
}
