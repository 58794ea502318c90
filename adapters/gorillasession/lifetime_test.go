package gorillasession_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/internal/testkit"
)

// replayCopy sends the cookie copy from a new browser to path and
// returns that browser, which keeps whatever cookie the host sends back.
func (h *host) replayCopy(t *testing.T, copyOf *http.Cookie) *http.Client {
	t.Helper()
	thief := h.client(t)
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/", nil)
	thief.Jar.SetCookies(req.URL, []*http.Cookie{{Name: copyOf.Name, Value: copyOf.Value, Path: "/", Secure: true}})
	return thief
}

// TestResignedCopyStaysSignedOut: a copy of the cookie taken before
// logout, which a handler saves again for the signed-out visitor (a flash
// message, a language choice), is signed anew for another MaxAge each
// time; it must stay refused after the logout's record would have lapsed,
// with the default settings and with a lifetime longer than MaxAge.
// MaxAge is 3 s; the clock of the identity and the list is moved by hand
// (securecookie's own check, on the real clock, accepts every copy, as it
// accepts a copy saved less than MaxAge ago).
func TestResignedCopyStaysSignedOut(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		maxLifetime time.Duration
		checks      []time.Duration // when the re-signed copy comes back
	}{
		{"default lifetime (the cookie's MaxAge)", 0, []time.Duration{1500 * time.Millisecond, 3200 * time.Millisecond, 7200 * time.Millisecond, time.Hour}},
		{"a lifetime of an hour", time.Hour, []time.Duration{1500 * time.Millisecond, 3200 * time.Millisecond, 7200 * time.Millisecond, 30 * time.Minute, time.Hour + 2*time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := testkit.NewClock(t0)
			id, store := newIdentity(t)
			store.MaxAge(3)
			id.Now, id.MaxLifetime = clock.Now, tt.maxLifetime
			life := tt.maxLifetime
			if life == 0 {
				life = 3 * time.Second
			}
			list := gorillasession.NewMemoryEndedLogins(life)
			list.Now = clock.Now
			h := newHost(t, id, store, list)
			ana := h.client(t)
			h.do(t, ana, http.MethodPost, "/login?sub=ana")
			copyOf := *h.sessionCookie(t, ana)
			clock.Set(t0.Add(500 * time.Millisecond))
			if resp := h.do(t, ana, http.MethodPost, "/logout"); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("logout: %d", resp.StatusCode)
			}
			thief := h.replayCopy(t, &copyOf)
			for _, at := range tt.checks {
				clock.Set(t0.Add(at))
				if resp := h.do(t, thief, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("at %v the re-signed pre-logout copy signs in (logout undone)", at)
				}
				// The host saves the session for the signed-out visitor:
				// the copy is signed anew, viewer and all.
				if resp := h.do(t, thief, http.MethodPost, "/touch"); resp.StatusCode != http.StatusOK {
					t.Fatalf("touch at %v: %d", at, resp.StatusCode)
				}
			}
		})
	}
}

// TestEndLoginsOfResignedCopy: the same holds for a login ended by its
// subject or by its provider session (back-channel logout): a copy saved
// again and again stays refused after the list's record lapses.
func TestEndLoginsOfResignedCopy(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, by := range []string{"subject", "sid"} {
		t.Run(by, func(t *testing.T) {
			clock := testkit.NewClock(t0)
			id, store := newIdentity(t)
			store.MaxAge(3)
			id.Now = clock.Now
			list := gorillasession.NewMemoryEndedLogins(3 * time.Second)
			list.Now = clock.Now
			h := newHost(t, id, store, list)
			h.sid = "sid-ana"
			ana := h.client(t)
			h.do(t, ana, http.MethodPost, "/login?sub=ana")
			clock.Set(t0.Add(500 * time.Millisecond))
			var err error
			if by == "subject" {
				err = list.EndLoginsOf(t.Context(), "ana")
			} else {
				err = list.EndLoginsOfSID(t.Context(), "sid-ana")
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Duration{time.Second, 3200 * time.Millisecond, 7200 * time.Millisecond} {
				clock.Set(t0.Add(at))
				if resp := h.do(t, ana, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("at %v the login ended by its %s signs in", at, by)
				}
				h.do(t, ana, http.MethodPost, "/touch")
			}
		})
	}
}

// TestReplayInSecurecookiesLastSecond: securecookie compares whole
// seconds, so it accepts a cookie up to MaxAge + 1 s after signing it.
// The record of a logout must last that second too: a copy signed just
// before logout and replayed 0.4 s after MaxAge is refused. This runs on
// the real clock (securecookie has no other), MaxAge 2 s, with no
// absolute lifetime, so that only the record stands in the way.
func TestReplayInSecurecookiesLastSecond(t *testing.T) {
	t.Parallel()
	id, store := newIdentity(t)
	store.MaxAge(2)
	id.MaxLifetime = gorillasession.NoMaxLifetime
	h := newHost(t, id, store, gorillasession.NewMemoryEndedLogins(2*time.Second))
	// Sign in early in a second, so that securecookie still takes the
	// copy 2.4 s later (it does until the signing second + 3 s).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	ana := h.client(t)
	h.do(t, ana, http.MethodPost, "/login?sub=ana")
	copyOf := *h.sessionCookie(t, ana)
	if resp := h.do(t, ana, http.MethodPost, "/logout"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	loggedOut := time.Now()
	thief := h.replayCopy(t, &copyOf)
	time.Sleep(time.Until(loggedOut.Add(2400 * time.Millisecond)))
	if resp := h.do(t, thief, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a copy replayed at MaxAge + 0.4 s signs in")
	}
}

// TestDefaultMaxLifetime: MaxLifetime zero bounds a login by the cookie's
// MaxAge from Save, however often the cookie is saved again;
// NoMaxLifetime turns the bound off.
func TestDefaultMaxLifetime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		maxLifetime time.Duration
		at          time.Duration
		want        int
	}{
		{"default, within the cookie's MaxAge", 0, 2900 * time.Millisecond, http.StatusOK},
		{"default, at the cookie's MaxAge", 0, 3 * time.Second, http.StatusUnauthorized},
		{"no lifetime", gorillasession.NoMaxLifetime, 10 * time.Second, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := testkit.NewClock(t0)
			id, store := newIdentity(t)
			store.MaxAge(3)
			id.Now, id.MaxLifetime = clock.Now, tt.maxLifetime
			h := newHost(t, id, store, gorillasession.NewMemoryEndedLogins(0))
			ana := h.client(t)
			h.do(t, ana, http.MethodPost, "/login?sub=ana")
			for d := time.Second; d < tt.at; d += time.Second {
				clock.Set(t0.Add(d))
				h.do(t, ana, http.MethodPost, "/touch")
			}
			clock.Set(t0.Add(tt.at))
			if resp := h.do(t, ana, http.MethodGet, "/me"); resp.StatusCode != tt.want {
				t.Errorf("GET /me at %v: %d, want %d", tt.at, resp.StatusCode, tt.want)
			}
		})
	}
}
