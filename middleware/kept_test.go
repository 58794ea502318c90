package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var errOutage = errors.New("redis: i/o timeout")

// outageLog records the store calls of a test, in order.
type outageLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *outageLog) add(call string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, call)
}

func (l *outageLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// outageStore is a SessionStore and RevokeQueue, like the Redis store,
// that can be down and logs its Take and Pending calls.
type outageStore struct {
	*mapStore
	q    *MemoryQueue
	log  *outageLog
	mu   sync.Mutex
	down bool
}

func (s *outageStore) setDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

func (s *outageStore) isDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

func (s *outageStore) Take(ctx context.Context, key string) ([]Minted, error) {
	s.log.add("Take " + key)
	if s.isDown() {
		return nil, errOutage
	}
	return s.mapStore.Take(ctx, key)
}

func (s *outageStore) Defer(ctx context.Context, ds []Deferred) error {
	if s.isDown() {
		return errOutage
	}
	return s.q.Defer(ctx, ds)
}

func (s *outageStore) Due(ctx context.Context, n int) ([]Deferred, error) {
	if s.isDown() {
		return nil, errOutage
	}
	return s.q.Due(ctx, n)
}

func (s *outageStore) Pending(ctx context.Context) (int, error) {
	s.log.add("Pending")
	if s.isDown() {
		return 0, errOutage
	}
	return s.q.Pending(ctx)
}

// outageList is an EndedLogins that can be down and logs its EndLogin
// calls.
type outageList struct {
	EndedLogins // nil: methods the test does not call
	log         *outageLog
	mu          sync.Mutex
	down        bool
	keys        map[string]time.Time
}

func (l *outageList) setDown(down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = down
}

func (l *outageList) EndLogin(_ context.Context, key string, until time.Time) error {
	l.log.add("EndLogin " + key)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return errOutage
	}
	if l.keys == nil {
		l.keys = map[string]time.Time{}
	}
	l.keys[key] = until
	return nil
}

func (l *outageList) EndLoginsOf(context.Context, string) error { return nil }

func (l *outageList) LoginEnded(_ context.Context, login Login) (bool, error) {
	key := login.Key
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.keys[key]
	return ok, nil
}

func (l *outageList) until(key string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys[key]
}

// TestKeptLogouts: what a logout could not record while the stores were
// down is kept, and FlushRevokes (a pass of Run) records it once they
// answer: ended logins first, then the ids of the host session, taken and
// revoked. No Take is sent in a pass where the store did not answer a read
// (a Take sent to a Redis that hangs runs after the kit gave up on it, and
// its ids would be lost).
func TestKeptLogouts(t *testing.T) {
	log := &outageLog{}
	var store *outageStore
	tk := newTestKit(t, func(c *Config) {
		store = &outageStore{mapStore: newMapStore(), q: NewMemoryQueue(func() time.Time { return testNow }), log: log}
		c.Store = store
	})
	list := &outageList{log: log}
	m := Minted{SessionID: "0123456789abcdef0123456789abcdef", Subject: "ana", ExpiresAt: testNow.Add(time.Hour)}
	if err := store.Add(context.Background(), "s:login-1", m); err != nil {
		t.Fatal(err)
	}

	store.setDown(true)
	list.setDown(true)
	if err := tk.RevokeSessionKey(context.Background(), "login-1"); !errors.Is(err, ErrStore) || !errors.Is(err, errOutage) {
		t.Fatalf("RevokeSessionKey with the store down: %v, want ErrStore wrapping the store's error", err)
	}
	until := testNow.Add(time.Hour)
	if !tk.KeepEndedLogin(list, "login-1", until) {
		t.Fatal("KeepEndedLogin refused a live login")
	}
	if !tk.KeepEndedLogin(list, "login-1", until.Add(time.Minute)) {
		t.Fatal("KeepEndedLogin refused a later end of a kept login")
	}
	if !tk.EndedLoginKept("login-1") || tk.EndedLoginKept("login-2") {
		t.Fatal("EndedLoginKept does not report exactly the kept login")
	}

	// The list answers, the store does not: the ended login is written,
	// no Take is sent.
	list.setDown(false)
	before := len(log.list())
	if n, err := tk.FlushRevokes(context.Background()); err == nil || n != 1 {
		t.Fatalf("FlushRevokes with the store down: %d pending, %v; want 1 (the kept ids) and an error", n, err)
	}
	if got := log.list()[before:]; slices.ContainsFunc(got, func(c string) bool { return c == "Take s:login-1" }) {
		t.Errorf("a Take was sent in a pass where the store did not answer: %q", got)
	}
	if tk.EndedLoginKept("login-1") {
		t.Error("the ended login is still kept after its list answered")
	}
	if got := list.until("login-1"); !got.Equal(until.Add(time.Minute)) {
		t.Errorf("the ended login was written until %v, want the later %v", got, until.Add(time.Minute))
	}

	// Both answer: the ids are taken and revoked.
	store.setDown(false)
	if !tk.KeepEndedLogin(list, "login-3", until) {
		t.Fatal("KeepEndedLogin refused a live login")
	}
	before = len(log.list())
	if n, err := tk.FlushRevokes(context.Background()); err != nil || n != 0 {
		t.Fatalf("FlushRevokes with the stores back: %d pending, %v", n, err)
	}
	got := log.list()[before:]
	end, take := slices.Index(got, "EndLogin login-3"), slices.Index(got, "Take s:login-1")
	if end < 0 || take < 0 || end > take {
		t.Errorf("calls %q: want the kept ended login written before the kept ids are taken", got)
	}
	if revoked := tk.platform.revokedIDs(); !slices.Contains(revoked, m.SessionID) {
		t.Errorf("revoked %d ids, not the kept logout's", len(revoked))
	}
}

// TestKeepEndedLoginRefuses: what KeepEndedLogin does not keep.
func TestKeepEndedLoginRefuses(t *testing.T) {
	tk := newTestKit(t, nil)
	list := &outageList{log: &outageLog{}}
	tests := []struct {
		name  string
		list  EndedLogins
		key   string
		until time.Time
	}{
		{"no list", nil, "login-1", testNow.Add(time.Hour)},
		{"empty key", list, "", testNow.Add(time.Hour)},
		{"until passed", list, "login-1", testNow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tk.KeepEndedLogin(tt.list, tt.key, tt.until) || tk.EndedLoginKept(tt.key) {
				t.Error("kept")
			}
		})
	}
}

// TestErrorStatusOfAnUncheckedLogin: a login the Identity could not check
// (its list of ended logins does not answer) is an outage, 503 with
// Retry-After, as handed to ServeError by a host and as the kit's own
// handlers wrap it; not 500 with "sign out and in again".
func TestErrorStatusOfAnUncheckedLogin(t *testing.T) {
	uv := &UnverifiedViewerError{Viewer: &Viewer{Subject: "ana"}, Err: errOutage}
	tests := []struct {
		name string
		err  error
	}{
		{"as the Identity returns it", uv},
		{"as the kit's handlers wrap it", fmt.Errorf("%w: %w", ErrStore, uv)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, retryAfter := ErrorStatus(tt.err)
			if status != http.StatusServiceUnavailable || retryAfter <= 0 {
				t.Errorf("ErrorStatus = %d, %s; want 503 with a Retry-After", status, retryAfter)
			}
			if msg := publicMessageFor(tt.err, status); strings.Contains(msg, "sign out") {
				t.Errorf("the viewer is told %q", msg)
			}
		})
	}
}

// TestRevokeRequestOfAnUncheckedLoginSaysWhatFailed: a revoke whose
// viewer's login could not be checked (the Identity's list of ended
// logins did not answer) says so, and names the store outage once, not
// as if the ids could not be taken from the SessionStore.
func TestRevokeRequestOfAnUncheckedLoginSaysWhatFailed(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Identity = IdentityFunc(func(r *http.Request) (*Viewer, error) {
			return nil, &UnverifiedViewerError{Viewer: &Viewer{Subject: "ana", SessionKey: "hs-1"}, Err: fmt.Errorf("list: %w", errOutage)}
		})
	})
	err := tk.RevokeRequest(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/logout", nil))
	if !errors.Is(err, ErrStore) || !errors.Is(err, errOutage) || !errors.As(err, new(*UnverifiedViewerError)) {
		t.Fatalf("RevokeRequest = %v; want ErrStore wrapping the UnverifiedViewerError and its cause", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "the login could not be checked") || strings.Contains(msg, "ids could not be taken") {
		t.Errorf("RevokeRequest = %q; want it to say the login could not be checked", msg)
	}
	if n := strings.Count(msg, ErrStore.Error()); n != 1 {
		t.Errorf("RevokeRequest = %q names the store outage %d times, want once", msg, n)
	}
}
