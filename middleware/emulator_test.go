package middleware

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// emulatorAPIKey is the demo fixture's unscoped admin key.
const emulatorAPIKey = "ek_dev_only_admin_all"

// platformEnv is a Kit wired to the real client and the emulator.
type platformEnv struct {
	*Kit
	srv    *httptest.Server
	client *embedkit.Client
	logs   *syncBuffer
}

func setupEmulator(t *testing.T) *platformEnv {
	t.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(em)
	t.Cleanup(srv.Close)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client, err := embedkit.New(srv.URL, emulatorAPIKey,
		embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}),
		embedkit.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	k, err := New(Config{
		Platform:    client,
		Identity:    headerIdentity,
		Store:       newMapStore(),
		PlatformURL: srv.URL,
		Policy: Policy{
			DeploymentID: 1,
			Groups:       GroupOptions{Allowed: []string{"sales", "emea", "amer", "apac", "analysts"}},
			Attributes:   AttributeOptions{Allowed: []string{"region"}},
		},
		Targets: map[string]Target{
			"sales": {Kind: KindDashboard, PublicID: "sales-overview"},
			// regional shows the page switches at work (TestEmulatorPageHonoursChrome).
			"regional": {Kind: KindDashboard, PublicID: "regional-performance",
				Chrome: Chrome{AllowExport: true, HideDashboardTitle: true, HideDashboardEditButton: true}},
		},
		// Queued revokes come due within a millisecond.
		Revoke: RevokeOptions{Backoff: embedkit.Backoff{Min: time.Millisecond, Max: time.Millisecond}},
		Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	env := &platformEnv{Kit: k, srv: srv, client: client, logs: logs}
	t.Cleanup(func() {
		logs := logs.String()
		for _, s := range env.sessions(t) {
			if strings.Contains(logs, s.SessionID) {
				t.Errorf("session id %s appears in the logs", embedkit.Redact(s.SessionID))
			}
		}
		if strings.Contains(logs, emulatorAPIKey) {
			t.Error("the API key appears in the logs")
		}
	})
	return env
}

// emuSession is an item of GET /_emulator/sessions.
type emuSession struct {
	SessionID  string `json:"sessionId"`
	State      string `json:"state"`
	ExternalID string `json:"externalId"`
}

// sessions lists the emulator's sessions through its control API.
func (e *platformEnv) sessions(t *testing.T) []emuSession {
	t.Helper()
	resp, err := http.Get(e.srv.URL + "/_emulator/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Sessions []emuSession `json:"sessions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Sessions
}

// states maps session id to state.
func (e *platformEnv) states(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range e.sessions(t) {
		out[s.SessionID] = s.State
	}
	return out
}

// control sends a request to the emulator's control API.
func (e *platformEnv) control(t *testing.T, method, path, body string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
	}
}

// load opens the frame endpoint as user's host session and returns the
// session id of the platform URL it redirects to, after checking that
// the platform page loads and the id exchanges for a token.
func (e *platformEnv) load(t *testing.T, user, hostSession string) string {
	t.Helper()
	r := request(http.MethodGet, "/embed/frame/dashboard/sales-overview", user)
	r.Header.Set("X-Session", hostSession)
	r.Header.Set("X-Groups", "sales,emea,not-on-the-platform")
	w := serve(e.FrameHandler(), r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("frame load: status %d body %q", w.Code, w.Body)
	}
	loc, err := url.Parse(w.Header().Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), e.srv.URL+"/embed/dashboard/sales-overview?") {
		t.Fatalf("redirect is not to the platform dashboard page")
	}
	page, err := http.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("platform page: status %d", page.StatusCode)
	}
	id := loc.Query().Get("session")
	if _, err := e.client.ExchangeSession(context.Background(), id); err != nil {
		t.Fatalf("the minted session does not work: %v", err)
	}
	return id
}

func TestEmulatorTabsAndReloadEachWork(t *testing.T) {
	e := setupEmulator(t)
	ids := map[string]bool{}
	for range 3 { // first tab, second tab, reload
		id := e.load(t, "ana", "login-1")
		if ids[id] {
			t.Fatal("a load reused a session id")
		}
		ids[id] = true
	}
	states := e.states(t)
	for id := range ids {
		if states[id] != "exchanged" {
			t.Errorf("session %s is %q, want exchanged", embedkit.Redact(id), states[id])
		}
	}
}

func TestEmulatorLogoutRevokesOnlyThatHostSession(t *testing.T) {
	e := setupEmulator(t)
	ana := []string{e.load(t, "ana", "login-1"), e.load(t, "ana", "login-1")}
	anaOther := e.load(t, "ana", "login-2") // the same user in another browser
	bob := e.load(t, "bob", "login-3")

	next := &hostLogout{}
	r := request(http.MethodPost, "/logout", "ana")
	r.Header.Set("X-Session", "login-1")
	if w := serve(e.Logout(next), r); w.Code != http.StatusSeeOther || next.runs.Load() != 1 {
		t.Fatalf("logout: status %d, host logout ran %d times", w.Code, next.runs.Load())
	}
	states := e.states(t)
	for _, id := range ana {
		if states[id] != "revoked" {
			t.Errorf("logged-out session is %q, want revoked", states[id])
		}
	}
	for _, id := range []string{anaOther, bob} {
		if states[id] != "exchanged" {
			t.Errorf("a session of another host session is %q, want exchanged", states[id])
		}
	}
}

func TestEmulatorLogoutWhilePlatformDown(t *testing.T) {
	e := setupEmulator(t)
	ids := []string{e.load(t, "ana", "login-1"), e.load(t, "ana", "login-1")}
	e.control(t, http.MethodPost, "/_emulator/faults",
		`{"faults":[{"method":"POST","path":"/api/v1/embed/session/revoke","status":503}]}`)

	next := &hostLogout{}
	r := request(http.MethodPost, "/logout", "ana")
	r.Header.Set("X-Session", "login-1")
	serve(e.Logout(next), r)
	if next.runs.Load() != 1 {
		t.Fatal("the host's logout did not run while the platform was down")
	}
	if pending, _ := e.FlushRevokes(context.Background()); pending != 2 {
		t.Fatalf("%d revokes pending while down, want 2", pending)
	}
	for _, id := range ids {
		if st := e.states(t)[id]; st != "exchanged" {
			t.Fatalf("session is %q while revokes fail", st)
		}
	}

	e.control(t, http.MethodDelete, "/_emulator/faults", "")
	time.Sleep(2 * time.Millisecond) // the queued revokes come due
	if pending, err := e.FlushRevokes(context.Background()); err != nil || pending != 0 {
		t.Fatalf("after recovery: pending %d, err %v", pending, err)
	}
	states := e.states(t)
	for _, id := range ids {
		if states[id] != "revoked" {
			t.Errorf("queued revoke did not land: %q", states[id])
		}
	}
}

func TestEmulatorMintFailureAnswers(t *testing.T) {
	e := setupEmulator(t)
	e.control(t, http.MethodPost, "/_emulator/faults",
		`{"faults":[{"method":"POST","path":"/api/v1/embed/generate-session","status":503,"retryAfter":"12","times":1}]}`)
	w := serve(e.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana"))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "12" {
		t.Fatalf("status %d Retry-After %q, want 503 12", w.Code, w.Header().Get("Retry-After"))
	}
	if strings.Contains(w.Body.String(), emulatorAPIKey) || strings.Contains(w.Body.String(), "embedkit:") {
		t.Errorf("error page shows internals: %q", w.Body)
	}
	if n := len(e.sessions(t)); n != 0 {
		t.Errorf("%d sessions exist after a failed mint", n)
	}
}

func TestEmulatorSessionHandlerRenewal(t *testing.T) {
	e := setupEmulator(t)
	r := httptest.NewRequest(http.MethodPost, "/embed/session", strings.NewReader(`{"target":"sales"}`))
	r.Header.Set("X-User", "ana")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := serve(e.SessionHandler(), r)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d body %q", w.Code, w.Body)
	}
	var got struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.ExchangeSession(context.Background(), got.SessionID); err != nil {
		t.Fatalf("renewed session does not work: %v", err)
	}
}

// TestInvalidPolicyRefusedBeforeTheWire: a request the policy got wrong
// is refused before a byte reaches the platform, as a misconfiguration
// (500) with the invalid outcome, by the kit itself: the same with the
// real client and with a fake Platform that validates nothing, so that
// tests with a fake take the production path.
func TestInvalidPolicyRefusedBeforeTheWire(t *testing.T) {
	e := setupEmulator(t)
	// The count sees a valid load's call.
	before := e.generateCalls(t)
	e.load(t, "ana", "login-1")
	if got := e.generateCalls(t); got != before+1 {
		t.Fatalf("a valid load made %d generate-session calls, want 1", got-before)
	}
	for name, edit := range map[string]func(*embedkit.GenerateSessionRequest){
		"tenant name":         func(r *embedkit.GenerateSessionRequest) { r.EmbedTenantName = "Not A Tenant" },
		"unencodable context": func(r *embedkit.GenerateSessionRequest) { r.SecurityContext = map[string]any{"f": func() {}} },
		"internal and external id": func(r *embedkit.GenerateSessionRequest) {
			r.InternalID = "admin"
		},
	} {
		for _, fake := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fake platform %v", name, fake), func(t *testing.T) {
				cfg := e.Kit.cfg
				metrics := &countingMetrics{}
				cfg.Metrics = metrics
				cfg.Policy.Customize = func(_ *http.Request, _ *Viewer, _ Target, req *embedkit.GenerateSessionRequest) error {
					edit(req)
					return nil
				}
				fp := &fakePlatform{}
				if fake {
					cfg.Platform = fp
				}
				var failure error
				cfg.ErrorHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					failure = FailureReason(r)
					w.WriteHeader(http.StatusInternalServerError)
				})
				k, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				before := e.generateCalls(t)
				w := serve(k.FrameHandler(), request(http.MethodGet, "/embed/frame/dashboard/sales-overview", "ana"))
				if w.Code != http.StatusInternalServerError {
					t.Fatalf("status %d, want 500", w.Code)
				}
				if got, n := e.generateCalls(t), len(fp.requests); got != before || n != 0 {
					t.Errorf("%d generate-session calls reached the emulator, %d the fake platform", got-before, n)
				}
				if metrics.mints.Load() != 1 {
					t.Errorf("%d mints reported, want 1", metrics.mints.Load())
				}
				if o := OutcomeOf(failure); o != OutcomeInvalid {
					t.Errorf("OutcomeOf(the failure) = %q, want %q", o, OutcomeInvalid)
				}
			})
		}
	}
}

// generateCalls counts the generate-session requests the emulator saw.
func (e *platformEnv) generateCalls(t *testing.T) int {
	t.Helper()
	res, err := http.Get(e.srv.URL + "/_emulator/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var log struct {
		Requests []struct{ Method, Path string } `json:"requests"`
	}
	if err := json.NewDecoder(res.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range log.Requests {
		if r.Path == "/api/v1/embed/generate-session" {
			n++
		}
	}
	return n
}

// TestEmulatorPageHonoursChrome follows a frame load of a target with
// Chrome switches to the emulator's page and checks that the page is
// rendered with what they hide hidden and what they grant shown, so a
// Target.Chrome shows in development as it would on the platform.
func TestEmulatorPageHonoursChrome(t *testing.T) {
	e := setupEmulator(t)
	r := request(http.MethodGet, "/embed/frame/dashboard/regional-performance", "ana")
	r.Header.Set("X-Session", "login-1")
	r.Header.Set("X-Groups", "sales,emea")
	w := serve(e.FrameHandler(), r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("frame load: status %d body %q", w.Code, w.Body)
	}
	res, err := http.Get(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	tag := func(id string) string {
		i := strings.Index(page, `id="`+id+`"`)
		if i < 0 {
			t.Fatalf("the platform page has no #%s", id)
		}
		start := strings.LastIndex(page[:i], "<")
		return page[start : i+strings.Index(page[i:], ">")+1]
	}
	tests := []struct {
		id     string
		hidden bool
	}{
		{"dashboard-title", true},
		{"edit-button", true},
		{"duplicate-button", false},
		{"back-button", false},
		{"embed-header", false},
		{"export-menu", false},
		{"download-csv", false},
	}
	for _, tt := range tests {
		got := regexp.MustCompile(`\shidden[\s>]`).MatchString(tag(tt.id))
		if got != tt.hidden {
			t.Errorf("#%s hidden = %v, want %v: %s", tt.id, got, tt.hidden, tag(tt.id))
		}
	}
}
