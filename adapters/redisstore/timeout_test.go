package redisstore

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/internal/testredis"
	"github.com/embedkit/embedkit/middleware"
)

// silentServer accepts connections on loopback and never answers: a
// Redis that hangs, as a stopped process or a network partition does.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// TestEveryMethodIsBounded: against a Redis that never answers, with
// go-redis's default options (which wait about 35 s and more), every
// method of Store and EndedLogins returns within its WithTimeout, with an
// error wrapping context.DeadlineExceeded; and within the caller's
// context when that ends first. A method added to either type belongs in
// this table.
func TestEveryMethodIsBounded(t *testing.T) {
	const timeout = 200 * time.Millisecond
	client := redis.NewClient(&redis.Options{Addr: silentServer(t)})
	t.Cleanup(func() { _ = client.Close() })
	store := New(client, WithTimeout(timeout))
	list, err := NewEndedLogins(client, time.Hour, WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	m := middleware.Minted{SessionID: "0123456789abcdef0123456789abcdef", Subject: "ana", ExpiresAt: time.Now().Add(time.Hour)}
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Store.Add", func(ctx context.Context) error { return store.Add(ctx, "s:k", m) }},
		{"Store.Take", func(ctx context.Context) error { _, err := store.Take(ctx, "s:k"); return err }},
		{"Store.TakeSubject", func(ctx context.Context) error { _, err := store.TakeSubject(ctx, "ana"); return err }},
		{"Store.Defer", func(ctx context.Context) error {
			return store.Defer(ctx, []middleware.Deferred{{Minted: m, Due: time.Now()}})
		}},
		{"Store.Due", func(ctx context.Context) error { _, err := store.Due(ctx, 10); return err }},
		{"Store.Pending", func(ctx context.Context) error { _, err := store.Pending(ctx); return err }},
		{"EndedLogins.EndLogin", func(ctx context.Context) error { return list.EndLogin(ctx, "k", time.Now().Add(time.Hour)) }},
		{"EndedLogins.EndLoginsOf", func(ctx context.Context) error { return list.EndLoginsOf(ctx, "ana") }},
		{"EndedLogins.EndLoginsOfSID", func(ctx context.Context) error { return list.EndLoginsOfSID(ctx, "sid-1") }},
		{"EndedLogins.LoginEnded", func(ctx context.Context) error {
			_, err := list.LoginEnded(ctx, middleware.Login{Subject: "ana", Key: "k", ProviderSID: "sid-1", Issued: time.Now()})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			err := c.call(context.Background())
			took := time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
			}
			if took < timeout || took > timeout+time.Second {
				t.Errorf("returned after %s, want about the %s timeout", took, timeout)
			}
			// The caller's context ends first.
			ctx, cancel := context.WithTimeout(context.Background(), timeout/4)
			defer cancel()
			start = time.Now()
			err = c.call(ctx)
			if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > timeout {
				t.Errorf("with a context of %s: err %v after %s", timeout/4, err, took)
			}
		})
	}
}

// TestBoundedKeepsAnAnswerAtTheDeadline: bounded returns f's answer when
// f answers in time, and its error as it is.
func TestBoundedKeepsAnAnswerAtTheDeadline(t *testing.T) {
	errFail := errors.New("redisstore: refused")
	tests := []struct {
		name    string
		f       func(ctx context.Context) (int, error)
		want    int
		wantErr error
	}{
		{"answer", func(context.Context) (int, error) { return 7, nil }, 7, nil},
		{"error", func(context.Context) (int, error) { return 0, errFail }, 0, errFail},
		{"no answer", func(ctx context.Context) (int, error) { <-ctx.Done(); time.Sleep(50 * time.Millisecond); return 9, nil }, 0, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bounded(context.Background(), 50*time.Millisecond, tt.f)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("bounded = %d, %v; want %d, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestTakeLosesNothingToAHungNode: a node that hangs during a take and
// resumes later runs the commands it was sent meanwhile, after the store
// gave up on them. No record may be lost to that:
//   - the read hangs: Take fails, and once the node resumes the next Take
//     returns every record (a take that read and deleted in one command
//     lost them: it ran on resume and its answer was dropped);
//   - the delete hangs after the read answered: Take returns what it
//     read, and once the delete has run a later Take returns nothing
//     more, so no record is returned twice.
func TestTakeLosesNothingToAHungNode(t *testing.T) {
	const timeout = 300 * time.Millisecond
	srv := testredis.NewServer(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = client.Close() })
	s := New(client, WithTimeout(timeout))
	ctx := t.Context()
	exp := time.Now().Add(time.Hour)
	for _, a := range []struct{ key, id, subject string }{
		{"k", "a1", "alice"}, {"k", "b1", "bob"}, {"j", "a2", "alice"}, {"j", "b2", "bob"},
	} {
		if err := s.Add(ctx, a.key, minted(a.id, a.subject, exp)); err != nil {
			t.Fatal(err)
		}
	}
	// settle lets the node run what it was sent while it hung.
	settle := func() {
		t.Helper()
		time.Sleep(3 * timeout)
		if err := client.Ping(ctx).Err(); err != nil {
			t.Fatalf("the node after it resumed: %v", err)
		}
	}

	t.Run("the read hangs", func(t *testing.T) {
		srv.Pause(t)
		_, err := s.Take(ctx, "k")
		_, serr := s.TakeSubject(ctx, "alice")
		srv.Resume(t)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(serr, context.DeadlineExceeded) {
			t.Fatalf("Take and TakeSubject while the node hangs: %v, %v; want errors wrapping context.DeadlineExceeded", err, serr)
		}
		settle()
		got, err := s.Take(ctx, "k")
		if err != nil || !slices.Equal(ids(got), []string{"a1", "b1"}) {
			t.Errorf("Take after the node resumed: %v, %v; want [a1 b1], the records the hung take did not return", ids(got), err)
		}
	})

	t.Run("the delete hangs", func(t *testing.T) {
		if err := s.Add(ctx, "m", minted("a3", "alice", exp)); err != nil {
			t.Fatal(err)
		}
		s.afterRead = func() { srv.Pause(t) }
		got, err := s.Take(ctx, "j")
		srv.Resume(t)
		if err != nil || !slices.Equal(ids(got), []string{"a2", "b2"}) {
			t.Errorf("Take whose delete hung: %v, %v; want [a2 b2], what it read, and no error", ids(got), err)
		}
		settle()
		// TakeSubject reads each host session of alice's in turn; the
		// node hangs after the read of m's, so a later read may fail:
		// what was read is returned with that error, to be revoked.
		got, err = s.TakeSubject(ctx, "alice")
		s.afterRead = nil
		srv.Resume(t)
		if !slices.Equal(ids(got), []string{"a3"}) {
			t.Errorf("TakeSubject whose delete hung: %v (error %v); want [a3], what it read", ids(got), err)
		}
		settle()
		if got, err := s.Take(ctx, "j"); err != nil || len(got) != 0 {
			t.Errorf("Take once the hung delete ran: %v, %v; want nothing (no record twice)", ids(got), err)
		}
		if got, err := s.TakeSubject(ctx, "alice"); err != nil || len(got) != 0 {
			t.Errorf("TakeSubject once the hung delete ran: %v, %v; want nothing (no record twice)", ids(got), err)
		}
	})
}
