package memstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/middleware"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) middleware.SessionStore {
		return New()
	})
	storetest.RunBounded(t, func(t *testing.T, maxPerKey int) middleware.SessionStore {
		return New(WithMaxPerKey(maxPerKey))
	})
}

type fakeClock = testkit.Clock

func newFakeClock() *fakeClock {
	return testkit.NewClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
}

func minted(id, subject string, exp time.Time) middleware.Minted {
	return middleware.Minted{SessionID: id, Subject: subject, ExpiresAt: exp}
}

func ids(ms []middleware.Minted) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.SessionID
	}
	slices.Sort(out)
	return out
}

// TestMaxPerKeyBelowOneKeepsTheDefault: WithMaxPerKey(0) does not make a
// store that keeps nothing. (An id added twice, and a record without an
// id, are the SessionStore contract's, checked by storetest.Run.)
func TestMaxPerKeyBelowOneKeepsTheDefault(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now), WithMaxPerKey(0))
	for _, id := range []string{"a", "b"} {
		if err := s.Add(ctx, "k", minted(id, "alice", clock.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Take(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"a", "b"}) {
		t.Errorf("Take ids = %v, want [a b]", g)
	}
	checkIndex(t, s)
}

func TestErrorText(t *testing.T) {
	if !strings.HasPrefix(errEmptyID.Error(), "memstore: ") {
		t.Errorf("error %q does not start with the package name", errEmptyID)
	}
}

func TestTakeDropsRecordsThatExpireWhileStored(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now))
	now := clock.Now()
	for i, d := range []time.Duration{time.Minute, time.Hour} {
		if err := s.Add(ctx, "k", minted(fmt.Sprint(i), "alice", now.Add(d))); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(2 * time.Minute)
	got, err := s.Take(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"1"}) {
		t.Errorf("Take ids = %v, want [1]", g)
	}
	clock.Advance(2 * time.Hour)
	if err := s.Add(ctx, "k2", minted("x", "bob", now.Add(3*time.Hour))); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	if got, _ := s.TakeSubject(ctx, "bob"); len(got) != 0 {
		t.Errorf("TakeSubject returned expired records %v", ids(got))
	}
	checkIndex(t, s)
}

// TestSubjectIndexFollowsTheRecords checks after each step that the index
// holds exactly one entry per (subject, key) with records, with the latest
// expiry of those records.
func TestSubjectIndexFollowsTheRecords(t *testing.T) {
	clock := newFakeClock()
	now := clock.Now()
	type op func(t *testing.T, s *Store)
	add := func(key, id, subject string, d time.Duration) op {
		return func(t *testing.T, s *Store) {
			if err := s.Add(t.Context(), key, minted(id, subject, now.Add(d))); err != nil {
				t.Fatal(err)
			}
		}
	}
	take := func(key string) op {
		return func(t *testing.T, s *Store) {
			if _, err := s.Take(t.Context(), key); err != nil {
				t.Fatal(err)
			}
		}
	}
	takeSubject := func(subject string) op {
		return func(t *testing.T, s *Store) {
			if _, err := s.TakeSubject(t.Context(), subject); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		opts []Option
		ops  []op
	}{
		{"add", nil, []op{add("k1", "a", "alice", time.Hour), add("k1", "b", "alice", 2*time.Hour), add("k2", "c", "alice", time.Hour)}},
		{"take", nil, []op{add("k1", "a", "alice", time.Hour), add("k1", "b", "bob", time.Hour), take("k1")}},
		{"take subject sharing a key", nil, []op{add("k1", "a", "alice", time.Hour), add("k1", "b", "bob", time.Hour), takeSubject("alice")}},
		{"dropped oldest", []Option{WithMaxPerKey(1)}, []op{add("k1", "a", "alice", time.Hour), add("k1", "b", "bob", 2*time.Hour)}},
		{"replaced id", nil, []op{add("k1", "a", "alice", time.Hour), add("k1", "a", "bob", 2*time.Hour)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(append([]Option{WithClock(clock.Now)}, tt.opts...)...)
			for _, o := range tt.ops {
				o(t, s)
				checkIndex(t, s)
			}
		})
	}
}

// checkIndex compares the subject index with the records in the cache.
func checkIndex(t *testing.T, s *Store) {
	t.Helper()
	want := map[string]bool{}
	for key, item := range s.cache.Items() {
		for r := range records(view(item.Object)) {
			want[fmt.Sprintf("%x/%s", s.index.hash(r.subject), key)] = true
		}
	}
	got := map[string]bool{}
	for i := range s.index.shards {
		sh := &s.index.shards[i]
		sh.mu.Lock()
		for h, key := range sh.one {
			got[fmt.Sprintf("%x/%s", h, key)] = true
			if _, ok := sh.many[h]; ok {
				t.Errorf("index holds %x both as one key and as many", h)
			}
		}
		for h, keys := range sh.many {
			if len(keys) < 2 {
				t.Errorf("index holds %d keys for %x in the map for many", len(keys), h)
			}
			for _, key := range keys {
				got[fmt.Sprintf("%x/%s", h, key)] = true
			}
		}
		sh.mu.Unlock()
	}
	for k := range want {
		if !got[k] {
			t.Errorf("index misses entry %s", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("index holds entry %s without records", k)
		}
	}
}

// TestStoresDoNotLeakTheSweeper checks that the cache's sweeper goroutine
// stops once a Store is unreachable.
func TestStoresDoNotLeakTheSweeper(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		s := New(WithCleanupInterval(time.Second))
		_ = s.Add(t.Context(), "k", minted("a", "alice", time.Now().Add(time.Hour)))
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after dropping 20 stores, %d before", n, before)
	}
}

// TestSweepUnindexesExpiredKeys runs the cache's sweep by hand, with a
// margin short enough for the test to wait out.
func TestSweepUnindexesExpiredKeys(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now))
	s.grace = time.Millisecond
	now := clock.Now()
	if err := s.Add(ctx, "k1", minted("a", "alice", now.Add(5*time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, "k2", minted("b", "alice", now.Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	clock.Advance(20 * time.Millisecond)
	s.cache.DeleteExpired()
	if n := s.Len(); n != 1 {
		t.Errorf("Len after sweep = %d, want 1", n)
	}
	checkIndex(t, s)
	got, err := s.TakeSubject(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"b"}) {
		t.Errorf("TakeSubject ids = %v, want [b]", g)
	}
}

// TestSweepRacingAdd replays the order in which the sweep evicts an expired
// key, an Add writes the key anew, and only then the eviction callback
// runs: the new entry must stay indexed.
func TestSweepRacingAdd(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now))
	now := clock.Now()
	if err := s.Add(ctx, "k", minted("a", "alice", now.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	evictedValue, _ := s.cache.Get("k")
	clock.Advance(2 * time.Minute)
	if err := s.Add(ctx, "k", minted("b", "alice", clock.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	s.index.evicted("k", evictedValue)
	checkIndex(t, s)
	got, err := s.TakeSubject(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"b"}) {
		t.Errorf("TakeSubject ids = %v, want [b]", g)
	}
}

// TestStripedKeysDoNotBlockEachOther holds one key's lock and checks that
// Adds to keys on other stripes still complete.
func TestStripedKeysDoNotBlockEachOther(t *testing.T) {
	s := New()
	held := s.lock("held")
	defer held.Unlock()
	done := make(chan int)
	go func() {
		n := 0
		for i := range 1000 {
			key := fmt.Sprint("other-", i)
			if s.stripe(key) == held {
				continue
			}
			if err := s.Add(context.Background(), key, minted("a", "alice", time.Now().Add(time.Hour))); err != nil {
				t.Error(err)
			}
			n++
		}
		done <- n
	}()
	select {
	case n := <-done:
		if n < 900 {
			t.Errorf("only %d of 1000 keys fell on other stripes", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("keys on other stripes blocked behind one held key")
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		recs []rec
	}{
		{"none", nil},
		{"one", []rec{{id: "sess-1", subject: "alice", exp: 1}}},
		{"empty strings", []rec{{id: "x", subject: "", exp: -5}}},
		{"long strings", []rec{{id: strings.Repeat("i", 300), subject: strings.Repeat("s", 20000), exp: 1 << 62}}},
		// One-byte lengths end at 127; nextRecord reads those directly.
		{"lengths at the one-byte limit", []rec{
			{id: strings.Repeat("i", 127), subject: strings.Repeat("s", 128), exp: 1},
			{id: strings.Repeat("i", 128), subject: strings.Repeat("s", 127), exp: 2},
			{id: strings.Repeat("i", 127), subject: strings.Repeat("s", 127), exp: 3},
		}},
		{"several", []rec{{id: "a", subject: "alice", exp: 10}, {id: "b", subject: "bob", exp: 20}, {id: "c\x00\xff", subject: "ü", exp: 30}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := encode(tt.recs)
			got := slices.Collect(records(v))
			if !slices.Equal(got, tt.recs) && (len(got) != 0 || len(tt.recs) != 0) {
				t.Errorf("round trip = %v, want %v", got, tt.recs)
			}
			var walked []rec
			for off := 0; off < len(v); {
				var r rec
				r, off = nextRecord(v, off)
				walked = append(walked, r)
			}
			if !slices.Equal(walked, got) {
				t.Errorf("nextRecord walks %v, records yields %v", walked, got)
			}
		})
	}
}

// TestAddAgainstModel runs random Adds, some replacing an id, some over
// the key's bound, some of records that expire, against a plain model of
// the rules (keep the live records of other ids, add the new one, let the
// record that expires first leave while over the bound), and compares the
// records under the key after every Add, and the queue and the subject
// index afterwards. In the "in mint order" runs every id lives as long,
// so records leave at the front and the key grows in place (next); in
// the "random" runs they leave from anywhere. The bound is 4 records in
// some runs and 80 in the others, where keys hold more records than Add
// ever kept on its stack.
func TestAddAgainstModel(t *testing.T) {
	for _, bound := range []int{4, 80} {
		for _, order := range []string{"random", "in mint order"} {
			t.Run(fmt.Sprintf("%s/max=%d", order, bound), func(t *testing.T) { testAddAgainstModel(t, order == "random", bound) })
		}
	}
}

func testAddAgainstModel(t *testing.T, random bool, bound int) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now), WithMaxPerKey(bound))
	model := map[string][]middleware.Minted{}
	var queued []string
	rng := rand.New(rand.NewPCG(7, 11))
	subjects := []string{"alice", "bob"}
	grown, full := 0, 0
	for i := range max(400, 25*bound) {
		key := fmt.Sprintf("s:%d", rng.IntN(3))
		lifetime := time.Duration(rng.IntN(60)-5) * time.Minute
		if !random {
			lifetime = time.Hour + time.Duration(i)*time.Millisecond
		}
		m := minted(fmt.Sprintf("id-%d", rng.IntN(3*bound)), subjects[rng.IntN(2)], clock.Now().Add(lifetime))
		if err := s.Add(ctx, key, m); err != nil {
			t.Fatal(err)
		}
		if m.ExpiresAt.After(clock.Now()) {
			var next []middleware.Minted
			for _, r := range model[key] {
				if r.ExpiresAt.After(clock.Now()) && r.SessionID != m.SessionID {
					next = append(next, r)
				}
			}
			next = append(next, m)
			for len(next) > bound {
				oldest := 0
				for j, r := range next {
					if r.ExpiresAt.Before(next[oldest].ExpiresAt) {
						oldest = j
					}
				}
				queued = append(queued, next[oldest].SessionID)
				next = append(next[:oldest], next[oldest+1:]...)
			}
			model[key] = next
			if len(next) == bound {
				full++
			}
		}
		var got, want []string
		for r := range records(s.load(key)) {
			if r.exp > clock.Now().UnixNano() {
				got = append(got, fmt.Sprintf("%s/%s/%d", r.id, r.subject, r.exp))
			}
		}
		for _, r := range model[key] {
			if r.ExpiresAt.After(clock.Now()) {
				want = append(want, fmt.Sprintf("%s/%s/%d", r.SessionID, r.Subject, r.ExpiresAt.UnixNano()))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("add %d (%s to %s): key holds %v, want %v", i, m.SessionID, key, got, want)
		}
		if v, ok := s.cache.Get(key); ok && grows(v) != nil {
			grown++
		}
		checkIndex(t, s)
		if i%(12*bound) == 12*bound-1 {
			clock.Advance(7 * time.Minute)
		}
	}
	if !random && grown == 0 {
		t.Error("no key grew in place; the test does not reach next's fast path")
	}
	if full == 0 {
		t.Errorf("no key reached its bound of %d records; the test does not push records out", bound)
	}
	for _, subject := range subjects {
		got, err := s.TakeSubject(ctx, subject)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for key, recs := range model {
			var left []middleware.Minted
			for _, r := range recs {
				if !r.ExpiresAt.After(clock.Now()) {
					continue
				}
				if r.Subject == subject {
					want = append(want, key+"/"+r.SessionID)
				} else {
					left = append(left, r)
				}
			}
			model[key] = left
		}
		gotIDs := make([]string, 0, len(got))
		for _, m := range got {
			gotIDs = append(gotIDs, m.SessionID)
		}
		slices.Sort(gotIDs)
		wantIDs := make([]string, 0, len(want))
		for _, w := range want {
			wantIDs = append(wantIDs, w[strings.Index(w, "/")+1:])
		}
		slices.Sort(wantIDs)
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("TakeSubject(%s) = %v, want %v", subject, gotIDs, wantIDs)
		}
	}
	due, err := s.Due(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(due); n > len(queued) || n == 0 {
		t.Errorf("%d records queued, want up to %d (those pushed out, less the expired)", n, len(queued))
	}
}

// TestAddToAFullKeyAllocatesLittle holds Add on a key at the default
// bound of records (a dashboard left open and reloading all day) to a
// small allocation per call, whatever the key holds: the key's records
// are scanned in place, not listed. Add used to list them on the heap
// once a key held more than 64, about 75 KB a call at the bound.
func TestAddToAFullKeyAllocatesLittle(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	s := New(WithClock(clock.Now))
	exp := clock.Now().Add(time.Hour)
	add := func(i int) {
		t.Helper()
		if err := s.Add(ctx, "s:kiosk", minted(fmt.Sprintf("%032x", i), "alice", exp.Add(time.Duration(i)))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range DefaultMaxPerKey {
		add(i)
	}
	// Enough Adds that the buffer's occasional growth (next) is spread
	// over them, as it is in use.
	const adds = 2 * DefaultMaxPerKey
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range adds {
		add(DefaultMaxPerKey + i)
	}
	runtime.ReadMemStats(&after)
	if n, err := s.Pending(ctx); err != nil || n != adds {
		t.Fatalf("Pending = %d, %v; want the %d records pushed out", n, err, adds)
	}
	if perAdd := (after.TotalAlloc - before.TotalAlloc) / adds; perAdd > 2048 {
		t.Errorf("Add to a key of %d records allocated %d bytes a call, want at most 2048", DefaultMaxPerKey, perAdd)
	}
}

// TestGrowingKeyReadWhileWritten reads a key's records without its lock,
// as the sweep's eviction callback does, while Adds grow the key in place:
// under the race detector, a write to bytes a reader's view holds fails
// the test.
func TestGrowingKeyReadWhileWritten(t *testing.T) {
	ctx := t.Context()
	s := New(WithMaxPerKey(16))
	h := s.index.hash("alice")
	done := make(chan struct{})
	go func() {
		defer close(done)
		exp := time.Now().Add(time.Hour)
		for i := range 2000 {
			if err := s.Add(ctx, "k", minted(fmt.Sprintf("id-%04d", i), "alice", exp.Add(time.Duration(i)))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			if reads == 0 {
				t.Error("no read ran alongside the writes")
			}
			if v, _ := s.cache.Get("k"); grows(v) == nil {
				t.Error("the key did not grow in place")
			}
			return
		default:
		}
		if v, ok := s.cache.Get("k"); ok {
			for r := range records(view(v)) {
				if r.subject != "alice" || !strings.HasPrefix(r.id, "id-") {
					t.Fatalf("read a torn record %q/%q", r.id, r.subject)
				}
			}
		}
		s.index.holds("k", h)
		reads++
	}
}
