package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// dueWait is how long the suite polls Due for deferred records to become
// due.
const dueWait = 10 * time.Second

// Run runs the conformance suite as subtests of t. newStore is called once
// per subtest and must return an empty store that no other subtest uses.
func Run(t *testing.T, newStore func(t *testing.T) middleware.SessionStore) {
	t.Helper()
	t.Run("SessionStore", func(t *testing.T) { runSessionStore(t, newStore) })
	probe := newStore(t)
	if _, ok := probe.(middleware.SubjectIndex); ok {
		t.Run("SubjectIndex", func(t *testing.T) { runSubjectIndex(t, newStore) })
	} else {
		t.Log("store does not implement middleware.SubjectIndex: those cases do not apply")
	}
	if _, ok := probe.(middleware.RevokeQueue); ok {
		t.Run("RevokeQueue", func(t *testing.T) {
			RunQueue(t, func(t *testing.T) middleware.RevokeQueue { return newStore(t).(middleware.RevokeQueue) })
		})
	} else {
		t.Log("store does not implement middleware.RevokeQueue: those cases do not apply")
	}
}

// RunBounded checks a store that bounds the records per host session key.
// newStore returns an empty store holding at most maxPerKey records per
// key. When a key is full, the record that expires first leaves it: an
// older one, or the new record itself when it expires first. A store that
// implements middleware.RevokeQueue hands the record that left to its
// queue, so that it is revoked rather than forgotten.
func RunBounded(t *testing.T, newStore func(t *testing.T, maxPerKey int) middleware.SessionStore) {
	t.Helper()
	f := newFixture()
	at := func(id string, h int) middleware.Minted {
		return middleware.Minted{SessionID: id, Subject: "alice", ExpiresAt: f.base.Add(time.Duration(h) * time.Hour)}
	}
	tests := []struct {
		name     string
		max      int
		adds     []middleware.Minted
		wantKept []middleware.Minted
		wantLeft []middleware.Minted
	}{
		{
			name:     "a full key lets go of the record that expires first",
			max:      3,
			adds:     []middleware.Minted{at("b", 2), at("a", 1), at("c", 3), at("d", 4)},
			wantKept: []middleware.Minted{at("b", 2), at("c", 3), at("d", 4)},
			wantLeft: []middleware.Minted{at("a", 1)},
		},
		{
			name:     "a new record that expires first is the one that leaves",
			max:      2,
			adds:     []middleware.Minted{at("b", 2), at("c", 3), at("a", 1)},
			wantKept: []middleware.Minted{at("b", 2), at("c", 3)},
			wantLeft: []middleware.Minted{at("a", 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, tt.max)
			for _, m := range tt.adds {
				mustAdd(t, s, "s:full", m)
			}
			q, queues := s.(middleware.RevokeQueue)
			if queues {
				if n, err := q.Pending(t.Context()); err != nil || n != len(tt.wantLeft) {
					t.Errorf("Pending = %d, %v; want the %d record(s) that left the key", n, err, len(tt.wantLeft))
				}
				left := collectDue(t, q, 10, len(tt.wantLeft))
				if diff := compare(minted(left), tt.wantLeft); diff != "" {
					t.Errorf("Due: %s", diff)
				}
				for _, d := range left {
					if d.Attempts != 0 {
						t.Errorf("a record pushed out of a full key is queued with %d attempts, want 0", d.Attempts)
					}
				}
			}
			got, err := s.Take(t.Context(), "s:full")
			if err != nil {
				t.Fatalf("Take: %v", err)
			}
			if diff := compare(got, tt.wantKept); diff != "" {
				t.Errorf("Take: %s", diff)
			}
		})
	}
}

// fixture makes records for the suite. Times are whole milliseconds so that
// stores keeping millisecond precision compare equal.
type fixture struct {
	base time.Time
}

func newFixture() fixture {
	return fixture{base: time.Now().Truncate(time.Millisecond)}
}

// live returns a record that expires a day from now.
func (f fixture) live(id, subject string) middleware.Minted {
	return middleware.Minted{SessionID: id, Subject: subject, ExpiresAt: f.base.Add(24 * time.Hour)}
}

// expired returns a record that expired an hour ago.
func (f fixture) expired(id, subject string) middleware.Minted {
	return middleware.Minted{SessionID: id, Subject: subject, ExpiresAt: f.base.Add(-time.Hour)}
}

func runSessionStore(t *testing.T, newStore func(t *testing.T) middleware.SessionStore) {
	f := newFixture()
	type add struct {
		key string
		m   middleware.Minted
	}
	type take struct {
		key  string
		want []middleware.Minted
	}
	tests := []struct {
		name  string
		adds  []add
		takes []take
	}{
		{
			name:  "take of a missing key returns no records",
			takes: []take{{key: "s:missing"}},
		},
		{
			name: "take returns every record added",
			adds: []add{
				{"s:a", f.live("id-1", "alice")},
				{"s:a", f.live("id-2", "alice")},
				{"s:a", f.live("id-3", "alice")},
			},
			takes: []take{{key: "s:a", want: []middleware.Minted{
				f.live("id-1", "alice"), f.live("id-2", "alice"), f.live("id-3", "alice"),
			}}},
		},
		{
			name: "take removes the records",
			adds: []add{{"s:a", f.live("id-1", "alice")}},
			takes: []take{
				{key: "s:a", want: []middleware.Minted{f.live("id-1", "alice")}},
				{key: "s:a"},
			},
		},
		{
			name: "records keep subject and expiry",
			adds: []add{
				{"s:a", f.live("id-1", "alice")},
				{"s:a", middleware.Minted{SessionID: "id-2", Subject: "bob@example.com", ExpiresAt: f.base.Add(90 * time.Minute)}},
			},
			takes: []take{{key: "s:a", want: []middleware.Minted{
				f.live("id-1", "alice"),
				{SessionID: "id-2", Subject: "bob@example.com", ExpiresAt: f.base.Add(90 * time.Minute)},
			}}},
		},
		{
			name: "subjects survive exactly, empty and spaced ones too",
			adds: []add{
				{"s:a", f.live("id-1", "")},
				{"s:a", f.live("id-2", " x y ")},
			},
			takes: []take{{key: "s:a", want: []middleware.Minted{f.live("id-1", ""), f.live("id-2", " x y ")}}},
		},
		{
			name: "keys are independent",
			adds: []add{
				{"s:a", f.live("id-1", "alice")},
				{"s:b", f.live("id-2", "alice")},
				{"u:alice", f.live("id-3", "alice")},
			},
			takes: []take{
				{key: "s:a", want: []middleware.Minted{f.live("id-1", "alice")}},
				{key: "s:a"},
				{key: "s:b", want: []middleware.Minted{f.live("id-2", "alice")}},
				{key: "u:alice", want: []middleware.Minted{f.live("id-3", "alice")}},
			},
		},
		{
			name: "expired records are not returned",
			adds: []add{
				{"s:a", f.expired("id-old", "alice")},
				{"s:a", f.live("id-1", "alice")},
				{"s:b", f.expired("id-old-2", "alice")},
			},
			takes: []take{
				{key: "s:a", want: []middleware.Minted{f.live("id-1", "alice")}},
				{key: "s:b"},
			},
		},
		{
			name: "keys that differ only in case or padding are distinct",
			adds: []add{
				{"s:A", f.live("id-1", "alice")},
				{"s:a ", f.live("id-2", "alice")},
			},
			takes: []take{
				{key: "s:a"},
				{key: "s:A", want: []middleware.Minted{f.live("id-1", "alice")}},
				{key: "s:a ", want: []middleware.Minted{f.live("id-2", "alice")}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := newStore(t)
			for _, a := range tt.adds {
				if err := s.Add(ctx, a.key, a.m); err != nil {
					t.Fatalf("Add(%q, %s): %v", a.key, describe(a.m), err)
				}
			}
			for i, tk := range tt.takes {
				got, err := s.Take(ctx, tk.key)
				if err != nil {
					t.Fatalf("Take #%d (%q): %v", i+1, tk.key, err)
				}
				if diff := compare(got, tk.want); diff != "" {
					t.Errorf("Take #%d (%q): %s", i+1, tk.key, diff)
				}
			}
		})
	}

	t.Run("add racing take loses and duplicates nothing", func(t *testing.T) {
		testAddTakeRace(t, newStore(t))
	})
}

// testAddTakeRace has 50 goroutines add one record each to one key while
// four goroutines take from it, several rounds over; every record must be
// returned by exactly one Take (the final Take of a round included).
func testAddTakeRace(t *testing.T, s middleware.SessionStore) {
	const (
		rounds  = 10
		adders  = 50
		takers  = 4
		key     = "s:contended"
		subject = "alice"
	)
	ctx := t.Context()
	f := newFixture()
	seen := make(map[string]int)
	for round := range rounds {
		var (
			addWG, takeWG sync.WaitGroup
			mu            sync.Mutex
			taken         []middleware.Minted
			errs          []error
		)
		record := func(ms []middleware.Minted, err error) {
			mu.Lock()
			defer mu.Unlock()
			taken = append(taken, ms...)
			if err != nil {
				errs = append(errs, err)
			}
		}
		done := make(chan struct{})
		for range takers {
			takeWG.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					record(s.Take(ctx, key))
				}
			})
		}
		for i := range adders {
			addWG.Go(func() {
				m := f.live(fmt.Sprintf("id-%d-%d", round, i), subject)
				if err := s.Add(ctx, key, m); err != nil {
					record(nil, fmt.Errorf("adding %s: %w", m.SessionID, err))
				}
			})
		}
		addWG.Wait()
		close(done)
		takeWG.Wait()
		record(s.Take(ctx, key))
		for _, err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
		for _, m := range taken {
			seen[m.SessionID]++
		}
	}
	for round := range rounds {
		for i := range adders {
			id := fmt.Sprintf("id-%d-%d", round, i)
			if n := seen[id]; n != 1 {
				t.Errorf("record %s returned %d times, want exactly once", id, n)
			}
			delete(seen, id)
		}
	}
	for id := range seen {
		t.Errorf("record %s returned but never added", id)
	}
}

func runSubjectIndex(t *testing.T, newStore func(t *testing.T) middleware.SessionStore) {
	f := newFixture()
	// Every case starts from the same records: alice has sessions under
	// three keys, bob under two, one of them shared with alice.
	seed := []struct {
		key string
		m   middleware.Minted
	}{
		{"s:1", f.live("a-1", "alice")},
		{"s:1", f.live("a-2", "alice")},
		{"s:1", f.live("b-1", "bob")},
		{"s:2", f.live("a-3", "alice")},
		{"s:2", f.expired("a-old", "alice")},
		{"s:3", f.live("b-2", "bob")},
		{"u:alice", f.live("a-4", "alice")},
	}
	alice := []middleware.Minted{f.live("a-1", "alice"), f.live("a-2", "alice"), f.live("a-3", "alice"), f.live("a-4", "alice")}

	type step struct {
		subject string // TakeSubject when set
		key     string // Take otherwise
		want    []middleware.Minted
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name:  "take subject returns every record of the subject across keys",
			steps: []step{{subject: "alice", want: alice}},
		},
		{
			name: "take subject leaves other subjects' records",
			steps: []step{
				{subject: "alice", want: alice},
				{key: "s:1", want: []middleware.Minted{f.live("b-1", "bob")}},
				{key: "s:3", want: []middleware.Minted{f.live("b-2", "bob")}},
				{subject: "bob"},
			},
		},
		{
			name: "take after take subject does not return the records again",
			steps: []step{
				{subject: "alice", want: alice},
				{key: "s:2"},
				{key: "u:alice"},
				{subject: "alice"},
			},
		},
		{
			name: "take subject after take does not return the taken records",
			steps: []step{
				{key: "s:1", want: []middleware.Minted{f.live("a-1", "alice"), f.live("a-2", "alice"), f.live("b-1", "bob")}},
				{subject: "alice", want: []middleware.Minted{f.live("a-3", "alice"), f.live("a-4", "alice")}},
				{subject: "bob", want: []middleware.Minted{f.live("b-2", "bob")}},
			},
		},
		{
			name:  "take subject of an unknown subject returns no records",
			steps: []step{{subject: "carol"}},
		},
		{
			name:  "subjects are matched exactly",
			steps: []step{{subject: "Alice"}, {subject: "alic"}, {subject: "alice", want: alice}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := newStore(t)
			idx := s.(middleware.SubjectIndex)
			for _, a := range seed {
				if err := s.Add(ctx, a.key, a.m); err != nil {
					t.Fatalf("Add(%q, %s): %v", a.key, describe(a.m), err)
				}
			}
			for i, st := range tt.steps {
				var (
					got []middleware.Minted
					err error
					op  string
				)
				if st.subject != "" {
					op = fmt.Sprintf("TakeSubject(%q)", st.subject)
					got, err = idx.TakeSubject(ctx, st.subject)
				} else {
					op = fmt.Sprintf("Take(%q)", st.key)
					got, err = s.Take(ctx, st.key)
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", i+1, op, err)
				}
				if diff := compare(got, st.want); diff != "" {
					t.Errorf("step %d %s: %s", i+1, op, diff)
				}
			}
		})
	}

	t.Run("add after take subject is indexed again", func(t *testing.T) {
		ctx := t.Context()
		s := newStore(t)
		idx := s.(middleware.SubjectIndex)
		mustAdd(t, s, "s:1", f.live("a-1", "alice"))
		if _, err := idx.TakeSubject(ctx, "alice"); err != nil {
			t.Fatalf("TakeSubject: %v", err)
		}
		mustAdd(t, s, "s:1", f.live("a-2", "alice"))
		got, err := idx.TakeSubject(ctx, "alice")
		if err != nil {
			t.Fatalf("TakeSubject: %v", err)
		}
		if diff := compare(got, []middleware.Minted{f.live("a-2", "alice")}); diff != "" {
			t.Errorf("second TakeSubject: %s", diff)
		}
	})
}

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

func mustAdd(t *testing.T, s middleware.SessionStore, key string, m middleware.Minted) {
	t.Helper()
	if err := s.Add(t.Context(), key, m); err != nil {
		t.Fatalf("Add(%q, %s): %v", key, describe(m), err)
	}
}

// compare reports how got differs from want as a set of records, or "" when
// they hold the same records. ExpiresAt is compared with time.Time.Equal.
func compare(got, want []middleware.Minted) string {
	g, w := sorted(got), sorted(want)
	if slices.EqualFunc(g, w, equal) {
		return ""
	}
	return fmt.Sprintf("got %s, want %s", describeAll(g), describeAll(w))
}

func equal(a, b middleware.Minted) bool {
	return a.SessionID == b.SessionID && a.Subject == b.Subject && a.ExpiresAt.Equal(b.ExpiresAt)
}

func sorted(ms []middleware.Minted) []middleware.Minted {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b middleware.Minted) int {
		if c := strings.Compare(a.SessionID, b.SessionID); c != 0 {
			return c
		}
		return strings.Compare(a.Subject, b.Subject)
	})
	return out
}

// describe prints a record of the suite's own fixtures. The suite's ids are
// made up, so printing them reveals nothing.
func describe(m middleware.Minted) string {
	return fmt.Sprintf("{%s %s %s}", m.SessionID, m.Subject, m.ExpiresAt.UTC().Format(time.RFC3339Nano))
}

func describeAll(ms []middleware.Minted) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = describe(m)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
