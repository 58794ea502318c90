package gorillasession_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// TestSignInOverLoginWhileStoresDown: a sign-in over a login whose embed
// sessions cannot be revoked (a store does not answer) fails, writes no
// cookie, and leaves the earlier login live; but the Kit keeps the
// revoke and makes it once the stores answer, as Identity.Save's doc
// says: someone else may be signing in on this browser, so the earlier
// login's embeds end all the same, and its frames mint again. When the
// revoke is made but the ended login cannot be written, the Kit keeps
// that too: the earlier login's cookie stays and signs nobody in.
func TestSignInOverLoginWhileStoresDown(t *testing.T) {
	tests := []struct {
		name                        string
		list, listWrites, storeDown bool
		want                        error // what Save's error wraps
		earlierStays                bool  // the earlier login signs in once the stores answer
	}{
		{"list down", true, false, false, middleware.ErrStore, true},
		{"id store down", false, false, true, middleware.ErrStore, true},
		{"both down", true, false, true, middleware.ErrStore, true},
		{"list refuses writes", false, true, false, gorillasession.ErrNotRecorded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, store := newIdentity(t)
			h := newHost(t, id, store, gorillasession.NewMemoryEndedLogins(0))
			ana := h.signedInWithAFrame(t, "ana")
			before := h.sessionCookie(t, ana)

			h.list.down.Store(tt.list)
			h.list.writesDown.Store(tt.listWrites)
			h.store.down.Store(tt.storeDown)
			if resp := h.do(t, ana, http.MethodPost, "/login?sub=bea"); resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("sign-in over ana's login with a store down: %d, want the handler's 500 (Save failed)", resp.StatusCode)
			}
			if after := h.sessionCookie(t, ana); after == nil || after.Value != before.Value {
				t.Fatal("a failed Save changed the session cookie")
			}
			r := httptest.NewRequest(http.MethodPost, "https://app.example.com/login", nil)
			r.AddCookie(before)
			if err := id.Save(httptest.NewRecorder(), r, &middleware.Viewer{Subject: "bea"}); !errors.Is(err, tt.want) {
				t.Errorf("Save over a login: %v, want an error wrapping %v", err, tt.want)
			} else {
				// Every case is a store outage (the ended login not
				// recorded too): ServeError answers 503 with Retry-After.
				if status, retry := middleware.ErrorStatus(err); status != http.StatusServiceUnavailable || retry == 0 {
					t.Errorf("ErrorStatus of Save's error: %d, Retry-After %v; want 503 with Retry-After", status, retry)
				}
			}

			h.list.down.Store(false)
			h.list.writesDown.Store(false)
			h.store.down.Store(false)
			if n, err := h.kit.FlushRevokes(context.Background()); err != nil || n != 0 {
				t.Fatalf("FlushRevokes once the stores are back: %d pending, %v", n, err)
			}
			// The revoke was made, at once or kept until now.
			embedkittest.AssertRevoked(t, h.p, "ana")
			want := http.StatusUnauthorized
			if tt.earlierStays {
				want = http.StatusOK
			}
			if resp := h.do(t, ana, http.MethodGet, "/me"); resp.StatusCode != want {
				t.Fatalf("ana's cookie after the failed sign-in, stores back: %d, want %d", resp.StatusCode, want)
			}
			if !tt.earlierStays {
				return
			}
			// Its frames mint again.
			minted := len(h.p.Emulator().Sessions())
			if resp := h.do(t, ana, http.MethodGet, middleware.DefaultFramePrefix+"sales"); resp.StatusCode != http.StatusSeeOther {
				t.Errorf("ana's frame after the kept revoke: %d, want 303 (a new mint)", resp.StatusCode)
			}
			if n := len(h.p.Emulator().Sessions()); n != minted+1 {
				t.Errorf("ana's frame load minted %d sessions, want 1", n-minted)
			}
		})
	}
}
