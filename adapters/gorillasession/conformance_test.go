package gorillasession_test

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/identitytest"
	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/internal/testredis"
	"github.com/embedkit/embedkit/middleware"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
}

// TestIdentityConformance runs the Identity conformance suite on a
// cookie store over http, with the Kit as the Identity's Revoker: without
// a list of ended logins (a copy of a cookie then outlives its login, and
// logins cannot be ended by subject or sid), with the memory list, and
// with redisstore's on a real Redis.
func TestIdentityConformance(t *testing.T) {
	lifetime := gorillasession.DefaultMaxAge * time.Second
	lists := []struct {
		name string
		list func(t *testing.T) middleware.EndedLogins
	}{
		{"no list", nil},
		{"memory list", func(*testing.T) middleware.EndedLogins { return gorillasession.NewMemoryEndedLogins(lifetime) }},
		{"redis list", func(t *testing.T) middleware.EndedLogins {
			c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
			prefix := "embedkit-gs-test:" + rand.Text() + ":"
			t.Cleanup(func() {
				ctx := context.Background()
				if keys, _ := c.Keys(ctx, prefix+"*").Result(); len(keys) > 0 {
					_ = c.Del(ctx, keys...).Err()
				}
				_ = c.Close()
			})
			l, err := redisstore.NewEndedLogins(c, lifetime, redisstore.WithPrefix(prefix))
			if err != nil {
				t.Fatal(err)
			}
			return l
		}},
	}
	for _, tt := range lists {
		t.Run(tt.name, func(t *testing.T) {
			identitytest.Run(t, func(t *testing.T) identitytest.Harness {
				store := gorillasession.SecureCookieStore(keyNew, nil)
				store.Options.Secure = false // the suite serves plain http on loopback
				id := gorillasession.New(store, cookieName)
				h := identitytest.Harness{
					Identity: id,
					SignIn:   id.Save,
					SignOut:  id.Clear,
				}
				if tt.list == nil {
					h.CopiesOutliveLogout = true
					return h
				}
				list := tt.list(t)
				id.EndedLogins = list
				h.EndLoginsOf = func(ctx context.Context, subject string) error { return list.EndLoginsOf(ctx, subject) }
				h.EndLoginsOfSID = func(ctx context.Context, sid string) error { return list.EndLoginsOfSID(ctx, sid) }
				return h
			})
		})
	}
}
