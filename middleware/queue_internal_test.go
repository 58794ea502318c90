package middleware

import (
	"context"
	"testing"
	"time"
)

// TestMemoryQueueForgets: the queue keeps nothing of a record once Due has
// handed it out, or once it expired, so a mass logout's queue costs no
// memory afterwards.
func TestMemoryQueueForgets(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	q := NewMemoryQueue(func() time.Time { return now })
	ctx := context.Background()
	rec := func(id string, exp time.Duration) Deferred {
		return Deferred{Minted: Minted{SessionID: id, Subject: "alice", ExpiresAt: now.Add(exp)}, Attempts: 1, Due: now}
	}
	if err := q.Defer(ctx, []Deferred{rec("handed-out", time.Hour), rec("expires", time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Due(ctx, 1); len(got) != 1 || got[0].SessionID != "handed-out" && got[0].SessionID != "expires" {
		t.Fatalf("Due = %v", got)
	}
	now = now.Add(2 * time.Minute)
	if n, err := q.Pending(ctx); err != nil || n != 0 {
		t.Fatalf("Pending = %d, %v; want 0", n, err)
	}
	if len(q.byID) != 0 || len(q.order) != 0 {
		t.Errorf("the queue remembers %d ids (%d in order), want none", len(q.byID), len(q.order))
	}
}
