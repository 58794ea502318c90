package storetest

import (
	"context"
	"testing"
	"time"
)

// Revocations is a server-side list of ended host login sessions: the
// methods of gorillasession.Revocations, and RevokeSubject for
// back-channel logout (oidcclaims.SubjectRevoker). It is declared here by
// its methods so that this package imports no adapter.
type Revocations interface {
	RevokeSession(ctx context.Context, key string, until time.Time) error
	RevokeSubject(ctx context.Context, subject string) error
	Revoked(ctx context.Context, subject, key string, issued time.Time) (bool, error)
}

// RunRevocations checks a list of ended sessions. newList returns an
// empty list, used by one subtest only, that reads the time from now;
// the suite moves that clock by milliseconds from the real time (a list
// kept in Redis expires records by the server's clock). reopen, when not
// nil, returns a second handle on the same records (another instance, or
// the same one after a restart); a list kept in process memory passes nil.
func RunRevocations(t *testing.T, newList func(t *testing.T, now func() time.Time) Revocations, reopen func(t *testing.T, l Revocations) Revocations) {
	t.Helper()
	ctx := context.Background()
	type clock struct{ now time.Time }
	setup := func(t *testing.T) (Revocations, *clock) {
		c := &clock{now: time.Now().Truncate(time.Millisecond)}
		return newList(t, func() time.Time { return c.now }), c
	}
	revoked := func(t *testing.T, l Revocations, subject, key string, issued time.Time) bool {
		t.Helper()
		ok, err := l.Revoked(ctx, subject, key, issued)
		if err != nil {
			t.Fatalf("Revoked(%q, %q): %v", subject, key, err)
		}
		return ok
	}

	t.Run("an unknown session is not revoked", func(t *testing.T) {
		l, c := setup(t)
		if revoked(t, l, "alice", "k1", c.now) || revoked(t, l, "alice", "", c.now) {
			t.Error("a session nobody ended is revoked")
		}
	})
	t.Run("a session ends by its key only", func(t *testing.T) {
		l, c := setup(t)
		if err := l.RevokeSession(ctx, "k1", c.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if !revoked(t, l, "alice", "k1", c.now.Add(-time.Minute)) {
			t.Error("the ended session is not revoked")
		}
		if revoked(t, l, "alice", "k2", c.now.Add(-time.Minute)) {
			t.Error("another session of the same subject is revoked")
		}
		// A later until keeps the record; an earlier one does not shorten it.
		if err := l.RevokeSession(ctx, "k1", c.now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if !revoked(t, l, "alice", "k1", c.now) {
			t.Error("a second, shorter revoke undid the first")
		}
	})
	t.Run("an until already past records nothing", func(t *testing.T) {
		l, c := setup(t)
		if err := l.RevokeSession(ctx, "k1", c.now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if revoked(t, l, "alice", "k1", c.now.Add(-time.Hour)) {
			t.Error("a revoke whose cookie had already expired was recorded")
		}
	})
	t.Run("a subject's revoke ends its sessions saved until then, not later ones", func(t *testing.T) {
		l, c := setup(t)
		at := c.now
		if err := l.RevokeSubject(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		c.now = c.now.Add(5 * time.Millisecond)
		for _, tt := range []struct {
			subject string
			issued  time.Time
			want    bool
		}{
			{"alice", at.Add(-time.Hour), true},
			{"alice", at, true},
			{"alice", at.Add(time.Millisecond), false},
			{"bob", at.Add(-time.Hour), false},
		} {
			if got := revoked(t, l, tt.subject, "any-key", tt.issued); got != tt.want {
				t.Errorf("%s saved at %+dms: revoked = %v, want %v", tt.subject, tt.issued.Sub(at).Milliseconds(), got, tt.want)
			}
		}
	})
	if reopen == nil {
		t.Log("the list lives in one process: the shared-list cases do not apply")
		return
	}
	t.Run("another handle sees the same list", func(t *testing.T) {
		l, c := setup(t)
		if err := l.RevokeSession(ctx, "k1", c.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := l.RevokeSubject(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
		other := reopen(t, l)
		if !revoked(t, other, "alice", "k1", c.now) || !revoked(t, other, "bob", "k9", c.now.Add(-time.Second)) {
			t.Error("a second handle on the same list does not see its revokes")
		}
	})
}
