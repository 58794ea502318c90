package scssession_test

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"
	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/adapters/identitytest"
	"github.com/embedkit/embedkit/adapters/scssession"
	"github.com/embedkit/embedkit/internal/testredis"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
}

// A backend is an scs store the tests run against: scs's own memory
// store, and goredisstore (go-redis v9) on a real redis-server.
type backend struct {
	name  string
	store func(t *testing.T) scs.Store
}

var backends = []backend{
	{"memstore", func(t *testing.T) scs.Store {
		s := memstore.NewWithCleanupInterval(0)
		return s
	}},
	{"goredisstore", func(t *testing.T) scs.Store {
		c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Ping(ctx).Err(); err != nil {
			t.Fatalf("redis does not answer: %v", err)
		}
		prefix := "embedkit-scs-test:" + rand.Text() + ":"
		t.Cleanup(func() {
			ctx := context.Background()
			keys, _ := c.Keys(ctx, prefix+"*").Result()
			if len(keys) > 0 {
				_ = c.Del(ctx, keys...).Err()
			}
			_ = c.Close()
		})
		return goredisstore.NewWithPrefix(c, prefix)
	}},
}

// eachBackend runs fn as a subtest for each backend.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// newManager returns a SessionManager on store, with the defaults an app
// keeps (scs.New's), for tests over http.
func newManager(store scs.Store) *scs.SessionManager {
	sm := scs.New()
	sm.Store = store
	return sm
}

// harness is the conformance Harness of an Identity on sm.
func harness(sm *scs.SessionManager) identitytest.Harness {
	id := scssession.New(sm)
	return identitytest.Harness{
		Identity: id,
		SignIn:   id.Save,
		SignOut:  id.Clear,
		Mount:    sm.LoadAndSave,
		EndLoginsOf: func(ctx context.Context, subject string) error {
			_, err := id.EndLoginsOf(ctx, subject)
			return err
		},
		EndLoginsOfSID: func(ctx context.Context, sid string) error {
			_, err := id.EndLoginsOfSID(ctx, sid)
			return err
		},
	}
}

// noIteration hides a store's All, as a store that cannot list its
// sessions does.
type noIteration struct{ s scs.Store }

func (n noIteration) Delete(token string) error               { return n.s.Delete(token) }
func (n noIteration) Find(token string) ([]byte, bool, error) { return n.s.Find(token) }
func (n noIteration) Commit(token string, b []byte, e time.Time) error {
	return n.s.Commit(token, b, e)
}
