package storetest

import (
	"context"
	"fmt"
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
