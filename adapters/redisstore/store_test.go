package redisstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
	"github.com/redis/go-redis/v9"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) middleware.SessionStore {
		c := newClient(t)
		return New(c, WithPrefix(newPrefix(t, c)), WithBackoff(time.Millisecond, time.Millisecond))
	})
	storetest.RunBounded(t, func(t *testing.T, maxPerKey int) middleware.SessionStore {
		c := newClient(t)
		return New(c, WithPrefix(newPrefix(t, c)), WithMaxPerKey(maxPerKey), WithBackoff(time.Millisecond, time.Millisecond))
	})
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

// newTestStore returns a Store on its own prefix with a fake clock.
func newTestStore(t *testing.T, opts ...Option) (*Store, *redis.Client, *fakeClock, string) {
	t.Helper()
	c := newClient(t)
	prefix := newPrefix(t, c)
	clock := newFakeClock()
	s := New(c, append([]Option{WithPrefix(prefix), WithClock(clock.Now)}, opts...)...)
	return s, c, clock, prefix
}

func TestAdd(t *testing.T) {
	redisAddr(t)
	now := newFakeClock().Now()
	tests := []struct {
		name      string
		opts      []Option
		adds      []middleware.Minted
		wantErr   error
		wantIDs   []string
		wantSubjs map[string]string
	}{
		{
			name: "a session id added twice is kept once, as last added",
			adds: []middleware.Minted{
				minted("a", "alice", now.Add(time.Hour)),
				minted("a", "alice smith", now.Add(2*time.Hour)),
			},
			wantIDs:   []string{"a"},
			wantSubjs: map[string]string{"a": "alice smith"},
		},
		{
			name:    "a record without a session id is an error",
			adds:    []middleware.Minted{minted("", "alice", now.Add(time.Hour))},
			wantErr: errEmptyID,
			wantIDs: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s, _, _, _ := newTestStore(t, tt.opts...)
			var err error
			for _, m := range tt.adds {
				err = errors.Join(err, s.Add(ctx, "k", m))
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Add error = %v, want %v", err, tt.wantErr)
			}
			got, err := s.Take(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			if g := ids(got); !slices.Equal(g, tt.wantIDs) {
				t.Errorf("Take ids = %v, want %v", g, tt.wantIDs)
			}
			for _, m := range got {
				if want, ok := tt.wantSubjs[m.SessionID]; ok && m.Subject != want {
					t.Errorf("subject of %s = %q, want %q", m.SessionID, m.Subject, want)
				}
			}
		})
	}
}

// TestKeysExpireWithTheirLastRecord checks the TTL of every key the store
// writes: Redis must drop each when its last record expires.
func TestKeysExpireWithTheirLastRecord(t *testing.T) {
	ctx := t.Context()
	s, c, clock, prefix := newTestStore(t)
	now := clock.Now()
	last := now.Add(3 * time.Hour)
	for _, m := range []middleware.Minted{
		minted("a", "alice", now.Add(time.Hour)),
		minted("b", "alice", last),
		minted("c", "alice", now.Add(2*time.Hour)),
	} {
		if err := s.Add(ctx, "s:host-session", m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Defer(ctx, []middleware.Minted{minted("q", "alice", last), minted("r", "alice", now.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	keys := keysUnder(t, c, prefix)
	if len(keys) != 5 {
		t.Errorf("store wrote %d keys, want 5 (records, index, 3 queue): %q", len(keys), keys)
	}
	for _, k := range keys {
		at, err := c.PExpireTime(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := time.UnixMilli(int64(at / time.Millisecond)); !got.Equal(last) {
			t.Errorf("key %s expires at %v, want %v", strings.TrimPrefix(k, prefix), got, last)
		}
	}
}

// TestKeyNamesHideSecrets checks that neither the host session key nor
// the subject appears in Redis key names.
func TestKeyNamesHideSecrets(t *testing.T) {
	ctx := t.Context()
	s, c, clock, prefix := newTestStore(t)
	const hostKey, subject = "s:host-session-secret", "alice@example.com"
	if err := s.Add(ctx, hostKey, minted("sess-1", subject, clock.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	for _, k := range keysUnder(t, c, prefix) {
		if strings.Contains(k, "host-session-secret") || strings.Contains(k, "alice") {
			t.Errorf("key name %q shows a host session key or subject", k)
		}
	}
}

func TestDefaultPrefix(t *testing.T) {
	s := New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}))
	if !strings.HasPrefix(s.recordsKey("x"), DefaultPrefix) || !strings.HasPrefix(s.indexKey("x"), DefaultPrefix) {
		t.Errorf("keys %q, %q do not start with %q", s.recordsKey("x"), s.indexKey("x"), DefaultPrefix)
	}
	for _, k := range s.queueKeys {
		if !strings.HasPrefix(k, DefaultPrefix+"{revoke}:") {
			t.Errorf("queue key %q does not start with %q", k, DefaultPrefix+"{revoke}:")
		}
	}
	if s := New(nil, WithPrefix("")); s.prefix != DefaultPrefix {
		t.Errorf("WithPrefix(\"\") set prefix %q, want the default", s.prefix)
	}
}

// TestRevokeQueueSurvivesRestart defers revokes with one Store and its
// client, drops both, and takes them as due from a new Store and client on
// the same Redis.
func TestRevokeQueueSurvivesRestart(t *testing.T) {
	ctx := t.Context()
	prefix := newPrefix(t, newClient(t))
	clock := newFakeClock()
	firstClient := redis.NewClient(&redis.Options{Addr: redisAddr(t)})
	first := New(firstClient, WithPrefix(prefix), WithClock(clock.Now), WithBackoff(time.Minute, time.Hour))
	ms := []middleware.Minted{minted("r-1", "alice", clock.Now().Add(time.Hour)), minted("r-2", "bob smith", clock.Now().Add(time.Hour))}
	if err := first.Defer(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := firstClient.Close(); err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Minute)
	second := New(newClient(t), WithPrefix(prefix), WithClock(clock.Now), WithBackoff(time.Minute, time.Hour))
	if n, err := second.Pending(ctx); err != nil || n != 2 {
		t.Fatalf("Pending after restart = %d, %v; want 2, nil", n, err)
	}
	got, err := second.Due(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"r-1", "r-2"}) {
		t.Errorf("Due after restart = %v, want [r-1 r-2]", g)
	}
	want := map[string]string{"r-1": "alice", "r-2": "bob smith"}
	for _, m := range got {
		if m.Subject != want[m.SessionID] || !m.ExpiresAt.Equal(clock.Now().Add(-time.Minute).Add(time.Hour)) {
			t.Errorf("record %s came back as %q, %v", m.SessionID, m.Subject, m.ExpiresAt)
		}
	}
}

func TestSessionsSurviveRestart(t *testing.T) {
	ctx := t.Context()
	first, _, clock, prefix := newTestStore(t)
	if err := first.Add(ctx, "s:1", minted("a", "alice", clock.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	second := New(newClient(t), WithPrefix(prefix), WithClock(clock.Now))
	got, err := second.TakeSubject(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"a"}) {
		t.Errorf("TakeSubject from a new Store = %v, want [a]", g)
	}
}

func TestRevokeQueueBackoff(t *testing.T) {
	type step struct {
		advance   time.Duration
		deferIDs  []string
		deferExp  time.Duration // from the start
		due       int
		wantDue   []string
		wantCount int
	}
	day := 24 * time.Hour
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "a deferred record is due after the first backoff",
			steps: []step{
				{deferIDs: []string{"a"}, deferExp: day, due: 10, wantDue: []string{}, wantCount: 1},
				{advance: 9 * time.Second, due: 10, wantDue: []string{}, wantCount: 1},
				{advance: time.Second, due: 10, wantDue: []string{"a"}, wantCount: 0},
			},
		},
		{
			name: "each further defer of an id doubles the wait, up to the limit",
			steps: []step{
				{deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: 10 * time.Second, due: 10, wantDue: []string{"a"}},
				{deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: 19 * time.Second, due: 10, wantDue: []string{}, wantCount: 1},
				{advance: time.Second, due: 10, wantDue: []string{"a"}},
				{deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: 40 * time.Second, due: 10, wantDue: []string{"a"}},
				{deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: 59 * time.Second, due: 10, wantDue: []string{}, wantCount: 1},
				{advance: time.Second, due: 10, wantDue: []string{"a"}},
			},
		},
		{
			name: "defer of a queued id reschedules it once",
			steps: []step{
				{deferIDs: []string{"a", "a"}, deferExp: day, wantCount: 1},
				{advance: 10 * time.Second, due: 10, wantDue: []string{}, wantCount: 1},
				{advance: 10 * time.Second, due: 10, wantDue: []string{"a"}},
			},
		},
		{
			name: "due returns at most n, earliest first",
			steps: []step{
				{deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: time.Second, deferIDs: []string{"b"}, deferExp: day, wantCount: 2},
				{advance: time.Second, deferIDs: []string{"c"}, deferExp: day, wantCount: 3},
				{advance: time.Minute, due: 2, wantDue: []string{"a", "b"}, wantCount: 1},
				{due: 2, wantDue: []string{"c"}},
			},
		},
		{
			name: "records that expire while queued are dropped",
			steps: []step{
				{deferIDs: []string{"a"}, deferExp: 5 * time.Second, wantCount: 1},
				{deferIDs: []string{"b"}, deferExp: day, wantCount: 2},
				{advance: 10 * time.Second, due: 10, wantDue: []string{"b"}},
			},
		},
		{
			name: "an expired id starts its backoff afresh",
			steps: []step{
				{deferIDs: []string{"a"}, deferExp: 15 * time.Second, wantCount: 1},
				{advance: 10 * time.Second, due: 10, wantDue: []string{"a"}},
				{advance: 2 * time.Minute, deferIDs: []string{"a"}, deferExp: day, wantCount: 1},
				{advance: 10 * time.Second, due: 10, wantDue: []string{"a"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s, _, clock, _ := newTestStore(t, WithBackoff(10*time.Second, time.Minute))
			start := clock.Now()
			for i, st := range tt.steps {
				clock.Advance(st.advance)
				if st.deferIDs != nil {
					var ms []middleware.Minted
					for _, id := range st.deferIDs {
						ms = append(ms, minted(id, "alice", start.Add(st.deferExp)))
					}
					if err := s.Defer(ctx, ms); err != nil {
						t.Fatalf("step %d: Defer: %v", i+1, err)
					}
				}
				if st.wantDue != nil {
					got, err := s.Due(ctx, st.due)
					if err != nil {
						t.Fatalf("step %d: Due: %v", i+1, err)
					}
					g := make([]string, len(got))
					for j, m := range got {
						g[j] = m.SessionID
					}
					if !slices.Equal(g, st.wantDue) {
						t.Errorf("step %d: Due(%d) = %v, want %v", i+1, st.due, g, st.wantDue)
					}
				}
				n, err := s.Pending(ctx)
				if err != nil {
					t.Fatalf("step %d: Pending: %v", i+1, err)
				}
				if n != st.wantCount {
					t.Errorf("step %d: Pending = %d, want %d", i+1, n, st.wantCount)
				}
			}
		})
	}
}

func TestDeferRejectsRecordsWithoutID(t *testing.T) {
	ctx := t.Context()
	s, _, clock, _ := newTestStore(t)
	ms := []middleware.Minted{minted("a", "alice", clock.Now().Add(time.Hour)), minted("", "alice", clock.Now().Add(time.Hour))}
	if err := s.Defer(ctx, ms); !errors.Is(err, errEmptyID) {
		t.Errorf("Defer error = %v, want %v", err, errEmptyID)
	}
	if n, err := s.Pending(ctx); err != nil || n != 0 {
		t.Errorf("Pending = %d, %v after a rejected Defer; want 0, nil", n, err)
	}
}

// TestMalformedRecords writes values the store did not write and checks
// that reading them is an error that does not quote them.
func TestMalformedRecords(t *testing.T) {
	ctx := t.Context()
	s, c, _, _ := newTestStore(t)
	if err := c.HSet(ctx, s.recordsKey(digest("k")), "secret-id", "not-a-record").Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Take(ctx, "k")
	if !errors.Is(err, errMalformed) {
		t.Fatalf("Take error = %v, want %v", err, errMalformed)
	}
	if strings.Contains(err.Error(), "secret-id") || strings.Contains(err.Error(), "not-a-record") {
		t.Errorf("error %q quotes the stored record", err)
	}
}

func TestErrors(t *testing.T) {
	live := minted("a", "alice", time.Now().Add(time.Hour))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		op   func(ctx context.Context, s *Store) error
		is   error
	}{
		{"add with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { return s.Add(ctx, "k", live) }, context.Canceled},
		{"take with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.Take(ctx, "k"); return err }, context.Canceled},
		{"take subject with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.TakeSubject(ctx, "alice"); return err }, context.Canceled},
		{"defer with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { return s.Defer(ctx, []middleware.Minted{live}) }, context.Canceled},
		{"due with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.Due(ctx, 1); return err }, context.Canceled},
		{"pending with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.Pending(ctx); return err }, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _, _ := newTestStore(t)
			err := tt.op(tt.ctx, s)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "redisstore: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
		})
	}
}

// TestAddAfterScriptFlush checks that Add recovers when Redis has lost its
// script cache, as after a restart.
func TestAddAfterScriptFlush(t *testing.T) {
	ctx := t.Context()
	s, c, clock, _ := newTestStore(t)
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, "k", minted("a", "alice", clock.Now().Add(time.Hour))); err != nil {
		t.Fatalf("Add after SCRIPT FLUSH: %v", err)
	}
	got, err := s.TakeSubject(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); !slices.Equal(g, []string{"a"}) {
		t.Errorf("TakeSubject = %v, want [a]", g)
	}
}
