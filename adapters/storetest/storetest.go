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
			name: "a session id added twice under one key is kept once, as last added",
			adds: []add{
				{"s:a", f.live("id-1", "alice")},
				{"s:b", f.live("id-1", "alice")},
				{"s:a", middleware.Minted{SessionID: "id-1", Subject: "alice@example.com", ExpiresAt: f.base.Add(90 * time.Minute)}},
			},
			takes: []take{
				{key: "s:a", want: []middleware.Minted{{SessionID: "id-1", Subject: "alice@example.com", ExpiresAt: f.base.Add(90 * time.Minute)}}},
				{key: "s:b", want: []middleware.Minted{f.live("id-1", "alice")}},
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

	t.Run("a record without a session id is an error and nothing is kept", func(t *testing.T) {
		ctx := t.Context()
		s := newStore(t)
		mustAdd(t, s, "s:a", f.live("id-1", "alice"))
		if err := s.Add(ctx, "s:a", f.live("", "alice")); err == nil {
			t.Error("Add of a record without a session id returned nil, want an error")
		}
		got, err := s.Take(ctx, "s:a")
		if err != nil {
			t.Fatalf("Take: %v", err)
		}
		if diff := compare(got, []middleware.Minted{f.live("id-1", "alice")}); diff != "" {
			t.Errorf("Take after the refused Add: %s", diff)
		}
	})

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
