package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// RunEndedLogins checks a middleware.EndedLogins, a list of ended login
// sessions, against its contract. newList returns an
// empty list, used by one subtest only, that reads the time from now;
// the suite moves that clock by milliseconds from the real time (a list
// kept in Redis expires records by the server's clock). reopen, when not
// nil, returns a second handle on the same records (another instance, or
// the same one after a restart); a list kept in process memory passes nil.
func RunEndedLogins(t *testing.T, newList func(t *testing.T, now func() time.Time) middleware.EndedLogins, reopen func(t *testing.T, l middleware.EndedLogins) middleware.EndedLogins) {
	t.Helper()
	ctx := context.Background()
	type clock struct{ now time.Time }
	setup := func(t *testing.T) (middleware.EndedLogins, *clock) {
		c := &clock{now: time.Now().Truncate(time.Millisecond)}
		return newList(t, func() time.Time { return c.now }), c
	}
	endedLogin := func(t *testing.T, l middleware.EndedLogins, login middleware.Login) bool {
		t.Helper()
		ok, err := l.LoginEnded(ctx, login)
		if err != nil {
			t.Fatalf("LoginEnded(%+v): %v", login, err)
		}
		return ok
	}
	ended := func(t *testing.T, l middleware.EndedLogins, subject, key string, issued time.Time) bool {
		t.Helper()
		return endedLogin(t, l, middleware.Login{Subject: subject, Key: key, Issued: issued})
	}

	t.Run("an empty key, subject or sid is an error", func(t *testing.T) {
		l, c := setup(t)
		if err := l.EndLogin(ctx, "", c.now.Add(time.Hour)); err == nil {
			t.Error("EndLogin with an empty key returned nil")
		}
		if err := l.EndLoginsOf(ctx, ""); err == nil {
			t.Error("EndLoginsOf with an empty subject returned nil")
		}
		if err := l.EndLoginsOfSID(ctx, ""); err == nil {
			t.Error("EndLoginsOfSID with an empty sid returned nil")
		}
	})
	t.Run("an unknown login has not ended", func(t *testing.T) {
		l, c := setup(t)
		if ended(t, l, "alice", "k1", c.now) || ended(t, l, "alice", "", c.now) {
			t.Error("a login nobody ended has ended")
		}
	})
	t.Run("a login ends by its key only", func(t *testing.T) {
		l, c := setup(t)
		if err := l.EndLogin(ctx, "k1", c.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if !ended(t, l, "alice", "k1", c.now.Add(-time.Minute)) {
			t.Error("the ended login has not ended")
		}
		if ended(t, l, "alice", "k2", c.now.Add(-time.Minute)) {
			t.Error("another login of the same subject has ended")
		}
		// A later until keeps the record; an earlier one does not shorten it.
		if err := l.EndLogin(ctx, "k1", c.now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if !ended(t, l, "alice", "k1", c.now) {
			t.Error("a second, shorter EndLogin undid the first")
		}
	})
	t.Run("an until already past records nothing", func(t *testing.T) {
		l, c := setup(t)
		if err := l.EndLogin(ctx, "k1", c.now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if ended(t, l, "alice", "k1", c.now.Add(-time.Hour)) {
			t.Error("an EndLogin whose cookie had already expired was recorded")
		}
	})
	t.Run("EndLoginsOf ends the logins saved until then, not later ones", func(t *testing.T) {
		l, c := setup(t)
		at := c.now
		if err := l.EndLoginsOf(ctx, "alice"); err != nil {
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
			if got := ended(t, l, tt.subject, "any-key", tt.issued); got != tt.want {
				t.Errorf("%s saved at %+dms: ended = %v, want %v", tt.subject, tt.issued.Sub(at).Milliseconds(), got, tt.want)
			}
		}
	})
	t.Run("EndLoginsOfSID ends the logins of the provider session saved until then, not later ones", func(t *testing.T) {
		l, c := setup(t)
		at := c.now
		if err := l.EndLoginsOfSID(ctx, "sid-1"); err != nil {
			t.Fatal(err)
		}
		c.now = c.now.Add(5 * time.Millisecond)
		for _, tt := range []struct {
			name  string
			login middleware.Login
			want  bool
		}{
			{"a login of the sid saved before", middleware.Login{Subject: "alice", Key: "k1", ProviderSID: "sid-1", Issued: at.Add(-time.Hour)}, true},
			{"a login of the sid saved at the logout", middleware.Login{Subject: "alice", Key: "k2", ProviderSID: "sid-1", Issued: at}, true},
			{"a new login in the same provider session", middleware.Login{Subject: "alice", Key: "k3", ProviderSID: "sid-1", Issued: at.Add(time.Millisecond)}, false},
			{"a login of another provider session", middleware.Login{Subject: "alice", Key: "k4", ProviderSID: "sid-2", Issued: at.Add(-time.Hour)}, false},
			{"a login with no provider session", middleware.Login{Subject: "alice", Key: "k5", Issued: at.Add(-time.Hour)}, false},
			{"a login whose key is the sid", middleware.Login{Subject: "alice", Key: "sid-1", Issued: at.Add(-time.Hour)}, false},
		} {
			if got := endedLogin(t, l, tt.login); got != tt.want {
				t.Errorf("%s: ended = %v, want %v", tt.name, got, tt.want)
			}
		}
		// The sid is not a subject, and a subject is not a sid.
		if ended(t, l, "sid-1", "k6", at.Add(-time.Hour)) {
			t.Error("EndLoginsOfSID ended the logins of a subject spelt like the sid")
		}
	})
	t.Run("a login ended by its key is not ended by its sid, nor the other way", func(t *testing.T) {
		l, c := setup(t)
		if err := l.EndLogin(ctx, "k1", c.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if endedLogin(t, l, middleware.Login{Subject: "alice", Key: "k2", ProviderSID: "k1", Issued: c.now.Add(-time.Minute)}) {
			t.Error("EndLogin of a key ended a login whose provider sid is spelt like it")
		}
		if !endedLogin(t, l, middleware.Login{Subject: "alice", Key: "k1", ProviderSID: "sid-9", Issued: c.now.Add(-time.Minute)}) {
			t.Error("a login ended by its key was not ended because it names a provider session")
		}
	})
	if reopen == nil {
		t.Log("the list lives in one process: the shared-list cases do not apply")
		return
	}
	t.Run("another handle sees the same list", func(t *testing.T) {
		l, c := setup(t)
		if err := l.EndLogin(ctx, "k1", c.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := l.EndLoginsOf(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
		if err := l.EndLoginsOfSID(ctx, "sid-carol"); err != nil {
			t.Fatal(err)
		}
		other := reopen(t, l)
		if !ended(t, other, "alice", "k1", c.now) || !ended(t, other, "bob", "k9", c.now.Add(-time.Second)) {
			t.Error("a second handle on the same list does not see its ended logins")
		}
		if !endedLogin(t, other, middleware.Login{Subject: "carol", Key: "k8", ProviderSID: "sid-carol", Issued: c.now.Add(-time.Second)}) {
			t.Error("a second handle on the same list does not see a provider session's ended logins")
		}
	})
}
