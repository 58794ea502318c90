package gorillasession_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/testkit"
	"github.com/embedkit/embedkit/middleware"
)

var errDown = errors.New("connection refused")

// switchList is a list of ended logins that can be taken down, or made
// to refuse writes alone (writesDown).
type switchList struct {
	down, writesDown atomic.Bool
	middleware.EndedLogins
}

func (l *switchList) EndLogin(ctx context.Context, key string, until time.Time) error {
	if l.down.Load() || l.writesDown.Load() {
		return errDown
	}
	return l.EndedLogins.EndLogin(ctx, key, until)
}

func (l *switchList) LoginEnded(ctx context.Context, login middleware.Login) (bool, error) {
	if l.down.Load() {
		return false, errDown
	}
	return l.EndedLogins.LoginEnded(ctx, login)
}

// switchStore is a store of minted ids that can be taken down.
type switchStore struct {
	down atomic.Bool
	middleware.SessionStore
}

func (s *switchStore) Take(ctx context.Context, key string) ([]middleware.Minted, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.SessionStore.Take(ctx, key)
}

// logoutMetrics counts incomplete logouts by step.
type logoutMetrics struct {
	middleware.NopMetrics
	mu    sync.Mutex
	steps map[middleware.LogoutStep]int
}

func (m *logoutMetrics) LogoutIncomplete(step middleware.LogoutStep) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.steps == nil {
		m.steps = map[middleware.LogoutStep]int{}
	}
	m.steps[step]++
}

func (m *logoutMetrics) count(step middleware.LogoutStep) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.steps[step]
}

// host is a host app on a TLS loopback server: POST /login signs in the
// subject of its "sub" query parameter, the kit's frame endpoint mints,
// GET /me answers 200 for a signed-in viewer and 401 otherwise, and
// POST /logout is the kit's Logout around Identity.Clear.
type host struct {
	srv     *httptest.Server
	p       *embedkittest.Platform
	id      *gorillasession.Identity
	list    *switchList
	store   *switchStore
	metrics *logoutMetrics
	logs    *testkit.SyncBuffer
	kit     *middleware.Kit
	// sid is the provider session that POST /login signs in under.
	sid string
}

func newHost(t *testing.T, id *gorillasession.Identity, store sessions.Store, list middleware.EndedLogins, opts ...func(*middleware.Config)) *host {
	t.Helper()
	h := &host{
		p:       embedkittest.NewPlatform(t),
		id:      id,
		list:    &switchList{EndedLogins: list},
		store:   &switchStore{SessionStore: memstore.New()},
		metrics: &logoutMetrics{},
		logs:    &testkit.SyncBuffer{},
	}
	logger := slog.New(slog.NewJSONHandler(h.logs, nil))
	id.EndedLogins, id.Logger, id.Metrics = h.list, logger, h.metrics
	cfg := h.p.KitConfig()
	cfg.Identity, cfg.Store, cfg.Metrics, cfg.Logger = id, h.store, h.metrics, logger
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	for _, o := range opts {
		o(&cfg)
	}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.kit = kit
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if err := id.Save(w, r, &middleware.Viewer{Subject: r.URL.Query().Get("sub"), ProviderSID: h.sid}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("POST /touch", func(w http.ResponseWriter, r *http.Request) {
		// A handler that saves the session again (settings, a flash
		// message): gorilla signs the cookie anew.
		sess, err := store.Get(r, cookieName)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if err := sess.Save(r, w); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		if _, err := id.Viewer(r); err != nil {
			http.Error(w, "signed out", http.StatusUnauthorized)
		}
	})
	mux.Handle("GET "+middleware.DefaultFramePrefix, kit.FrameHandler())
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := id.Clear(w, r); err != nil && !errors.Is(err, gorillasession.ErrNotRecorded) {
			t.Errorf("Clear: %v", err)
		}
		w.Header().Set("Location", "/")
		w.WriteHeader(http.StatusSeeOther)
	})))
	h.srv = httptest.NewTLSServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// client returns a browser: a cookie jar, no redirects followed.
func (h *host) client(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := h.srv.Client()
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// signedInWithAFrame returns a browser signed in as sub that has loaded
// one frame (one minted session for its login).
func (h *host) signedInWithAFrame(t *testing.T, sub string) *http.Client {
	t.Helper()
	c := h.client(t)
	if resp := h.do(t, c, http.MethodPost, "/login?sub="+sub); resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	if resp := h.do(t, c, http.MethodGet, middleware.DefaultFramePrefix+"sales"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("frame: %d", resp.StatusCode)
	}
	return c
}

// do sends one request and returns the response, its body read.
func (h *host) do(t *testing.T, c *http.Client, method, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// sessionCookie returns the session cookie the jar holds, or nil.
func (h *host) sessionCookie(t *testing.T, c *http.Client) *http.Cookie {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/", nil)
	for _, ck := range c.Jar.Cookies(req.URL) {
		if ck.Name == cookieName {
			return ck
		}
	}
	return nil
}

// TestLogoutWhileListDown: with the list of ended logins down (and the
// store of minted ids too), a page load answers 503 with Retry-After (an
// outage: wait and retry), logout still expires the cookie in the
// browser, and what could not be recorded is logged, without the session
// key, and counted by step. The Kit keeps both (Identity.Keeper, and the
// ids to take): once the stores are back, its next pass records the
// ended login, so a copy of the pre-logout cookie no longer signs in,
// and revokes the login's embeds.
func TestLogoutWhileListDown(t *testing.T) {
	tests := []struct {
		name      string
		storeDown bool
		want      map[middleware.LogoutStep]int
	}{
		// The kit still reads who is logging out (an
		// UnverifiedViewerError), and keeps the revoke of that login's
		// embeds until the stores answer: the list's outage says the
		// store is likely down too.
		{"list down", false, map[middleware.LogoutStep]int{middleware.LogoutStepLogin: 1, middleware.LogoutStepEmbeds: 1}},
		{"list and id store down", true, map[middleware.LogoutStep]int{middleware.LogoutStepLogin: 1, middleware.LogoutStepEmbeds: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, store := newIdentity(t)
			h := newHost(t, id, store, gorillasession.NewMemoryEndedLogins(0))
			id.Keeper = h.kit
			ana := h.signedInWithAFrame(t, "ana")
			before := h.sessionCookie(t, ana)
			if before == nil {
				t.Fatal("no session cookie after login")
			}

			h.list.down.Store(true)
			// A login that cannot be checked mints nothing, and says
			// to retry later, as any outage does.
			minted := len(h.p.Emulator().Sessions())
			if resp := h.do(t, ana, http.MethodGet, middleware.DefaultFramePrefix+"sales"); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Errorf("frame load with the list down: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			if n := len(h.p.Emulator().Sessions()); n != minted {
				t.Errorf("a frame load with the list down minted %d sessions", n-minted)
			}
			h.store.down.Store(tt.storeDown)
			resp := h.do(t, ana, http.MethodPost, "/logout")
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("logout: %d, want 303", resp.StatusCode)
			}
			expired := false
			for _, c := range resp.Cookies() {
				if c.Name == cookieName && c.MaxAge < 0 {
					expired = true
				}
			}
			if !expired {
				t.Fatalf("logout did not expire the cookie; Set-Cookie: %q", resp.Header.Values("Set-Cookie"))
			}
			if c := h.sessionCookie(t, ana); c != nil {
				t.Fatal("the browser still holds a session cookie after logout")
			}
			thief := h.client(t)
			req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/", nil)
			thief.Jar.SetCookies(req.URL, []*http.Cookie{{Name: before.Name, Value: before.Value, Path: "/", Secure: true}})
			if resp := h.do(t, thief, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("a copy of the pre-logout cookie while the list is down: %d, want 401 (the Kit keeps the ended login)", resp.StatusCode)
			}
			h.list.down.Store(false)
			h.store.down.Store(false)
			if n, err := h.kit.FlushRevokes(context.Background()); err != nil || n != 0 {
				t.Fatalf("FlushRevokes once the stores are back: %d pending, %v", n, err)
			}
			if resp := h.do(t, ana, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("after logout, once the list is back: %d, want 401", resp.StatusCode)
			}
			// Another instance: its own Identity, the same list.
			other, _ := newIdentity(t)
			other.EndedLogins = h.list.EndedLogins
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.AddCookie(before)
			if v, err := other.Viewer(r); !errors.Is(err, middleware.ErrNoViewer) {
				t.Errorf("another instance reads the pre-logout cookie as %v, %v; want ErrNoViewer (the kept ended login was written)", v, err)
			}
			for step, n := range tt.want {
				if got := h.metrics.count(step); got != n {
					t.Errorf("incomplete logouts at step %q: %d, want %d", step, got, n)
				}
			}
			logs := h.logs.String()
			wantLogs := []string{`"step":"login"`, `"step":"embeds"`, errDown.Error()}
			embedkittest.AssertRevoked(t, h.p, "ana")
			for _, want := range wantLogs {
				if !strings.Contains(logs, want) {
					t.Errorf("the logs do not report %s:\n%s", want, logs)
				}
			}
			if strings.Contains(logs, before.Value) {
				t.Error("the logs hold the session cookie")
			}
		})
	}
}

// TestRevocationOutlivesResavedCookie: a cookie is signed again each time
// its session is saved, so the record of a logout must outlive a copy
// saved just before it, and a login older than MaxAge must still be
// recorded. MaxAge is 3 s; the clock of the identity and the list is
// moved by hand (securecookie's own check, on the real clock, accepts
// every copy, as it would accept a copy saved less than MaxAge ago).
func TestRevocationOutlivesResavedCookie(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := []struct {
		name          string
		touch, logout time.Duration // when the session is saved again; when it logs out
		replay        time.Duration // when the pre-logout copy comes back
	}{
		{name: "re-saved at 2.1 s, logged out, copy back at 3.6 s", touch: 2100 * time.Millisecond, logout: 2100 * time.Millisecond, replay: 3600 * time.Millisecond},
		{name: "re-saved at 2.9 s, logged out at 4 s, copy back at 5.5 s", touch: 2900 * time.Millisecond, logout: 4 * time.Second, replay: 5500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := testkit.NewClock(t0)
			id, store := newIdentity(t)
			store.MaxAge(3)
			id.Now = clock.Now
			list := gorillasession.NewMemoryEndedLogins(3 * time.Second)
			list.Now = clock.Now
			h := newHost(t, id, store, list)
			ana := h.client(t)
			h.do(t, ana, http.MethodPost, "/login?sub=ana")
			clock.Set(at(tt.touch))
			if resp := h.do(t, ana, http.MethodPost, "/touch"); resp.StatusCode != http.StatusOK {
				t.Fatalf("touch: %d", resp.StatusCode)
			}
			copyOf := *h.sessionCookie(t, ana)
			clock.Set(at(tt.logout))
			if resp := h.do(t, ana, http.MethodPost, "/logout"); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("logout: %d", resp.StatusCode)
			}
			clock.Set(at(tt.replay))
			thief := h.client(t)
			req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/", nil)
			thief.Jar.SetCookies(req.URL, []*http.Cookie{{Name: copyOf.Name, Value: copyOf.Value, Path: "/", Secure: true}})
			if resp := h.do(t, thief, http.MethodGet, "/me"); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("the copy saved before logout signs in again at %v", tt.replay)
			}
		})
	}
}

// TestMaxLifetime: Identity.MaxLifetime bounds a login however often its
// cookie is saved again.
func TestMaxLifetime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		maxLifetime time.Duration
		at          time.Duration
		want        int
	}{
		{"within the lifetime", 5 * time.Second, 4900 * time.Millisecond, http.StatusOK},
		{"at the lifetime", 5 * time.Second, 5 * time.Second, http.StatusUnauthorized},
		{"past the lifetime", 5 * time.Second, 6 * time.Second, http.StatusUnauthorized},
		{"no lifetime", gorillasession.NoMaxLifetime, time.Hour, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := testkit.NewClock(t0)
			id, store := newIdentity(t)
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
