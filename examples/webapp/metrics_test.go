package webapp

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDemoMetrics: the demo serves the kit's Prometheus metrics on a
// loopback listener of its own (not on the app's mux): a frame load and a
// logout show up as a mint and a revoke.
func TestDemoMetrics(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	scrape := func() string {
		t.Helper()
		resp, err := http.Get(f.d.MetricsURL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", f.d.MetricsURL, resp.StatusCode)
		}
		return string(b)
	}
	u, err := url.Parse(f.d.MetricsURL)
	if err != nil || u.Hostname() != "127.0.0.1" || u.Path != "/metrics" {
		t.Fatalf("metrics URL %q, want /metrics on 127.0.0.1", f.d.MetricsURL)
	}
	if body := scrape(); !strings.Contains(body, `embedkit_mints_total{outcome="ok"} 0`) {
		t.Errorf("before any load the metrics lack the zero mint series:\n%.600s", body)
	}
	b := f.browser()
	b.login("ben", "ben-dev-pass")
	b.frameRedirect("/embed/frame/dashboard/sales-overview")
	_, page := b.get(f.d.AppURL + "/dashboards")
	b.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil)
	body := scrape()
	for _, want := range []string{`embedkit_mints_total{outcome="ok"} 1`, `embedkit_revokes_total{outcome="ok"} 1`, `embedkit_mint_duration_seconds_count{outcome="ok"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if resp, _ := b.get(f.d.AppURL + "/metrics"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the app's own mux answers /metrics: %d", resp.StatusCode)
	}
}

// TestDemoMetricsRefusesForeignHost: the metrics listener answers only to
// a loopback Host, as the emulator's control API does: a page that
// rebinds its own name to 127.0.0.1 reaches the listener but sends its
// name in Host, and gets 403 without the metrics.
func TestDemoMetricsRefusesForeignHost(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	u, err := url.Parse(f.d.MetricsURL)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		want int
	}{
		{"rebound.attacker.example", http.StatusForbidden},
		{"rebound.attacker.example:" + u.Port(), http.StatusForbidden},
		{"127.0.0.1:" + u.Port(), http.StatusOK},
		{"localhost:" + u.Port(), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, f.d.MetricsURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET /metrics with Host %q: %d, want %d", tt.host, resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusForbidden && strings.Contains(string(body), "embedkit_") {
				t.Errorf("a refused request got the metrics")
			}
		})
	}
}
