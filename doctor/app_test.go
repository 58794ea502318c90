package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// userApp is the Config of a small host app that is not the demo: one
// target, two groups, Policy.Attributes.Allowed nil and Origins.Host unset.
func userApp(p *embedkittest.Platform) Config {
	kc := p.KitConfig()
	kc.Policy.Groups.Allowed = []string{"sales", "emea"}
	kc.Targets = map[string]middleware.Target{
		"revenue": {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
	}
	return Config{Name: "ledger", Kit: kc}
}

// checkUserAppReport checks that rep is the report of userApp: it names
// ledger's target, groups and origin, and catches its two
// misconfigurations (attributes not allow-listed, no configured origin),
// with fixes that name no variable of the demo.
func checkUserAppReport(t *testing.T, rep *Report) {
	t.Helper()
	want := Summary{
		Name:          "ledger",
		Targets:       []TargetSummary{{Name: "revenue", Kind: "dashboard", PublicID: "sales-overview"}},
		AllowedGroups: []string{"emea", "sales"},
	}
	got := rep.Config
	if got.Name != want.Name || !slices.Equal(got.Targets, want.Targets) || !slices.Equal(got.AllowedGroups, want.AllowedGroups) ||
		got.AllowedAttributes != nil || got.HostOrigin != "" {
		t.Errorf("report names the configuration %+v, want %+v", got, want)
	}
	for id, status := range map[string]Status{"attributes": Warning, "host-origin": Warning, "groups": OK, "dashboard": OK, "config": OK} {
		if c, ok := rep.Find(id, ""); !ok || c.Status != status {
			t.Errorf("%s check %+v, want %s", id, c, status)
		}
	}
	if rep.Failed() {
		t.Error("Failed() for warnings only")
	}
	for _, c := range rep.Checks {
		if strings.Contains(c.Fix, "EMBEDKIT_") {
			t.Errorf("%s fix names a variable of the demo: %s", c.ID, c.Fix)
		}
	}
}

// TestExitIfRequested runs the doctor the way an app's main does, through
// the environment, on the app's own Config.
func TestExitIfRequested(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	cfg := userApp(p)
	env := func(vals map[string]string) func(string) string { return func(k string) string { return vals[k] } }

	if _, ran := runRequested(context.Background(), cfg, env(nil), &bytes.Buffer{}, &bytes.Buffer{}); ran {
		t.Fatal("the doctor ran without EMBEDKIT_DOCTOR")
	}

	var out, errOut bytes.Buffer
	code, ran := runRequested(context.Background(), cfg, env(map[string]string{EnvDoctor: "json"}), &out, &errOut)
	if !ran || code != 0 {
		t.Fatalf("ran %v, exit status %d, want 0; stderr %s", ran, code, errOut.String())
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, out.String())
	}
	checkUserAppReport(t, &rep)

	out.Reset()
	if code, _ := runRequested(context.Background(), cfg, env(map[string]string{EnvDoctor: "1"}), &out, &errOut); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, s := range []string{
		"configuration checked: ledger",
		"targets:     revenue (dashboard sales-overview)",
		"groups:      emea, sales (Policy.Groups.Allowed)",
		"attributes:  any attribute (Policy.Attributes.Allowed is nil)",
		"host origin: derived from each request (Origins.Host is unset)",
		"warning  attributes",
		"warning  host-origin",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, out.String())
		}
	}
	embedkittest.CheckText(t, p, "text report", out.String())

	broken := cfg
	broken.Kit.Targets = map[string]middleware.Target{"revenue": {Kind: middleware.KindDashboard, PublicID: "no-such-board"}}
	if code, _ := runRequested(context.Background(), broken, env(map[string]string{EnvDoctor: "text"}), &bytes.Buffer{}, &bytes.Buffer{}); code != 1 {
		t.Errorf("a failed check: exit status %d, want 1", code)
	}
	errOut.Reset()
	if code, _ := runRequested(context.Background(), cfg, env(map[string]string{EnvDoctor: "yes please"}), &bytes.Buffer{}, &errOut); code != 2 || !strings.Contains(errOut.String(), EnvDoctor) {
		t.Errorf("a bad %s: exit status %d, stderr %q", EnvDoctor, code, errOut.String())
	}
	embedkittest.AssertRevoked(t, p, DefaultProbeExternalID)
}

// TestExitIfRequestedHostCookie: ExitIfRequested sends
// EMBEDKIT_DOCTOR_HOST_COOKIE with the GET of EMBEDKIT_DOCTOR_HOST_URL,
// as the embedkit doctor command does, unless Config.HostHeader has a
// Cookie of its own.
func TestExitIfRequestedHostCookie(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"from the environment", nil, "member=signed-in"},
		{"Config.HostHeader wins", http.Header{"Cookie": {"member=own"}}, "member=own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan string, 1)
			page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/analytics" {
					select {
					case got <- r.Header.Get("Cookie"):
					default:
					}
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte(`<p>no embed</p>`))
			}))
			defer page.Close()
			cfg := userApp(p)
			cfg.HostHeader = tt.header
			env := map[string]string{EnvDoctor: "json", EnvDoctorHostURL: page.URL + "/analytics", EnvDoctorHostCookie: "member=signed-in"}
			var out, errOut bytes.Buffer
			if _, ran := runRequested(context.Background(), cfg, func(k string) string { return env[k] }, &out, &errOut); !ran {
				t.Fatal("the doctor did not run")
			}
			select {
			case c := <-got:
				if c != tt.want {
					t.Errorf("the host page was fetched with Cookie %q, want %q", c, tt.want)
				}
			default:
				t.Fatalf("the host page was not fetched; stderr %s", errOut.String())
			}
			if tt.header != nil && tt.header.Get("Cookie") != "member=own" {
				t.Error("the caller's HostHeader was changed")
			}
		})
	}
}

// TestSourcesInFixes: a fix names where the app reads the setting when
// Config.Sources says, and the field alone otherwise.
func TestSourcesInFixes(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	cfg := userApp(p)
	cfg.Sources = map[string]string{"Origins.Host": "LEDGER_PUBLIC_URL"}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rep.Find("host-origin", ""); !strings.Contains(c.Fix, "Origins.Host (LEDGER_PUBLIC_URL)") {
		t.Errorf("host-origin fix %q does not name the app's variable", c.Fix)
	}

	wrong, err := embedkit.New(p.URL(), "ek_not_a_key_of_this_account")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Client = wrong
	rep, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rep.Find("api-key", ""); c.Status != Failed || !strings.Contains(c.Fix, "(APIKey)") || strings.Contains(c.Fix, "EMBEDKIT_") {
		t.Errorf("api-key check %+v, want failed naming the field and no demo variable", c)
	}
	cfg.Sources["APIKey"] = "LEDGER_PLATFORM_KEY"
	rep, _ = Run(context.Background(), cfg)
	if c, _ := rep.Find("api-key", ""); !strings.Contains(c.Fix, "APIKey (LEDGER_PLATFORM_KEY)") {
		t.Errorf("api-key fix %q does not name the app's variable", c.Fix)
	}
}

// TestHandler serves the doctor on an app's loopback mux.
func TestHandler(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	h := Handler(userApp(p))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"?format=json", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	err = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET ?format=json: %d %v", resp.StatusCode, err)
	}
	checkUserAppReport(t, &rep)

	tests := []struct {
		name, method, host, remote, accept string
		status                             int
		body                               string
	}{
		{"text", http.MethodGet, "127.0.0.1:6060", "127.0.0.1:50000", "", http.StatusOK, "configuration checked: ledger"},
		{"JSON by Accept", http.MethodGet, "localhost:6060", "[::1]:50000", "application/json", http.StatusOK, `"name": "ledger"`},
		{"remote client", http.MethodGet, "127.0.0.1:6060", "203.0.113.7:50000", "", http.StatusForbidden, "loopback clients only"},
		{"a rebound name: loopback peer, another site's Host", http.MethodGet, "attacker.example:6060", "127.0.0.1:50000", "", http.StatusForbidden, "DNS rebinding"},
		{"POST", http.MethodPost, "127.0.0.1:6060", "127.0.0.1:50000", "", http.StatusMethodNotAllowed, "use GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/debug/embedkit/doctor", nil)
			r.Host = tt.host
			r.RemoteAddr = tt.remote
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("%d %q, want %d with %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			embedkittest.CheckText(t, p, "answer", w.Body.String())
		})
	}
	embedkittest.AssertRevoked(t, p, DefaultProbeExternalID)
}

// TestHandlerRefusesWebPages: a request a web page sent (another origin's
// <img>, link or fetch) is refused before a run, so no probe session is
// minted; the command, curl and an address typed in the browser are
// answered.
func TestHandlerRefusesWebPages(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string]string
		status  int
		body    string
	}{
		{"cross-site fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "Sec-Fetch-Site: cross-site"},
		{"same-site fetch metadata (another port of this machine)", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden, "Sec-Fetch-Site: same-site"},
		{"no fetch metadata, another Origin", map[string]string{"Origin": "https://attacker.example"}, http.StatusForbidden, "Origin"},
		{"no fetch metadata, another Referer", map[string]string{"Referer": "https://attacker.example/page"}, http.StatusForbidden, "Referer"},
		{"no fetch metadata, a Referer of another port", map[string]string{"Referer": "http://127.0.0.1:3000/"}, http.StatusForbidden, "Referer"},
		{"typed in the browser", map[string]string{"Sec-Fetch-Site": "none"}, http.StatusOK, "configuration checked: ledger"},
		{"reloaded from its own page", map[string]string{"Sec-Fetch-Site": "same-origin", "Referer": "http://127.0.0.1:6060/debug/embedkit/doctor"}, http.StatusOK, "configuration checked: ledger"},
		{"the command or curl", nil, http.StatusOK, "configuration checked: ledger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := embedkittest.NewPlatform(t)
			h := Handler(userApp(p))
			r := httptest.NewRequest(http.MethodGet, "/debug/embedkit/doctor", nil)
			r.Host = "127.0.0.1:6060"
			r.RemoteAddr = "127.0.0.1:50000"
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("%d %q, want %d with %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			minted := 0
			for _, s := range p.Emulator().Sessions() {
				if s.ExternalID == DefaultProbeExternalID {
					minted++
				}
			}
			if refused := tt.status == http.StatusForbidden; refused && minted != 0 {
				t.Errorf("a refused request minted %d probe sessions", minted)
			} else if !refused && minted == 0 {
				t.Error("an answered request ran no check that mints")
			}
		})
	}
}

// TestHandlerOneRunAtATime: a second request while a run is under way is
// answered 503 at once.
func TestHandlerOneRunAtATime(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/deployments" {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-release
		}
		http.Error(w, `{"error":"unavailable"}`, http.StatusUnauthorized)
	}))
	t.Cleanup(platform.Close)
	client, err := embedkit.New(platform.URL, "ek_handler_test_key", embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(Config{Name: "ledger", Client: client, Kit: middleware.Config{
		Platform: client, PlatformURL: platform.URL, Policy: middleware.Policy{DeploymentID: 1},
		Targets: map[string]middleware.Target{"revenue": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
	}})
	first := make(chan int)
	go func() {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:6060/", nil)
		r.RemoteAddr = "127.0.0.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		first <- w.Code
	}()
	<-arrived
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:6060/", nil)
	r.RemoteAddr = "127.0.0.1:2"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	close(release)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("second request during a run: %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	if code := <-first; code != http.StatusOK {
		t.Errorf("first request: %d, want 200", code)
	}
}
