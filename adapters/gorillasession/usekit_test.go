package gorillasession_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// revokerFunc is a Revoker of the app's own.
type revokerFunc func(w http.ResponseWriter, r *http.Request) error

func (f revokerFunc) RevokeRequest(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// keeperOf is a Keeper of the app's own.
type keeperOf struct{}

func (keeperOf) KeepEndedLogin(middleware.EndedLogins, string, time.Time) bool { return false }
func (keeperOf) EndedLoginKept(string) bool                                    { return false }

// TestNewGivesTheKit: middleware.New hands the Kit it builds to the
// Identity (middleware.KitUser), as its Revoker and Keeper, and leaves a
// Revoker or Keeper the app set alone.
func TestNewGivesTheKit(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	build := func(id *gorillasession.Identity) *middleware.Kit {
		t.Helper()
		cfg := p.KitConfig()
		cfg.Identity, cfg.Store = id, memstore.New()
		kit, err := middleware.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return kit
	}
	store := gorillasession.SecureCookieStore(keyNew, nil)
	id := gorillasession.New(store, "app")
	kit := build(id)
	if id.Revoker != gorillasession.Revoker(kit) {
		t.Errorf("Revoker = %v, want the Kit New built", id.Revoker)
	}
	if id.Keeper != middleware.EndedLoginKeeper(kit) {
		t.Errorf("Keeper = %v, want the Kit New built", id.Keeper)
	}

	own := gorillasession.New(store, "app")
	own.Revoker = revokerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	own.Keeper = keeperOf{}
	build(own)
	if _, ok := own.Revoker.(revokerFunc); !ok {
		t.Errorf("New replaced the app's Revoker with %T", own.Revoker)
	}
	if _, ok := own.Keeper.(keeperOf); !ok {
		t.Errorf("New replaced the app's Keeper with %T", own.Keeper)
	}
}
