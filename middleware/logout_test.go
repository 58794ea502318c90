package middleware

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// hostLogout is the host's own logout handler; it counts its runs.
type hostLogout struct{ runs atomic.Int32 }

func (h *hostLogout) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.runs.Add(1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// mintFor loads a frame n times for user and returns the ids minted.
func mintFor(t *testing.T, tk *testKit, user string, n int) []string {
	t.Helper()
	before := len(tk.platform.mintedIDs())
	for range n {
		if w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", user)); w.Code != http.StatusSeeOther {
			t.Fatalf("mint for %s: status %d", user, w.Code)
		}
	}
	return tk.platform.mintedIDs()[before:]
}

func TestLogoutRevokesOnlyThatHostSession(t *testing.T) {
	tk := newTestKit(t, nil)
	ana := mintFor(t, tk, "ana", 3)
	bob := mintFor(t, tk, "bob", 2)
	next := &hostLogout{}
	w := serve(tk.Logout(next), request(http.MethodPost, "/logout", "ana"))
	if w.Code != http.StatusSeeOther || next.runs.Load() != 1 {
		t.Fatalf("status %d, host logout ran %d times", w.Code, next.runs.Load())
	}
	revoked := tk.platform.revokedIDs()
	slices.Sort(revoked)
	slices.Sort(ana)
	if !slices.Equal(revoked, ana) {
		t.Errorf("revoked %d ids, want exactly ana's %d", len(revoked), len(ana))
	}
	for _, id := range bob {
		if slices.Contains(revoked, id) {
			t.Error("another user's session was revoked")
		}
	}
	if tk.store.count((&Viewer{SessionKey: "hs-ana"}).Key()) != 0 {
		t.Error("ana's ids are still in the store")
	}
}

func TestLogoutMethodAndOrigin(t *testing.T) {
	tk := newTestKit(t, nil)
	mintFor(t, tk, "ana", 1)
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"GET", func() *http.Request { return request(http.MethodGet, "/logout", "ana") }, 405},
		{"cross-site POST", func() *http.Request {
			r := request(http.MethodPost, "/logout", "ana")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			return r
		}, 403},
		{"foreign Origin", func() *http.Request {
			r := request(http.MethodPost, "http://host.example/logout", "ana")
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Set("Origin", "https://evil.example")
			return r
		}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &hostLogout{}
			w := serve(tk.Logout(next), tt.req())
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if tt.status == 405 && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q", w.Header().Get("Allow"))
			}
			if next.runs.Load() != 0 {
				t.Error("host logout ran for a refused request")
			}
		})
	}
	if n := len(tk.platform.revokedIDs()); n != 0 {
		t.Errorf("refused requests revoked %d sessions", n)
	}
}

func TestLogoutWithoutViewerStillRunsNext(t *testing.T) {
	tk := newTestKit(t, nil)
	next := &hostLogout{}
	serve(tk.Logout(next), request(http.MethodPost, "/logout", ""))
	r := request(http.MethodPost, "/logout", "ana")
	r.Header.Set("X-Broken", "1")
	serve(tk.Logout(next), r)
	if next.runs.Load() != 2 {
		t.Errorf("host logout ran %d times, want 2", next.runs.Load())
	}
}

func TestLogoutPlatformDownQueuesAndRetries(t *testing.T) {
	metrics := &countingMetrics{}
	tk := newTestKit(t, func(c *Config) { c.Metrics = metrics })
	ids := mintFor(t, tk, "ana", 3)
	tk.platform.setRevokeErr(&embedkit.APIError{StatusCode: 503})

	next := &hostLogout{}
	serve(tk.Logout(next), request(http.MethodPost, "/logout", "ana"))
	if next.runs.Load() != 1 {
		t.Fatal("host logout did not run while the platform was down")
	}
	if n, _ := tk.queue.Pending(context.Background()); n != 3 {
		t.Fatalf("%d revokes queued, want 3", n)
	}
	tk.now = tk.now.Add(DefaultRevokeBackoff.Ceiling(1)) // the queued revokes come due
	if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 3 {
		t.Fatalf("flush while down: pending %d err %v", pending, err)
	}

	tk.platform.setRevokeErr(nil)
	tk.now = tk.now.Add(DefaultRevokeBackoff.Ceiling(2))
	if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 0 {
		t.Fatalf("flush after recovery: pending %d err %v", pending, err)
	}
	revoked := tk.platform.revokedIDs()
	slices.Sort(revoked)
	slices.Sort(ids)
	if !slices.Equal(revoked, ids) {
		t.Errorf("revoked %d, want the 3 queued", len(revoked))
	}
	if metrics.depth.Load() != 0 || metrics.queued.Load() < 3 {
		t.Errorf("metrics: depth %d queued %d", metrics.depth.Load(), metrics.queued.Load())
	}
}

func TestQueuedRevokesExpire(t *testing.T) {
	tk := newTestKit(t, nil)
	mintFor(t, tk, "ana", 2)
	tk.platform.setRevokeErr(errors.New("connection refused"))
	if err := tk.RevokeSessionKey(context.Background(), "hs-ana"); err != nil {
		t.Fatal(err)
	}
	tk.now = tk.now.Add(embedkit.SessionLifetime + embedkit.EmbedTokenLifetime + time.Second)
	if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 0 {
		t.Fatalf("expired records still queued: pending %d err %v", pending, err)
	}
}

func TestRunRetriesInTheBackground(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Revoke.Backoff = embedkit.Backoff{Min: time.Millisecond, Max: time.Millisecond}
		c.Now = time.Now // Run's retries come due on the real clock
	})
	ids := mintFor(t, tk, "ana", 2)
	tk.platform.setRevokeErr(errors.New("connection refused"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tk.Run(ctx) }()
	if err := tk.RevokeSessionKey(context.Background(), "hs-ana"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	tk.platform.setRevokeErr(nil)
	deadline := time.Now().Add(5 * time.Second)
	for len(tk.platform.revokedIDs()) < len(ids) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if got := len(tk.platform.revokedIDs()); got != len(ids) {
		t.Errorf("background retrier revoked %d of %d", got, len(ids))
	}
}

func TestRevokeSubject(t *testing.T) {
	tk := newTestKit(t, nil)
	first := mintFor(t, tk, "ana", 2)
	r := request(http.MethodGet, "/embed/frame/sales", "ana")
	r.Header.Set("X-Session", "second-login")
	serve(tk.FrameHandler(), r)
	mintFor(t, tk, "bob", 1)
	if err := tk.RevokeSubject(context.Background(), "ana"); err != nil {
		t.Fatal(err)
	}
	if got := len(tk.platform.revokedIDs()); got != len(first)+1 {
		t.Errorf("revoked %d, want all %d of ana's across host sessions", got, len(first)+1)
	}

	plain := newTestKit(t, func(c *Config) { c.Store = plainStore{newMapStore()} })
	if err := plain.RevokeSubject(context.Background(), "ana"); !errors.Is(err, ErrNoSubjectIndex) {
		t.Errorf("err = %v, want ErrNoSubjectIndex", err)
	}
}

// TestRevokeSurvivesCancelledRequest: a logout whose request context is
// already cancelled (the browser went away) still revokes every id, each
// call under a context that is not cancelled (context.WithoutCancel). The
// fake platform ignores its context, so the test checks the context each
// revoke call saw as it began, not only what was revoked: a revoke under
// the request's cancellation fails against the real platform.
func TestRevokeSurvivesCancelledRequest(t *testing.T) {
	tk := newTestKit(t, nil)
	ids := mintFor(t, tk, "ana", 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the browser went away
	r := request(http.MethodPost, "/logout", "ana").WithContext(ctx)
	if err := tk.RevokeRequest(nil, r); err != nil {
		t.Fatal(err)
	}
	errs := tk.platform.revokeContextErrs()
	if len(errs) != len(ids) {
		t.Errorf("%d revoke calls reached the platform for %d ids with a cancelled request context", len(errs), len(ids))
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("revoke call %d ran under a cancelled context: %v", i, err)
		}
	}
	if got := len(tk.platform.revokedIDs()); got != len(ids) {
		t.Errorf("revoked %d of %d with a cancelled request context", got, len(ids))
	}
}

func TestRevokeStoreFailure(t *testing.T) {
	tk := newTestKit(t, nil)
	tk.store.takeErr = errors.New("redis down")
	next := &hostLogout{}
	serve(tk.Logout(next), request(http.MethodPost, "/logout", "ana"))
	if next.runs.Load() != 1 {
		t.Error("host logout did not run when the store failed")
	}
	if err := tk.RevokeSessionKey(context.Background(), "x"); !errors.Is(err, ErrStore) {
		t.Errorf("err = %v, want ErrStore", err)
	}
}

// TestRevokeWhatATakeReturnedWithAnError: a store whose Take removed the
// ids and then failed (redisstore reports a value it did not write that
// way) returns them with its error: the logout revokes them all the same,
// and says the store failed.
func TestRevokeWhatATakeReturnedWithAnError(t *testing.T) {
	tk := newTestKit(t, nil)
	ana := mintFor(t, tk, "ana", 2)
	tk.store.takeErr = errors.New("malformed record in redis (removed)")
	tk.store.takenWithErr = true
	err := tk.RevokeSessionKey(context.Background(), "hs-ana")
	if !errors.Is(err, ErrStore) {
		t.Errorf("err = %v, want ErrStore", err)
	}
	revoked := tk.platform.revokedIDs()
	slices.Sort(revoked)
	slices.Sort(ana)
	if !slices.Equal(revoked, ana) {
		t.Errorf("revoked %v, want the ids the failed Take returned, %v", revoked, ana)
	}
}

// TestRevokeSchedule: the Kit owns the retry schedule. A failed revoke is
// queued with its attempt count and a due time within Revoke.Backoff's
// ceiling for that attempt; a flush before then tries nothing; each
// further failure counts one more attempt and waits longer.
func TestRevokeSchedule(t *testing.T) {
	backoff := embedkit.Backoff{Min: 10 * time.Second, Max: 40 * time.Second}
	queue := NewMemoryQueue(nil)
	tk := newTestKit(t, func(c *Config) {
		c.Revoke.Backoff = backoff
		c.Store = queuedStore{SessionStore: c.Store, RevokeQueue: queue}
	})
	queue.now = func() time.Time { return tk.now }
	mintFor(t, tk, "ana", 1)
	tk.platform.setRevokeErr(errors.New("connection refused"))
	if err := tk.RevokeSessionKey(context.Background(), "hs-ana"); err != nil {
		t.Fatal(err)
	}
	for attempt := 1; attempt <= 4; attempt++ {
		it := queue.order[0].d
		if it.Attempts != attempt {
			t.Fatalf("attempts %d, want %d", it.Attempts, attempt)
		}
		if wait := it.Due.Sub(tk.now); wait < 0 || wait > backoff.Ceiling(attempt) {
			t.Fatalf("attempt %d due in %v, want within [0, %v]", attempt, wait, backoff.Ceiling(attempt))
		}
		before := tk.platform.revokeAttempts()
		if it.Due.After(tk.now) {
			if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 1 {
				t.Fatalf("flush before due: pending %d, %v", pending, err)
			}
			if tk.platform.revokeAttempts() != before {
				t.Fatalf("a revoke not yet due was tried")
			}
		}
		tk.now = it.Due
		if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 1 {
			t.Fatalf("flush when due: pending %d, %v", pending, err)
		}
		if tk.platform.revokeAttempts() != before+1 {
			t.Fatal("the due revoke was not tried exactly once")
		}
	}
	tk.platform.setRevokeErr(nil)
	tk.now = queue.order[0].d.Due
	if pending, err := tk.FlushRevokes(context.Background()); err != nil || pending != 0 {
		t.Fatalf("after recovery: pending %d, %v", pending, err)
	}
	if len(tk.platform.revokedIDs()) != 1 {
		t.Errorf("revoked %d ids, want 1", len(tk.platform.revokedIDs()))
	}
}

// queuedStore gives a store a RevokeQueue.
type queuedStore struct {
	SessionStore
	RevokeQueue
}

// countingMetrics counts what the kit reports.
type countingMetrics struct {
	mints, revokes, queued atomic.Int32
	depth                  atomic.Int32
}

func (m *countingMetrics) Mint(Outcome, time.Duration) { m.mints.Add(1) }
func (m *countingMetrics) Revoke(o Outcome, _ time.Duration) {
	m.revokes.Add(1)
	if o == OutcomeQueued {
		m.queued.Add(1)
	}
}
func (m *countingMetrics) RevokeQueueDepth(n int) { m.depth.Store(int32(n)) }

// TestRevokeSubjectNormalises: the platform takes "Alice" and "alice" as
// one externalId, so a back-channel logout for either spelling ends the
// sessions minted for both.
func TestRevokeSubjectNormalises(t *testing.T) {
	tk := newTestKit(t, nil)
	for _, who := range []struct{ user, session string }{{"Alice", "hs-1"}, {" alice ", "hs-2"}, {"bob", "hs-3"}} {
		r := request(http.MethodGet, "/embed/frame/sales", who.user)
		r.Header.Set("X-Session", who.session)
		if w := serve(tk.FrameHandler(), r); w.Code != http.StatusSeeOther {
			t.Fatalf("mint for %q: status %d", who.user, w.Code)
		}
	}
	if err := tk.RevokeSubject(context.Background(), "ALICE"); err != nil {
		t.Fatal(err)
	}
	minted := tk.platform.mintedIDs()
	revoked := tk.platform.revokedIDs()
	slices.Sort(revoked)
	want := slices.Sorted(slices.Values(minted[:2]))
	if !slices.Equal(revoked, want) {
		t.Errorf("revoked %v, want both of alice's sessions %v and none of bob's", revoked, want)
	}
}

// TestRevokeSubjectRefusesCaseFolding: lower-cased, "\u212Aate" (Kelvin
// sign) is "kate"; a back-channel logout naming it must not end kate's
// sessions.
func TestRevokeSubjectRefusesCaseFolding(t *testing.T) {
	tk := newTestKit(t, nil)
	r := request(http.MethodGet, "/embed/frame/sales", "kate")
	r.Header.Set("X-Session", "hs-1")
	if w := serve(tk.FrameHandler(), r); w.Code != http.StatusSeeOther {
		t.Fatalf("mint for kate: status %d", w.Code)
	}
	err := tk.RevokeSubject(context.Background(), "\u212Aate")
	if err == nil || !strings.Contains(err.Error(), "ExternalIDCaseSafe") {
		t.Errorf("RevokeSubject(Kelvin sign + ate) = %v, want a refusal naming ExternalIDCaseSafe", err)
	}
	if revoked := tk.platform.revokedIDs(); len(revoked) != 0 {
		t.Errorf("kate's sessions %v were revoked for another subject", revoked)
	}
}

// TestRevokeProviderSession: a back-channel logout that names only the
// provider's sid revokes the embed sessions of every login made in that
// provider session (each kept under the login's own key), and no other.
func TestRevokeProviderSession(t *testing.T) {
	mintIn := func(tk *testKit, user, key, sid string) {
		r := request(http.MethodGet, "/embed/frame/sales", user)
		r.Header.Set("X-Session", key)
		if sid != "" {
			r.Header.Set("X-SID", sid)
		}
		if w := serve(tk.FrameHandler(), r); w.Code != http.StatusSeeOther {
			t.Fatalf("mint for %s: %d", key, w.Code)
		}
	}
	tk := newTestKit(t, nil)
	mintIn(tk, "ana", "login-1", "sid-ana")
	mintIn(tk, "ana", "login-1", "sid-ana")
	mintIn(tk, "ana", "login-2", "sid-ana") // signed out locally, signed in again: same sid
	mintIn(tk, "ana", "login-3", "sid-other")
	mintIn(tk, "bob", "login-4", "")
	if err := tk.RevokeProviderSession(context.Background(), "sid-ana"); err != nil {
		t.Fatal(err)
	}
	if got := len(tk.platform.revokedIDs()); got != 3 {
		t.Errorf("revoked %d, want the 3 minted in provider session sid-ana", got)
	}
	// The logins' own copies stay until their logout, which revokes
	// them again (the platform answers 204 for a revoked id); a subject
	// logout finds each id under its login and its provider session, and
	// revokes it once: ana's four.
	if err := tk.RevokeSubject(context.Background(), "ana"); err != nil {
		t.Fatal(err)
	}
	if got := len(tk.platform.revokedIDs()); got != 3+4 {
		t.Errorf("after RevokeSubject: %d revokes in all, want 3+4 (each of ana's ids once more)", got)
	}
	if err := tk.RevokeProviderSession(context.Background(), ""); err == nil {
		t.Error("an empty sid was accepted")
	}

	cookie := newTestKit(t, func(c *Config) { c.Store = cookieStore{plainStore{newMapStore()}} })
	mintIn(cookie, "ana", "login-1", "sid-ana")
	if err := cookie.RevokeProviderSession(context.Background(), "sid-ana"); !errors.Is(err, ErrRequestScopedStore) {
		t.Errorf("with a RequestScoped store: err = %v, want ErrRequestScopedStore", err)
	}
}
