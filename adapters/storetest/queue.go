package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// RunQueue checks a middleware.RevokeQueue on its own: a plain queue
// ordered by due time, whose schedule is its caller's (Run checks the
// queue of a store that has one). newQueue is called once per subtest and
// must return an empty queue whose clock is the real one.
func RunQueue(t *testing.T, newQueue func(t *testing.T) middleware.RevokeQueue) {
	t.Helper()
	f := newFixture()
	queue := newQueue
	// due makes a record due i seconds before now (past) or after (i > 0),
	// after attempts failed attempts.
	due := func(m middleware.Minted, i, attempts int) middleware.Deferred {
		return middleware.Deferred{Minted: m, Attempts: attempts, Due: f.base.Add(time.Duration(i) * time.Second)}
	}

	t.Run("due on an empty queue returns no records", func(t *testing.T) {
		q := queue(t)
		got, err := q.Due(t.Context(), 10)
		if err != nil || len(got) != 0 {
			t.Errorf("Due = %s, %v; want no records, nil", describeDeferred(got), err)
		}
		if n, err := q.Pending(t.Context()); err != nil || n != 0 {
			t.Errorf("Pending = %d, %v; want 0, nil", n, err)
		}
	})

	t.Run("defer of no records is a no-op", func(t *testing.T) {
		q := queue(t)
		if err := q.Defer(t.Context(), nil); err != nil {
			t.Errorf("Defer(nil): %v", err)
		}
		if n, err := q.Pending(t.Context()); err != nil || n != 0 {
			t.Errorf("Pending = %d, %v; want 0, nil", n, err)
		}
	})

	t.Run("a record without a session id is refused and nothing is queued", func(t *testing.T) {
		q := queue(t)
		ds := []middleware.Deferred{due(f.live("r-1", "alice"), -1, 1), due(f.live("", "alice"), -1, 1)}
		if err := q.Defer(t.Context(), ds); err == nil {
			t.Error("Defer of a record without a session id: nil error")
		}
		if n, err := q.Pending(t.Context()); err != nil || n != 0 {
			t.Errorf("Pending = %d, %v; want 0, nil", n, err)
		}
	})

	t.Run("pending counts every queued record, due or not", func(t *testing.T) {
		q := queue(t)
		ds := []middleware.Deferred{due(f.live("r-1", "alice"), -5, 1), due(f.live("r-2", "alice"), 3600, 2), due(f.live("r-3", "bob"), 60, 1)}
		if err := q.Defer(t.Context(), ds); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		if n, err := q.Pending(t.Context()); err != nil || n != 3 {
			t.Errorf("Pending = %d, %v; want 3, nil", n, err)
		}
	})

	t.Run("due returns due records once, earliest first, at most n at a time, with their schedule", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		ds := []middleware.Deferred{
			due(f.live("r-3", "bob"), -30, 3), due(f.live("r-1", "alice"), -50, 1), due(f.live("r-5", "carol"), -10, 5),
			due(f.live("r-2", "alice"), -40, 2), due(f.live("r-4", "bob"), -20, 4),
		}
		if err := q.Defer(ctx, ds); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		got := collectDue(t, q, 2, len(ds))
		var ids []string
		for _, d := range got {
			ids = append(ids, d.SessionID)
		}
		if want := []string{"r-1", "r-2", "r-3", "r-4", "r-5"}; !slices.Equal(ids, want) {
			t.Errorf("Due order %v, want %v (earliest due first)", ids, want)
		}
		for _, d := range got {
			var in middleware.Deferred
			for _, x := range ds {
				if x.SessionID == d.SessionID {
					in = x
				}
			}
			if !equal(d.Minted, in.Minted) || d.Attempts != in.Attempts || !d.Due.Equal(in.Due) {
				t.Errorf("Due returned %s, deferred %s", describeDeferred([]middleware.Deferred{d}), describeDeferred([]middleware.Deferred{in}))
			}
		}
		if n, err := q.Pending(ctx); err != nil || n != 0 {
			t.Errorf("Pending after Due = %d, %v; want 0, nil", n, err)
		}
		if again, err := q.Due(ctx, 10); err != nil || len(again) != 0 {
			t.Errorf("Due after Due = %s, %v; want no records, nil", describeDeferred(again), err)
		}
	})

	t.Run("a record not yet due stays queued", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		if err := q.Defer(ctx, []middleware.Deferred{due(f.live("r-later", "alice"), 3600, 1), due(f.live("r-now", "alice"), -1, 1)}); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		got, err := q.Due(ctx, 10)
		if err != nil || len(got) != 1 || got[0].SessionID != "r-now" {
			t.Errorf("Due = %s, %v; want r-now only", describeDeferred(got), err)
		}
		if n, err := q.Pending(ctx); err != nil || n != 1 {
			t.Errorf("Pending = %d, %v; want 1 (r-later), nil", n, err)
		}
	})

	t.Run("due of n below one returns no records", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		if err := q.Defer(ctx, []middleware.Deferred{due(f.live("r-1", "alice"), -1, 1)}); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		for _, n := range []int{0, -1} {
			if got, err := q.Due(ctx, n); err != nil || len(got) != 0 {
				t.Errorf("Due(%d) = %s, %v; want no records, nil", n, describeDeferred(got), err)
			}
		}
		if n, err := q.Pending(ctx); err != nil || n != 1 {
			t.Errorf("Pending = %d, %v; want 1, nil", n, err)
		}
	})

	t.Run("expired records are dropped", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		ds := []middleware.Deferred{due(f.expired("r-old", "alice"), -1, 1), due(f.live("r-1", "alice"), -1, 1)}
		if err := q.Defer(ctx, ds); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		if n, err := q.Pending(ctx); err != nil || n != 1 {
			t.Errorf("Pending = %d, %v; want 1, nil", n, err)
		}
		got := collectDue(t, q, 10, 1)
		if diff := compare(minted(got), []middleware.Minted{f.live("r-1", "alice")}); diff != "" {
			t.Errorf("Due: %s", diff)
		}
	})

	t.Run("deferring a queued id replaces it", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		if err := q.Defer(ctx, []middleware.Deferred{due(f.live("r-1", "alice"), 3600, 1)}); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		if err := q.Defer(ctx, []middleware.Deferred{due(f.live("r-1", "alice"), -1, 2)}); err != nil {
			t.Fatalf("second Defer: %v", err)
		}
		if n, err := q.Pending(ctx); err != nil || n != 1 {
			t.Errorf("Pending after the second Defer = %d, %v; want 1, nil", n, err)
		}
		got := collectDue(t, q, 10, 1)
		if len(got) != 1 || got[0].Attempts != 2 {
			t.Errorf("Due = %s; want r-1 with 2 attempts, due now", describeDeferred(got))
		}
	})

	t.Run("records deferred again are due again", func(t *testing.T) {
		ctx := t.Context()
		q := queue(t)
		if err := q.Defer(ctx, []middleware.Deferred{due(f.live("r-1", "alice"), -1, 1)}); err != nil {
			t.Fatalf("Defer: %v", err)
		}
		first := collectDue(t, q, 10, 1)
		for i := range first {
			first[i].Attempts++
		}
		if err := q.Defer(ctx, first); err != nil {
			t.Fatalf("second Defer: %v", err)
		}
		again := collectDue(t, q, 10, 1)
		if len(again) != 1 || again[0].SessionID != "r-1" || again[0].Attempts != 2 {
			t.Errorf("second Due = %s; want r-1 with 2 attempts", describeDeferred(again))
		}
	})
}

// collectDue calls Due(n) until want records came back or dueWait passed,
// checking that no call returns more than n.
func collectDue(t *testing.T, q middleware.RevokeQueue, n, want int) []middleware.Deferred {
	t.Helper()
	var got []middleware.Deferred
	deadline := time.Now().Add(dueWait)
	for len(got) < want && time.Now().Before(deadline) {
		ds, err := q.Due(t.Context(), n)
		if err != nil {
			t.Fatalf("Due(%d): %v", n, err)
		}
		if len(ds) > n {
			t.Fatalf("Due(%d) returned %d records", n, len(ds))
		}
		got = append(got, ds...)
		if len(ds) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return got
}

// minted returns the records of ds.
func minted(ds []middleware.Deferred) []middleware.Minted {
	out := make([]middleware.Minted, len(ds))
	for i, d := range ds {
		out[i] = d.Minted
	}
	return out
}

func describeDeferred(ds []middleware.Deferred) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s attempts=%d due=%s", describe(d.Minted), d.Attempts, d.Due.UTC().Format(time.RFC3339Nano))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
