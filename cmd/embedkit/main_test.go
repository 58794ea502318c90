package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/doctor"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/middleware"
)

// TestDoctorCommand runs the command against the emulator, with the
// set-up described through the environment and through flags, and checks
// its exit status and both report forms.
func TestDoctorCommand(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	env := map[string]string{
		"EMBEDKIT_BASE_URL":      p.URL(),
		"EMBEDKIT_API_KEY":       p.APIKey(),
		"EMBEDKIT_DEPLOYMENT_ID": "1",
		"EMBEDKIT_DASHBOARDS":    "sales-overview:Sales,regional-performance",
	}
	getenv := func(k string) string { return env[k] }
	without := func(name string) func(string) string {
		return func(k string) string {
			if k == name {
				return ""
			}
			return env[k]
		}
	}
	none := func(string) string { return "" }

	tests := []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		out    []string // in stdout
		errOut string   // in stderr
		notErr string   // not in stderr
	}{
		{"healthy, from the environment", []string{"doctor"}, getenv, 0,
			[]string{"configuration checked: the set-up on the command line", "regional-performance (dashboard regional-performance)", "0 failed"}, "", ""},
		{"healthy, from flags", []string{"doctor", "-platform-url", p.URL(), "-api-key", p.APIKey(), "-deployment", "1", "-dashboards", "sales-overview",
			"-groups", "sales,emea", "-attributes", "region", "-name", "billing staging"}, none, 0,
			[]string{"configuration checked: billing staging", "groups:      emea, sales", "ok       dashboard sales-overview", "ok       attributes"}, "", ""},
		{"unknown dashboard fails", []string{"doctor", "-dashboards", "sales-overview:Sales,no-such-board:Nope"}, getenv, 1,
			[]string{"no published dashboard no-such-board"}, "", ""},
		{"unknown group fails", []string{"doctor", "-groups", "sales,finance"}, getenv, 1,
			[]string{"no groups named finance"}, "", ""},
		{"wrong key fails, the deployment check shows as skipped", []string{"doctor", "-api-key", "ek_wrong_key_for_this_test"}, getenv, 1,
			[]string{"refused the API key", "skipped  deployment", "EMBEDKIT_API_KEY or -api-key"}, "", ""},
		{"nothing named: every missing setting", []string{"doctor"}, none, 2, nil, "EMBEDKIT_BASE_URL (or -platform-url) and EMBEDKIT_API_KEY (or -api-key) and EMBEDKIT_DEPLOYMENT_ID", ""},
		{"only the key missing: that one", []string{"doctor"}, without("EMBEDKIT_API_KEY"), 2, nil, "EMBEDKIT_API_KEY (or -api-key) is not set", "EMBEDKIT_BASE_URL"},
		{"only the deployment missing: that one", []string{"doctor"}, without("EMBEDKIT_DEPLOYMENT_ID"), 2, nil, "EMBEDKIT_DEPLOYMENT_ID (or -deployment) is not set", "EMBEDKIT_API_KEY"},
		{"platform URL of another scheme", []string{"doctor", "-platform-url", "ftp://x"}, getenv, 2, nil, "EMBEDKIT_BASE_URL", ""},
		{"bad dashboard id", []string{"doctor", "-dashboards", "a b"}, getenv, 2, nil, "EMBEDKIT_DASHBOARDS (-dashboards)", ""},
		{"targets named as the app names them", []string{"doctor", "-dashboards", "sales=sales-overview,regional-performance"}, getenv, 0,
			[]string{"targets:     regional-performance (dashboard regional-performance), sales (dashboard sales-overview)", "dashboard sales-overview can be embedded"}, "", ""},
		{"a target named twice", []string{"doctor", "-dashboards", "sales=sales-overview,sales=regional-performance"}, getenv, 2, nil, `target "sales" is named twice`, ""},
		{"a target with no name", []string{"doctor", "-dashboards", "=sales-overview"}, getenv, 2, nil, "names no target", ""},
		{"-attributes '' sends none", []string{"doctor", "-attributes", ""}, getenv, 0,
			[]string{"attributes:  none (Policy.Attributes.Allowed is empty)", "Policy.Attributes.Allowed is empty: no attributes are sent"}, "", ""},
		{"-groups '' sends none", []string{"doctor", "-groups", ""}, getenv, 0,
			[]string{"groups:      none (Policy.Groups.Allowed is empty)"}, "", ""},
		{"no -attributes: not allow-listed", []string{"doctor"}, getenv, 0,
			[]string{"attributes:  any attribute (Policy.Attributes.Allowed is nil)"}, "", ""},
		{"stray argument", []string{"doctor", "now"}, getenv, 2, nil, "unexpected argument", ""},
		{"unknown subcommand", []string{"heal"}, getenv, 2, nil, "usage: embedkit doctor", ""},
		{"help", []string{"doctor", "-h"}, getenv, 0, nil, "-app", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, tt.getenv, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			for _, s := range tt.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tt.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tt.errOut, stderr.String())
			}
			if tt.notErr != "" && strings.Contains(stderr.String(), tt.notErr) {
				t.Errorf("stderr names %q, which is set:\n%s", tt.notErr, stderr.String())
			}
			embedkittest.CheckText(t, p, "stdout", stdout.String())
			embedkittest.CheckText(t, p, "stderr", stderr.String())
		})
	}

	t.Run("json", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"doctor", "-json"}, getenv, &stdout, &stderr); code != 0 {
			t.Fatalf("exit status %d: %s", code, stderr.String())
		}
		var rep doctor.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
		}
		if rep.Deployment != 1 || len(rep.Checks) == 0 || rep.Failed() || len(rep.Config.Targets) != 2 {
			t.Errorf("report %+v", rep)
		}
		if c, ok := rep.Find("dashboard", "sales-overview"); !ok || c.Status != doctor.OK {
			t.Errorf("dashboard check %+v", c)
		}
	})
	embedkittest.AssertRevoked(t, p, doctor.DefaultProbeExternalID)
}

// TestDoctorHostURLRedacted: a -host-url with credentials in it is
// reported with its password redacted, in text and in JSON, whether the
// page loads, redirects, or the URL is refused.
func TestDoctorHostURLRedacted(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	env := map[string]string{
		"EMBEDKIT_BASE_URL":      p.URL(),
		"EMBEDKIT_API_KEY":       p.APIKey(),
		"EMBEDKIT_DEPLOYMENT_ID": "1",
	}
	getenv := func(k string) string { return env[k] }
	const password = "s3cret-pass-in-url"
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			w.Header().Set("Location", "http://admin:"+password+"@"+r.Host+"/login")
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Security-Policy", "frame-src 'self' "+p.URL()+"; frame-ancestors 'self'")
	}))
	defer host.Close()
	withCreds := strings.Replace(host.URL, "http://", "http://admin:"+password+"@", 1)
	tests := []struct {
		name    string
		hostURL string
	}{
		{"page loads", withCreds + "/analytics"},
		{"page redirects", withCreds + "/old"},
		{"URL refused", "ftp://admin:" + password + "@example.com/analytics"},
	}
	for _, tt := range tests {
		for _, form := range [][]string{nil, {"-json"}} {
			t.Run(tt.name+strings.Join(form, ""), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := append([]string{"doctor", "-host-url", tt.hostURL}, form...)
				run(context.Background(), args, getenv, &stdout, &stderr)
				out := stdout.String() + stderr.String()
				if strings.Contains(out, password) {
					t.Errorf("the report prints the password of -host-url:\n%s", out)
				}
				if !strings.Contains(out, "admin:xxxxx@") {
					t.Errorf("the report does not name the redacted host URL:\n%s", out)
				}
			})
		}
	}
}

// TestDoctorCommandApp reads a running app's own report through its
// doctor.Handler: the app's name, targets and groups, not the demo's, and
// fixes without the demo's variables. The README shows this report.
func TestDoctorCommandApp(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	kc := p.KitConfig()
	kc.Policy.Groups.Allowed = []string{"sales", "emea"}
	kc.Targets = map[string]middleware.Target{"revenue": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	admin := http.NewServeMux()
	admin.Handle("GET /debug/embedkit/doctor", doctor.Handler(doctor.Config{Name: "ledger", Kit: kc}))
	srv := httptest.NewServer(admin)
	t.Cleanup(srv.Close)

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"doctor", "-app", srv.URL + "/debug/embedkit/doctor"}, func(string) string { return "" }, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, s := range []string{
		"configuration checked: ledger",
		"targets:     revenue (dashboard sales-overview)",
		"groups:      emea, sales (Policy.Groups.Allowed)",
		"attributes:  any attribute (Policy.Attributes.Allowed is nil)",
		"host origin: derived from each request (Origins.Host is unset)",
		"warning  attributes",
		"warning  host-origin",
		"7 ok, 2 warning, 0 failed, 3 skipped",
	} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "EMBEDKIT_") {
		t.Errorf("the report of another app names the demo's variables:\n%s", stdout.String())
	}
	embedkittest.CheckText(t, p, "stdout", stdout.String())

	for _, tt := range []struct{ name, app, errOut string }{
		{"not a doctor", srv.URL + "/nothing-here", "answered 404"},
		{"not a URL", "127.0.0.1:6060", "-app"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"doctor", "-app", tt.app}, func(string) string { return "" }, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tt.errOut) {
				t.Errorf("exit status %d, stderr %q; want non-zero naming %q", code, stderr.String(), tt.errOut)
			}
		})
	}
	embedkittest.AssertRevoked(t, p, doctor.DefaultProbeExternalID)
}
