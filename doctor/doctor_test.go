package doctor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// kitConfig is a host's Config against p: two dashboards, the chat, and a
// Policy that sends two groups and one attribute of the demo fixture.
func kitConfig(p *embedkittest.Platform) middleware.Config {
	cfg := p.KitConfig()
	cfg.Policy.Groups.Allowed = []string{"sales", "emea"}
	cfg.Policy.Attributes.Allowed = []string{"region"}
	cfg.Targets = map[string]middleware.Target{
		"sales":    {Kind: middleware.KindDashboard, PublicID: "sales-overview"},
		"regional": {Kind: middleware.KindDashboard, PublicID: "regional-performance"},
		"ask":      {Kind: middleware.KindChat},
	}
	return cfg
}

// statuses maps "id" or "id subject" to the status of each check.
func statuses(r *doctor.Report) map[string]doctor.Status {
	out := map[string]doctor.Status{}
	for _, c := range r.Checks {
		key := c.ID
		if c.Subject != "" {
			key += " " + c.Subject
		}
		out[key] = c.Status
	}
	return out
}

// run runs the doctor and checks what every test checks: no secret in
// either output, every probe session revoked, Failed agreeing with the
// checks, and a fix on every check that is not ok.
func run(t *testing.T, p *embedkittest.Platform, cfg doctor.Config) *doctor.Report {
	t.Helper()
	rep, err := doctor.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	embedkittest.CheckText(t, p, "text report", text.String())
	embedkittest.CheckText(t, p, "JSON report", string(js))
	for _, s := range p.Emulator().Sessions() {
		if s.ExternalID == doctor.DefaultProbeExternalID && s.State != "revoked" {
			t.Errorf("probe session left %s", s.State)
		}
	}
	failed := false
	for _, c := range rep.Checks {
		failed = failed || c.Status == doctor.Failed
		if (c.Status == doctor.Failed || c.Status == doctor.Warning) && c.Fix == "" && c.ID != "generate-session" {
			t.Errorf("%s %s is %s without a fix: %s", c.ID, c.Subject, c.Status, c.Detail)
		}
	}
	if rep.Failed() != failed {
		t.Errorf("Failed() = %v, checks say %v", rep.Failed(), failed)
	}
	if t.Failed() {
		t.Logf("report:\n%s", text.String())
	}
	return rep
}

// TestHealthySetUp: against a sound account every platform check is ok,
// the host checks are skipped without a host URL, and every probe session
// is revoked.
func TestHealthySetUp(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	rep := run(t, p, doctor.Config{Kit: kitConfig(p)})
	want := map[string]doctor.Status{
		"config": doctor.OK, "api-key": doctor.OK, "deployment": doctor.OK,
		"generate-session": doctor.OK, "groups": doctor.OK, "attributes": doctor.OK,
		"dashboard regional": doctor.OK, "dashboard sales": doctor.OK,
		"clock": doctor.OK, "host-page": doctor.Skipped, "frame-src": doctor.Skipped, "frame-ancestors": doctor.Skipped,
		// Origins.Host is unset: the production setting is missing.
		"host-origin": doctor.Warning,
	}
	got := statuses(rep)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("checks %v, want %v", got, want)
	}
	if rep.Failed() {
		t.Error("Failed() on a sound account")
	}
	embedkittest.AssertRevoked(t, p, doctor.DefaultProbeExternalID)
}

// TestBrokenPlatform breaks the account, the key or the Config one way at
// a time and expects the check that names it to fail (or warn), with the
// detail naming what is wrong.
func TestBrokenPlatform(t *testing.T) {
	tests := []struct {
		name    string
		fixture func(*emulator.Fixture)
		kit     func(*middleware.Config)
		key     string // a key of the fixture to use instead of the test's own
		want    map[string]doctor.Status
		detail  string // in the detail of the first check of want that is not ok
	}{
		{
			name: "wrong key", key: "ek_not_a_key_of_this_account",
			want: map[string]doctor.Status{"api-key": doctor.Failed, "deployment": doctor.Skipped, "generate-session": doctor.Skipped,
				"groups": doctor.Skipped, "attributes": doctor.Skipped, "dashboard sales": doctor.Skipped},
			detail: "401",
		},
		{
			name:   "deployment the key cannot see",
			kit:    func(c *middleware.Config) { c.Policy.DeploymentID = 99 },
			want:   map[string]doctor.Status{"api-key": doctor.OK, "deployment": doctor.Failed, "generate-session": doctor.Skipped, "dashboard sales": doctor.Skipped},
			detail: "deployment 99",
		},
		{
			name: "key scoped to another deployment",
			fixture: func(f *emulator.Fixture) {
				f.Deployments = append(f.Deployments, emulator.Deployment{ID: 2, Name: "Ops", CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
				f.APIKeys = append(f.APIKeys, emulator.APIKey{Key: "ek_scoped_to_ops_only", User: "admin", Deployments: []int64{2}})
			},
			key:    "ek_scoped_to_ops_only",
			want:   map[string]doctor.Status{"api-key": doctor.OK, "deployment": doctor.Failed},
			detail: "scope",
		},
		{
			name:    "embedding off",
			fixture: func(f *emulator.Fixture) { f.Embedding = false },
			want:    map[string]doctor.Status{"deployment": doctor.OK, "generate-session": doctor.Failed, "groups": doctor.Skipped, "dashboard sales": doctor.Skipped},
			detail:  "403",
		},
		{
			name: "personal key", key: "ek_dev_only_personal",
			want:   map[string]doctor.Status{"deployment": doctor.OK, "generate-session": doctor.Failed},
			detail: "403",
		},
		{
			name:   "unknown group",
			kit:    func(c *middleware.Config) { c.Policy.Groups.Allowed = []string{"sales", "finance", "legal"} },
			want:   map[string]doctor.Status{"generate-session": doctor.OK, "groups": doctor.Failed, "attributes": doctor.OK},
			detail: "finance, legal",
		},
		{
			name:   "unknown attribute",
			kit:    func(c *middleware.Config) { c.Policy.Attributes.Allowed = []string{"quota", "cost_center", "region"} },
			want:   map[string]doctor.Status{"groups": doctor.OK, "attributes": doctor.Failed},
			detail: "cost_center",
		},
		{
			name:   "groups and attributes not allow-listed",
			kit:    func(c *middleware.Config) { c.Policy.Groups.Allowed, c.Policy.Attributes.Allowed = nil, nil },
			want:   map[string]doctor.Status{"groups": doctor.Warning, "attributes": doctor.Warning},
			detail: "Groups.Allowed is nil",
		},
		{
			name:   "branch that does not exist",
			kit:    func(c *middleware.Config) { c.Policy.BranchName = "no-such-branch" },
			want:   map[string]doctor.Status{"generate-session": doctor.Failed},
			detail: "404",
		},
		{
			name: "dashboard without signed embedding",
			fixture: func(f *emulator.Fixture) {
				off := false
				f.Deployments[0].Dashboards[1].AllowEmbed = &off
			},
			want:   map[string]doctor.Status{"dashboard sales": doctor.OK, "dashboard regional": doctor.Failed},
			detail: "cube embed enable-dashboard regional-performance",
		},
		{
			name: "dashboard that does not exist",
			kit: func(c *middleware.Config) {
				c.Targets["sales"] = middleware.Target{Kind: middleware.KindDashboard, PublicID: "sales-overveiw"}
			},
			want:   map[string]doctor.Status{"dashboard sales": doctor.Failed, "dashboard regional": doctor.OK},
			detail: "no published dashboard sales-overveiw",
		},
		{
			name: "invalid Config",
			kit:  func(c *middleware.Config) { c.PlatformURL = "http://platform.example.com" },
			want: map[string]doctor.Status{"config": doctor.Failed, "api-key": doctor.Skipped, "deployment": doctor.Skipped,
				"generate-session": doctor.Skipped, "groups": doctor.Skipped, "attributes": doctor.Skipped},
			detail: "PlatformURL",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := emulator.DemoFixture()
			if tt.fixture != nil {
				tt.fixture(f)
			}
			p := embedkittest.NewPlatform(t, embedkittest.WithFixture(f))
			kc := kitConfig(p)
			if tt.kit != nil {
				tt.kit(&kc)
			}
			cfg := doctor.Config{Kit: kc}
			if tt.key != "" {
				c, err := embedkit.New(p.URL(), tt.key)
				if err != nil {
					t.Fatal(err)
				}
				p.AddSecret("the test's key", tt.key)
				cfg.Client = c
			}
			rep := run(t, p, cfg)
			got := statuses(rep)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if !rep.Failed() && tt.want[firstBad(tt.want)] == doctor.Failed {
				t.Error("Failed() is false")
			}
			for _, c := range rep.Checks {
				key := strings.TrimSpace(c.ID + " " + c.Subject)
				if key == firstBad(tt.want) {
					if !strings.Contains(c.Detail+" "+c.Fix, tt.detail) {
						t.Errorf("%s detail %q (fix %q) does not name %q", key, c.Detail, c.Fix, tt.detail)
					}
					break
				}
			}
		})
	}
}

// firstBad is the first check of want, in report order, that is failed
// or warning.
func firstBad(want map[string]doctor.Status) string {
	order := []string{"config", "api-key", "deployment", "generate-session", "groups", "attributes", "dashboard sales", "dashboard regional"}
	for _, k := range order {
		if s := want[k]; s == doctor.Failed || s == doctor.Warning {
			return k
		}
	}
	return ""
}

// TestClockSkew moves the platform's clock and expects the skew to be
// seen in its Date header.
func TestClockSkew(t *testing.T) {
	for _, tt := range []struct {
		skew time.Duration
		want doctor.Status
		says string
	}{
		{0, doctor.OK, ""},
		{-30 * time.Second, doctor.Warning, "behind"},
		{5 * time.Minute, doctor.Failed, "ahead of"},
	} {
		t.Run(tt.skew.String(), func(t *testing.T) {
			p := embedkittest.NewPlatform(t, embedkittest.WithEmulatorOptions(emulator.WithClock(func() time.Time { return time.Now().Add(tt.skew) })))
			rep := run(t, p, doctor.Config{Kit: kitConfig(p)})
			c, _ := rep.Find("clock", "")
			if c.Status != tt.want || !strings.Contains(c.Detail, tt.says) {
				t.Errorf("clock check %+v, want %s saying %q", c, tt.want, tt.says)
			}
		})
	}
}

// hostApp is a host app on the kit: a page with the given headers, and the
// kit's frame and session endpoints.
func hostApp(t *testing.T, kc middleware.Config, header http.Header) *httptest.Server {
	t.Helper()
	kc.Identity = middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) { return nil, middleware.ErrNoViewer })
	kc.Store = memstore.New()
	kit, err := middleware.New(kc)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(kit.FramePrefix(), kit.FrameHandler())
	mux.Handle(kit.SessionPath(), kit.SessionHandler())
	mux.HandleFunc("GET /analytics", func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<iframe src="/embed/frame/sales"></iframe>`))
	})
	mux.HandleFunc("GET /private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://idp.example.com/authorize", http.StatusFound)
	})
	// /members embeds for a signed-in viewer and sends anyone else to the
	// app's own sign-in page, which has a policy of its own.
	mux.HandleFunc("GET /members", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("member"); err != nil || c.Value != "signed-in" {
			http.Redirect(w, r, "/login?return_to=/members", http.StatusSeeOther)
			return
		}
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<embedkit-frame target="sales"></embedkit-frame>`))
	})
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<form method="post"><input name="password"></form>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func csp(values ...string) http.Header {
	h := http.Header{}
	for _, v := range values {
		h.Add("Content-Security-Policy", v)
	}
	return h
}

// TestHostPage checks the host page's Content-Security-Policy and origin.
func TestHostPage(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	platform := p.URL()
	tests := []struct {
		name       string
		header     http.Header
		path       string
		hostHeader http.Header
		want       map[string]doctor.Status
		detail     string
	}{
		{
			name:   "frame-src allows both, frame-ancestors set",
			header: csp("default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self'"),
			want:   map[string]doctor.Status{"host-page": doctor.OK, "frame-src": doctor.OK, "frame-ancestors": doctor.OK, "host-origin": doctor.OK},
		},
		{
			name:   "frame-src without the platform",
			header: csp("frame-src 'self'; frame-ancestors 'none'"),
			want:   map[string]doctor.Status{"frame-src": doctor.Failed, "frame-ancestors": doctor.OK},
			detail: "refuses the platform",
		},
		{
			name:   "default-src without the frame endpoint",
			header: csp("default-src " + platform + "; frame-ancestors 'self'"),
			want:   map[string]doctor.Status{"frame-src": doctor.Failed},
			detail: "refuses the frame endpoint",
		},
		{
			name:   "second policy refuses",
			header: csp("frame-src *; frame-ancestors 'self'", "child-src 'none'"),
			want:   map[string]doctor.Status{"frame-src": doctor.Failed},
			detail: "child-src",
		},
		{
			name:   "no CSP at all",
			header: http.Header{},
			want:   map[string]doctor.Status{"frame-src": doctor.OK, "frame-ancestors": doctor.Warning},
			detail: "any site may frame",
		},
		{
			name:   "X-Frame-Options only",
			header: http.Header{"X-Frame-Options": {"DENY"}, "Content-Security-Policy": {"script-src 'self'"}},
			want:   map[string]doctor.Status{"frame-src": doctor.OK, "frame-ancestors": doctor.Warning},
			detail: "X-Frame-Options DENY",
		},
		{
			name: "page that redirects to sign in elsewhere",
			path: "/private",
			want: map[string]doctor.Status{"host-page": doctor.Warning, "frame-src": doctor.Skipped, "frame-ancestors": doctor.Skipped},
		},
		{
			// The sign-in page's own policy (frame-src from default-src
			// 'none') must not be judged as the embedding page's.
			name:   "page that redirects to the app's sign-in page",
			header: csp("frame-src 'self' " + platform + "; frame-ancestors 'self'"),
			path:   "/members",
			want: map[string]doctor.Status{"host-page": doctor.Warning, "frame-src": doctor.Skipped, "frame-ancestors": doctor.Skipped,
				"host-origin": doctor.OK},
			detail: "was redirected to",
		},
		{
			name:       "page behind sign-in, with a signed-in cookie",
			header:     csp("frame-src 'self' " + platform + "; frame-ancestors 'self'"),
			path:       "/members",
			hostHeader: http.Header{"Cookie": {"member=signed-in"}},
			want:       map[string]doctor.Status{"host-page": doctor.OK, "frame-src": doctor.OK, "frame-ancestors": doctor.OK},
			detail:     "a page that embeds",
		},
		{
			name: "page that does not embed",
			path: "/login",
			want: map[string]doctor.Status{"host-page": doctor.Warning, "frame-src": doctor.Skipped, "frame-ancestors": doctor.Skipped},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc := kitConfig(p)
			srv := hostApp(t, kc, tt.header)
			path := tt.path
			if path == "" {
				path = "/analytics"
			}
			rep := run(t, p, doctor.Config{Kit: kc, HostURL: srv.URL + path, HostHeader: tt.hostHeader})
			got := statuses(rep)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if tt.detail != "" {
				var details []string
				for _, c := range rep.Checks {
					details = append(details, c.Detail)
				}
				if !strings.Contains(strings.Join(details, "\n"), tt.detail) {
					t.Errorf("no detail names %q", tt.detail)
				}
			}
		})
	}
}

// TestHostOrigin: a proxy that rewrites Host, and a Origins.Host that is not
// the browsers' origin, both fail; a proxy that keeps Host passes.
func TestHostOrigin(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	page := csp("frame-src 'self' " + p.URL() + "; frame-ancestors 'self'")
	proxy := func(t *testing.T, backend string, keepHost bool) *httptest.Server {
		u, _ := url.Parse(backend)
		srv := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			if keepHost {
				pr.Out.Host = pr.In.Host
			} else {
				pr.Out.Host = "app.internal:8080"
			}
		}})
		t.Cleanup(srv.Close)
		return srv
	}
	t.Run("proxy rewrites Host", func(t *testing.T) {
		app := hostApp(t, kitConfig(p), page)
		rep := run(t, p, doctor.Config{Kit: kitConfig(p), HostURL: proxy(t, app.URL, false).URL + "/analytics"})
		if c, _ := rep.Find("host-origin", ""); c.Status != doctor.Failed || !strings.Contains(c.Fix, "Origins.Host") {
			t.Errorf("host-origin %+v, want failed with Origins.Host in the fix", c)
		}
	})
	t.Run("proxy keeps Host", func(t *testing.T) {
		app := hostApp(t, kitConfig(p), page)
		rep := run(t, p, doctor.Config{Kit: kitConfig(p), HostURL: proxy(t, app.URL, true).URL + "/analytics"})
		if c, _ := rep.Find("host-origin", ""); c.Status != doctor.OK {
			t.Errorf("host-origin %+v, want ok", c)
		}
	})
	t.Run("Origins.Host names another origin", func(t *testing.T) {
		kc := kitConfig(p)
		kc.Origins.Host = "https://app.example.com"
		app := hostApp(t, kc, page)
		rep := run(t, p, doctor.Config{Kit: kc, HostURL: app.URL + "/analytics"})
		if c, _ := rep.Find("host-origin", ""); c.Status != doctor.Failed || !strings.Contains(c.Detail, "https://app.example.com") {
			t.Errorf("host-origin %+v, want failed naming Origins.Host", c)
		}
	})
	t.Run("Origins.Host matches", func(t *testing.T) {
		app := hostApp(t, kitConfig(p), page)
		kc := kitConfig(p)
		kc.Origins.Host = app.URL
		rep := run(t, p, doctor.Config{Kit: kc, HostURL: app.URL + "/analytics"})
		if c, _ := rep.Find("host-origin", ""); c.Status != doctor.OK {
			t.Errorf("host-origin %+v, want ok", c)
		}
	})
	t.Run("the doctor names a target otherwise", func(t *testing.T) {
		// The app calls sales-overview "sales"; the doctor's set-up names
		// it after its public id, as -dashboards sales-overview does.
		app := hostApp(t, kitConfig(p), page)
		kc := kitConfig(p)
		kc.Targets = map[string]middleware.Target{"sales-overview": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
		rep := run(t, p, doctor.Config{Kit: kc, HostURL: app.URL + "/analytics"})
		c, _ := rep.Find("host-origin", "")
		if c.Status != doctor.Warning || strings.Contains(c.Detail, "no session endpoint") ||
			!strings.Contains(c.Detail, `does not know target "sales-overview"`) || !strings.Contains(c.Fix, "name=publicId") {
			t.Errorf("host-origin %+v, want a warning that the endpoint does not know the target, not that there is no endpoint", c)
		}
	})
	t.Run("no session endpoint", func(t *testing.T) {
		app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/analytics" {
				http.NotFound(w, r)
				return
			}
			for k, vs := range page {
				w.Header()[k] = vs
			}
			w.Write([]byte(`<iframe src="/embed/frame/sales"></iframe>`))
		}))
		t.Cleanup(app.Close)
		rep := run(t, p, doctor.Config{Kit: kitConfig(p), HostURL: app.URL + "/analytics"})
		if c, _ := rep.Find("host-origin", ""); c.Status != doctor.Warning || !strings.Contains(c.Detail, "no session endpoint") {
			t.Errorf("host-origin %+v, want a warning that there is no session endpoint", c)
		}
	})
	t.Run("host not running", func(t *testing.T) {
		app := hostApp(t, kitConfig(p), page)
		app.Close()
		rep := run(t, p, doctor.Config{Kit: kitConfig(p), HostURL: app.URL + "/analytics"})
		if c, _ := rep.Find("host-page", ""); c.Status != doctor.Failed {
			t.Errorf("host-page %+v, want failed", c)
		}
	})
}

// TestRunNeedsAClient: a Kit whose Platform is not an *embedkit.Client
// needs Config.Client.
func TestRunNeedsAClient(t *testing.T) {
	_, err := doctor.Run(context.Background(), doctor.Config{})
	if err == nil || !strings.Contains(err.Error(), "Config.Client") {
		t.Fatalf("err = %v, want one naming Config.Client", err)
	}
}

// TestReportJSON: the JSON form carries every check with its id, status
// and detail, and the text form one line a check and a summary.
func TestReportJSON(t *testing.T) {
	rep := &doctor.Report{Platform: "https://acme.example.com", Deployment: 7, Checks: []doctor.Check{
		{ID: "api-key", Status: doctor.OK, Detail: "the platform accepts the API key"},
		{ID: "dashboard", Subject: "sales", Status: doctor.Failed, Detail: "no such dashboard", Fix: "publish it"},
	}}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"config":{"name":"","targets":null,"allowedGroups":null,"allowedAttributes":null},"platform":"https://acme.example.com","deploymentId":7,"checks":[{"id":"api-key","status":"ok","detail":"the platform accepts the API key"},{"id":"dashboard","subject":"sales","status":"failed","detail":"no such dashboard","fix":"publish it"}]}`
	if string(js) != want {
		t.Errorf("JSON\n%s\nwant\n%s", js, want)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, s := range []string{"failed   dashboard sales", "fix: publish it", "1 ok, 0 warning, 1 failed, 0 skipped"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

// TestEmptyAllowListsSaySo: an empty allow-list (no groups, no
// attributes sent) reads the same in the report's header, its JSON and
// its checks, and is never taken for nil (every one sent).
func TestEmptyAllowListsSaySo(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	tests := []struct {
		name             string
		allowed          []string
		header, js, line string
	}{
		{"empty", []string{}, "attributes:  none (Policy.Attributes.Allowed is empty)", `"allowedAttributes":[]`, "no attributes are sent"},
		{"nil", nil, "attributes:  any attribute (Policy.Attributes.Allowed is nil)", `"allowedAttributes":null`, "every attribute of a viewer is sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc := kitConfig(p)
			kc.Policy.Attributes.Allowed = tt.allowed
			rep := run(t, p, doctor.Config{Name: "ledger", Kit: kc})
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), tt.header) {
				t.Errorf("the header lacks %q:\n%s", tt.header, text.String())
			}
			if !strings.Contains(string(js), tt.js) {
				t.Errorf("the JSON lacks %s:\n%s", tt.js, js)
			}
			if c, _ := rep.Find("attributes", ""); !strings.Contains(c.Detail, tt.line) {
				t.Errorf("the attributes check says %q, want %q", c.Detail, tt.line)
			}
			// The JSON read back, as embedkit doctor -app reads it, keeps
			// the difference.
			var back doctor.Report
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			if (back.Config.AllowedAttributes == nil) != (tt.allowed == nil) {
				t.Errorf("read back, allowedAttributes is %#v, want %#v", back.Config.AllowedAttributes, tt.allowed)
			}
		})
	}
}
