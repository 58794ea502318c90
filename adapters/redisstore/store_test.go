package redisstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
	"github.com/redis/go-redis/v9"
)

// TestConformance runs the store suites on keys read whole, as small
// keys are, and on keys that have an expiry index from their first record.
func TestConformance(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		for _, tc := range []struct {
			name      string
			indexFrom int
		}{{"small keys", defaultIndexFrom}, {"indexed keys", 0}} {
			t.Run(tc.name, func(t *testing.T) {
				storetest.Run(t, func(t *testing.T) middleware.SessionStore {
					c := srv.client(t)
					s := New(c, WithPrefix(newPrefix(t, c)))
					s.indexFrom = tc.indexFrom
					return s
				})
				storetest.RunBounded(t, func(t *testing.T, maxPerKey int) middleware.SessionStore {
					c := srv.client(t)
					s := New(c, WithPrefix(newPrefix(t, c)), WithMaxPerKey(maxPerKey))
					s.indexFrom = tc.indexFrom
					return s
				})
			})
		}
	})
}

func minted(id, subject string, exp time.Time) middleware.Minted {
	return middleware.Minted{SessionID: id, Subject: subject, ExpiresAt: exp}
}

// deferred queues m after attempts failed attempts, due at due.
func deferred(m middleware.Minted, attempts int, due time.Time) middleware.Deferred {
	return middleware.Deferred{Minted: m, Attempts: attempts, Due: due}
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
func newTestStore(t *testing.T, srv server, opts ...Option) (*Store, redis.UniversalClient, *fakeClock, string) {
	t.Helper()
	c := srv.client(t)
	prefix := newPrefix(t, c)
	clock := newFakeClock()
	s := New(c, append([]Option{WithPrefix(prefix), WithClock(clock.Now)}, opts...)...)
	return s, c, clock, prefix
}

// TestKeysExpireWithTheirLastRecord checks the TTL of every key the store
// writes, for a small host session and for one with an expiry index:
// Redis must drop each when its last record expires.
func TestKeysExpireWithTheirLastRecord(t *testing.T) {
	for _, tc := range []struct {
		name      string
		indexFrom int
		keys      int
		what      string
	}{
		{"small key", defaultIndexFrom, 5, "records, subject index, 3 queue"},
		{"indexed key", 0, 6, "records, expiry index, subject index, 3 queue"},
	} {
		eachServer(t, func(t *testing.T, srv server) {
			t.Run(tc.name, func(t *testing.T) { testKeysExpire(t, srv, tc.indexFrom, tc.keys, tc.what) })
		})
	}
}

func testKeysExpire(t *testing.T, srv server, indexFrom, wantKeys int, what string) {
	ctx := t.Context()
	s, c, clock, prefix := newTestStore(t, srv)
	s.indexFrom = indexFrom
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
	if err := s.Defer(ctx, []middleware.Deferred{deferred(minted("q", "alice", last), 1, now), deferred(minted("r", "alice", now.Add(time.Hour)), 1, now)}); err != nil {
		t.Fatal(err)
	}
	keys := keysUnder(t, c, prefix)
	if len(keys) != wantKeys {
		t.Errorf("store wrote %d keys, want %d (%s): %q", len(keys), wantKeys, what, keys)
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
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, clock, prefix := newTestStore(t, srv)
		const hostKey, subject = "s:host-session-secret", "alice@example.com"
		if err := s.Add(ctx, hostKey, minted("sess-1", subject, clock.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		for _, k := range keysUnder(t, c, prefix) {
			if strings.Contains(k, "host-session-secret") || strings.Contains(k, "alice") {
				t.Errorf("key name %q shows a host session key or subject", k)
			}
		}
	})
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
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		prefix := newPrefix(t, srv.client(t))
		clock := newFakeClock()
		firstClient := srv.client(t)
		first := New(firstClient, WithPrefix(prefix), WithClock(clock.Now))
		exp, due := clock.Now().Add(time.Hour), clock.Now().Add(time.Minute)
		ds := []middleware.Deferred{deferred(minted("r-1", "alice", exp), 1, due), deferred(minted("r-2", "bob smith", exp), 3, due)}
		if err := first.Defer(ctx, ds); err != nil {
			t.Fatal(err)
		}
		if err := firstClient.Close(); err != nil {
			t.Fatal(err)
		}

		clock.Advance(time.Minute)
		second := New(srv.client(t), WithPrefix(prefix), WithClock(clock.Now))
		if n, err := second.Pending(ctx); err != nil || n != 2 {
			t.Fatalf("Pending after restart = %d, %v; want 2, nil", n, err)
		}
		got, err := second.Due(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("Due after restart returned %d records, want 2", len(got))
		}
		want := map[string]middleware.Deferred{"r-1": ds[0], "r-2": ds[1]}
		for _, d := range got {
			w := want[d.SessionID]
			if d.Subject != w.Subject || !d.ExpiresAt.Equal(exp) || d.Attempts != w.Attempts || !d.Due.Equal(due) {
				t.Errorf("record %s came back as %q, expiry %v, %d attempts, due %v", d.SessionID, d.Subject, d.ExpiresAt, d.Attempts, d.Due)
			}
		}
	})
}

func TestSessionsSurviveRestart(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		first, _, clock, prefix := newTestStore(t, srv)
		if err := first.Add(ctx, "s:1", minted("a", "alice", clock.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		second := New(srv.client(t), WithPrefix(prefix), WithClock(clock.Now))
		got, err := second.TakeSubject(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if g := ids(got); !slices.Equal(g, []string{"a"}) {
			t.Errorf("TakeSubject from a new Store = %v, want [a]", g)
		}
	})
}

// TestMalformedRecords writes values the store did not write and checks
// that reading them is an error that does not quote them.
func TestMalformedRecords(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, _, _ := newTestStore(t, srv)
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
	})
}

func TestErrors(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
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
			{"defer with a cancelled context", cancelled, func(ctx context.Context, s *Store) error {
				return s.Defer(ctx, []middleware.Deferred{{Minted: live}})
			}, context.Canceled},
			{"due with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.Due(ctx, 1); return err }, context.Canceled},
			{"pending with a cancelled context", cancelled, func(ctx context.Context, s *Store) error { _, err := s.Pending(ctx); return err }, context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, _, _, _ := newTestStore(t, srv)
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
	})
}

// TestAddAfterScriptFlush checks that Add recovers when Redis has lost its
// script cache, as after a restart.
func TestAddAfterScriptFlush(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, clock, _ := newTestStore(t, srv)
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
	})
}

// TestAddAfterOneNodeLostItsScripts: when the node of a subject's index
// has lost its script cache and the node of the host session's records
// has not (in Redis Cluster they are different nodes; on a single server
// the one server loses both), an Add that pushes a record out of a full
// key still hands that record to the revoke queue, exactly once. Running
// the records script a second time would find nothing to push out, and
// the record would be lost to logout.
func TestAddAfterOneNodeLostItsScripts(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, clock, _ := newTestStore(t, srv, WithMaxPerKey(1))
		// A host session key whose records live on another node than
		// alice's index, when there are several nodes.
		key := "k"
		nodeOf := func(k string) string {
			cc, ok := c.(*redis.ClusterClient)
			if !ok {
				return "the server"
			}
			node, err := cc.MasterForKey(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			return node.Options().Addr
		}
		for i := 0; nodeOf(s.recordsKey(digest(key))) == nodeOf(s.indexKey("alice")) && srv.name == "cluster"; i++ {
			key = "k" + strconv.Itoa(i)
		}
		now := clock.Now()
		if err := s.Add(ctx, key, minted("a", "alice", now.Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		flushed := redis.UniversalClient(c)
		if cc, ok := c.(*redis.ClusterClient); ok {
			node, err := cc.MasterForKey(ctx, s.indexKey("alice"))
			if err != nil {
				t.Fatal(err)
			}
			flushed = node
		}
		if err := flushed.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, key, minted("b", "alice", now.Add(2*time.Hour))); err != nil {
			t.Fatalf("Add after the index's node lost its scripts: %v", err)
		}
		if left := dueIDs(t, s); !slices.Equal(left, []string{"a"}) {
			t.Errorf("pushed out to the revoke queue: %v, want [a]", left)
		}
		got, err := s.Take(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if g := ids(got); !slices.Equal(g, []string{"b"}) {
			t.Errorf("Take = %v, want [b]", g)
		}
	})
}

// TestTakeRemovesAValueItDidNotWrite: a host session holding a value the
// store did not write (another program under the prefix, a damaged
// write) is still taken: Take and TakeSubject return the records they
// could read, remove the value too, and report it as an error without
// quoting it; the next take finds nothing left.
func TestTakeRemovesAValueItDidNotWrite(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, clock, _ := newTestStore(t, srv)
		exp := clock.Now().Add(time.Hour)
		for _, a := range []struct{ key, id, subject string }{
			{"k", "a1", "alice"}, {"k", "b1", "bob"}, {"j", "a2", "alice"},
		} {
			if err := s.Add(ctx, a.key, minted(a.id, a.subject, exp)); err != nil {
				t.Fatal(err)
			}
		}
		for _, key := range []string{"k", "j"} {
			if err := c.HSet(ctx, s.recordsKey(digest(key)), "junk-"+key, "no-expiry-here").Err(); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.TakeSubject(ctx, "alice")
		if !errors.Is(err, errMalformed) || strings.Contains(err.Error(), "no-expiry-here") || !slices.Equal(ids(got), []string{"a1", "a2"}) {
			t.Errorf("TakeSubject(alice) over a value the store did not write: %v, %v; want [a1 a2] and errMalformed, the value unquoted", ids(got), err)
		}
		got, err = s.Take(ctx, "k")
		if err != nil || !slices.Equal(ids(got), []string{"b1"}) {
			t.Errorf("Take(k) after TakeSubject removed the value: %v, %v; want [b1]", ids(got), err)
		}
		for _, key := range []string{"k", "j"} {
			if n, err := c.Exists(ctx, s.recordsKey(digest(key))).Result(); err != nil || n != 0 {
				t.Errorf("host session %s left in Redis (%d, %v), want none", key, n, err)
			}
		}
		// Add drops such a value as it drops an expired record.
		for _, v := range []string{"x y", "no-space"} {
			if err := c.HSet(ctx, s.recordsKey(digest("m")), "junk", v).Err(); err != nil {
				t.Fatal(err)
			}
			if err := s.Add(ctx, "m", minted("c1", "carol", exp)); err != nil {
				t.Fatalf("Add to a host session holding %q: %v", v, err)
			}
			if got, err := s.Take(ctx, "m"); err != nil || !slices.Equal(ids(got), []string{"c1"}) {
				t.Errorf("Take(m) after Add over %q: %v, %v; want [c1]", v, ids(got), err)
			}
		}
	})
}
