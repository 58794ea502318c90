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
)

// TestDoctorCommand runs the command against the emulator, configured
// through the environment and through flags, and checks its exit status
// and both report forms.
func TestDoctorCommand(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	env := map[string]string{
		"EMBEDKIT_BASE_URL":      p.URL(),
		"EMBEDKIT_API_KEY":       p.APIKey(),
		"EMBEDKIT_DEPLOYMENT_ID": "1",
	}
	getenv := func(k string) string { return env[k] }
	none := func(string) string { return "" }

	tests := []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		out    string // in stdout
		errOut string // in stderr
	}{
		{"healthy, from the environment", []string{"doctor"}, getenv, 0, "0 failed", ""},
		{"healthy, from flags", []string{"doctor", "-platform-url", p.URL(), "-api-key", p.APIKey(), "-deployment", "1"}, none, 0, "ok       dashboard", ""},
		{"unknown dashboard fails", []string{"doctor", "-dashboards", "sales-overview:Sales,no-such-board:Nope"}, getenv, 1, "no published dashboard no-such-board", ""},
		{"wrong key fails", []string{"doctor", "-api-key", "ek_wrong_key_for_this_test"}, getenv, 1, "refused the API key", ""},
		{"no platform named", []string{"doctor"}, none, 2, "", "EMBEDKIT_BASE_URL"},
		{"platform URL of another scheme", []string{"doctor", "-platform-url", "ftp://x"}, getenv, 2, "", "EMBEDKIT_BASE_URL"},
		{"stray argument", []string{"doctor", "now"}, getenv, 2, "", "unexpected argument"},
		{"unknown subcommand", []string{"heal"}, getenv, 2, "", "usage: embedkit doctor"},
		{"help", []string{"doctor", "-h"}, getenv, 0, "", "-host-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, tt.getenv, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.out) {
				t.Errorf("stdout lacks %q:\n%s", tt.out, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tt.errOut, stderr.String())
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
		if rep.Deployment != 1 || len(rep.Checks) == 0 || rep.Failed() {
			t.Errorf("report %+v", rep)
		}
		if c, ok := rep.Find("dashboard", ""); !ok || c.Status != doctor.OK {
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
