package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/internal/testkit"
)

// fakePlatform is a Platform in memory. Session ids have the platform's
// shape, 32 hex characters, with a fixed tail so that a leak into a log or
// body is easy to spot.
type fakePlatform struct {
	mu          sync.Mutex
	n           int
	requests    []*embedkit.GenerateSessionRequest
	revoked     []string
	generateErr error
	badIDs      bool // answer session ids that revoke refuses
	revokeErr   error
	attempts    int // revoke calls, failed or not
	minted      []string
	ctxs        []context.Context // of every call, in order
	// revokeCtxErrs is ctx.Err() of each RevokeSession call as it began
	// (a context recorded in ctxs may be cancelled later, when its call
	// is over).
	revokeCtxErrs []error
}

func (p *fakePlatform) GenerateSession(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctxs = append(p.ctxs, ctx)
	p.requests = append(p.requests, req)
	if p.generateErr != nil {
		return nil, p.generateErr
	}
	p.n++
	id := fmt.Sprintf("5e55%04xc0ffee0ddba11f00dcafe1a7", p.n)
	if p.badIDs {
		id = fmt.Sprintf("not-a-hex-id-%d", p.n)
	}
	p.minted = append(p.minted, id)
	return &embedkit.Session{SessionID: id, ExpiresAt: time.Date(2030, 1, 1, 0, 5, 0, 0, time.UTC)}, nil
}

func (p *fakePlatform) RevokeSession(ctx context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctxs = append(p.ctxs, ctx)
	p.revokeCtxErrs = append(p.revokeCtxErrs, ctx.Err())
	p.attempts++
	if p.revokeErr != nil {
		return p.revokeErr
	}
	p.revoked = append(p.revoked, id)
	return nil
}

func (p *fakePlatform) setRevokeErr(err error) {
	p.mu.Lock()
	p.revokeErr = err
	p.mu.Unlock()
}

func (p *fakePlatform) revokedIDs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.revoked...)
}

// revokeContextErrs returns ctx.Err() of each RevokeSession call as it
// began, in order.
func (p *fakePlatform) revokeContextErrs() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.revokeCtxErrs)
}

func (p *fakePlatform) revokeAttempts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.attempts
}

func (p *fakePlatform) mintedIDs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.minted...)
}

func (p *fakePlatform) lastRequest() *embedkit.GenerateSessionRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.requests) == 0 {
		return nil
	}
	return p.requests[len(p.requests)-1]
}

// mapStore is the simplest SessionStore: a mutex and a map. It also
// implements SubjectIndex.
type mapStore struct {
	mu      sync.Mutex
	byKey   map[string][]Minted
	addErr  error
	takeErr error
	// takenWithErr makes Take remove and return the records with takeErr,
	// as a store that removed them and then failed does.
	takenWithErr bool
}

func newMapStore() *mapStore { return &mapStore{byKey: map[string][]Minted{}} }

func (s *mapStore) Add(_ context.Context, key string, m Minted) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addErr != nil {
		return s.addErr
	}
	s.byKey[key] = append(s.byKey[key], m)
	return nil
}

func (s *mapStore) Take(_ context.Context, key string) ([]Minted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.takeErr != nil && !s.takenWithErr {
		return nil, s.takeErr
	}
	ms := s.byKey[key]
	delete(s.byKey, key)
	return ms, s.takeErr
}

func (s *mapStore) TakeSubject(_ context.Context, subject string) ([]Minted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Minted
	for k, ms := range s.byKey {
		var keep []Minted
		for _, m := range ms {
			if m.Subject == subject {
				out = append(out, m)
			} else {
				keep = append(keep, m)
			}
		}
		if len(keep) == 0 {
			delete(s.byKey, k)
		} else {
			s.byKey[k] = keep
		}
	}
	return out, nil
}

func (s *mapStore) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byKey[key])
}

// plainStore hides mapStore's optional capabilities.
type plainStore struct{ s *mapStore }

func (p plainStore) Add(ctx context.Context, key string, m Minted) error { return p.s.Add(ctx, key, m) }
func (p plainStore) Take(ctx context.Context, key string) ([]Minted, error) {
	return p.s.Take(ctx, key)
}

type syncBuffer = testkit.SyncBuffer

// headerIdentity reads the viewer from test headers: X-User is the
// subject, X-Session the host session, X-SID the provider session,
// X-Groups a comma list. X-Broken
// makes it fail as a claim-mapping error would.
var headerIdentity = IdentityFunc(func(r *http.Request) (*Viewer, error) {
	if r.Header.Get("X-Broken") != "" {
		return nil, errors.New(`claim "groups" is a number, want a list of strings`)
	}
	sub := r.Header.Get("X-User")
	if sub == "" {
		return nil, ErrNoViewer
	}
	v := &Viewer{
		Subject:     sub,
		SessionKey:  r.Header.Get("X-Session"),
		ProviderSID: r.Header.Get("X-SID"),
		Locale:      r.Header.Get("X-Locale"),
		TimeZone:    r.Header.Get("X-TZ"),
		Tenant:      r.Header.Get("X-Tenant"),
	}
	if g := r.Header.Get("X-Groups"); g != "" {
		v.Groups = strings.Split(g, ",")
	}
	return v, nil
})

// testKit is a Kit over a fake platform and a map store, with captured
// logs.
type testKit struct {
	*Kit
	platform *fakePlatform
	store    *mapStore
	logs     *syncBuffer
	now      time.Time
}

var testNow = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func newTestKit(t *testing.T, mod func(*Config)) *testKit {
	t.Helper()
	tk := &testKit{platform: &fakePlatform{}, store: newMapStore(), logs: &syncBuffer{}, now: testNow}
	cfg := Config{
		Platform:    tk.platform,
		Identity:    headerIdentity,
		Store:       tk.store,
		Policy:      Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com",
		Targets: map[string]Target{
			"sales": {Kind: KindDashboard, PublicID: "dash-sales", Chrome: Chrome{AllowExport: true, HideDashboardHeader: true}},
			"app":   {Kind: KindApp},
			"chat":  {Kind: KindChat},
		},
		Logger: slog.New(slog.NewJSONHandler(tk.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return tk.now },
	}
	if mod != nil {
		mod(&cfg)
	}
	k, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	tk.Kit = k
	t.Cleanup(func() { tk.assertNoSecrets(t) })
	return tk
}

// assertNoSecrets fails when a minted session id appears in the logs.
func (tk *testKit) assertNoSecrets(t *testing.T) {
	t.Helper()
	logs := tk.logs.String()
	if strings.Contains(logs, `"hs-`) || strings.Contains(logs, "s:hs-") {
		t.Errorf("a host session key appears in the logs:\n%s", logs)
	}
	for _, id := range tk.platform.mintedIDs() {
		if strings.Contains(logs, id) {
			t.Errorf("session id %s appears in the logs:\n%s", embedkit.Redact(id), logs)
		}
	}
}

// frameLocation returns the platform URL a frame endpoint's answer w sends
// the iframe to; the test fails unless w is a 303.
func frameLocation(t *testing.T, w *httptest.ResponseRecorder) *url.URL {
	t.Helper()
	if w.Code != http.StatusSeeOther {
		t.Fatalf("status %d, body %q", w.Code, w.Body)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// request builds a same-origin browser request for viewer user.
func request(method, target, user string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	if user != "" {
		r.Header.Set("X-User", user)
		r.Header.Set("X-Session", "hs-"+user)
	}
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	return r
}

// serve runs h for r and returns the recorded response.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
