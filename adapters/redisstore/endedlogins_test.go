package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

// TestEndedLoginsConformance runs the shared suite of lists of ended
// sessions; a second EndedLogins on the same prefix is another instance.
func TestEndedLoginsConformance(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		c := srv.client(t)
		newList := func(t *testing.T, prefix string, now func() time.Time) *EndedLogins {
			r, err := NewEndedLogins(c, time.Hour, WithPrefix(prefix), WithClock(now))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		storetest.RunEndedLogins(t, func(t *testing.T, now func() time.Time) middleware.EndedLogins {
			return newList(t, newPrefix(t, c), now)
		}, func(t *testing.T, l middleware.EndedLogins) middleware.EndedLogins {
			r := l.(*EndedLogins)
			other, err := NewEndedLogins(srv.client(t), time.Hour,
				WithPrefix(strings.TrimSuffix(r.prefix, "ended:")))
			if err != nil {
				t.Fatal(err)
			}
			return other
		})
	})
}

// TestEndedLoginsKeepsNoClearText: the host session key, the subject and
// the provider sid appear in Redis only as digests, and every record
// expires.
func TestEndedLoginsKeepsNoClearText(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		c := srv.client(t)
		prefix := newPrefix(t, c)
		r, err := NewEndedLogins(c, time.Hour, WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		key, subject, sid := "host-session-key-secret", "alice@example.com", "provider-sid-secret"
		if err := r.EndLogin(ctx, key, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := r.EndLoginsOf(ctx, subject); err != nil {
			t.Fatal(err)
		}
		if err := r.EndLoginsOfSID(ctx, sid); err != nil {
			t.Fatal(err)
		}
		// A second, shorter revoke of the same session keeps the longer expiry.
		if err := r.EndLogin(ctx, key, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if ttl := c.PTTL(ctx, r.keyKey(key)).Val(); ttl < 59*time.Minute {
			t.Errorf("a shorter revoke cut the record's expiry to %v", ttl)
		}
		names := keysUnder(t, c, prefix)
		if len(names) != 3 {
			t.Fatalf("keys %v, want one per revoke", names)
		}
		for _, n := range names {
			if strings.Contains(n, key) || strings.Contains(n, subject) || strings.Contains(n, sid) {
				t.Errorf("key %q holds a session key, subject or sid in clear", n)
			}
			// The lifetime, and the second securecookie allows past it.
			ttl, err := c.PTTL(ctx, n).Result()
			if err != nil || ttl <= 0 || ttl > time.Hour+cookieSlack {
				t.Errorf("key %q expires in %v (%v), want within the hour and a second", n, ttl, err)
			}
		}
	})
}

// TestEndedLoginsErrors: bad arguments name the rule; an unreachable
// Redis or an unreadable record is an error from LoginEnded, never "not
// ended".
func TestEndedLoginsErrors(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		if _, err := NewEndedLogins(nil, time.Hour); err == nil || !strings.Contains(err.Error(), "client") {
			t.Errorf("nil client: %v", err)
		}
		c := srv.client(t)
		if _, err := NewEndedLogins(c, 0); err == nil || !strings.Contains(err.Error(), "lifetime") {
			t.Errorf("zero lifetime: %v", err)
		}
		r, _ := NewEndedLogins(c, time.Hour, WithPrefix(newPrefix(t, c)))
		ctx := context.Background()
		if err := r.EndLogin(ctx, "", time.Now().Add(time.Hour)); err == nil {
			t.Error("an empty session key was accepted")
		}
		if err := r.EndLoginsOf(ctx, ""); err == nil {
			t.Error("an empty subject was accepted")
		}
		if err := r.EndLoginsOfSID(ctx, ""); err == nil {
			t.Error("an empty sid was accepted")
		}
		// A record Redis cannot read as one (here a hash where the list
		// keeps a string) is an error, even when the other record is
		// simply missing.
		if err := c.HSet(ctx, r.keyKey("k-bad"), "f", "v").Err(); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.LoginEnded(ctx, middleware.Login{Subject: "nobody", Key: "k-bad", Issued: time.Now()}); err == nil || ok {
			t.Errorf("LoginEnded of an unreadable record = %v, %v; want an error", ok, err)
		}
		if err := c.HSet(ctx, r.subjectKey("s-bad"), "f", "v").Err(); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.LoginEnded(ctx, middleware.Login{Subject: "s-bad", Key: "k-none", Issued: time.Now()}); err == nil || ok {
			t.Errorf("LoginEnded of an unreadable subject record = %v, %v; want an error", ok, err)
		}
		if err := c.HSet(ctx, r.sidKey("d-bad"), "f", "v").Err(); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.LoginEnded(ctx, middleware.Login{Subject: "nobody", Key: "k-none", ProviderSID: "d-bad", Issued: time.Now()}); err == nil || ok {
			t.Errorf("LoginEnded of an unreadable sid record = %v, %v; want an error", ok, err)
		}
		down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { _ = down.Close() })
		dr, _ := NewEndedLogins(down, time.Hour)
		if ok, err := dr.LoginEnded(ctx, middleware.Login{Subject: "alice", Key: "k1", ProviderSID: "sid-1", Issued: time.Now()}); err == nil || ok {
			t.Errorf("LoginEnded with Redis down = %v, %v; want an error", ok, err)
		}
	})
}
