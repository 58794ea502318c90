package webapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/doctor"
)

// TestDemoDoctor: the demo serves the doctor on its loopback listener,
// and the report is of the Config the app serves with: its name, its
// dashboards and groups.
func TestDemoDoctor(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	u, err := url.Parse(f.d.DoctorURL)
	if err != nil || u.Hostname() != "127.0.0.1" || u.Path != "/debug/embedkit/doctor" {
		t.Fatalf("doctor URL %q, want /debug/embedkit/doctor on 127.0.0.1", f.d.DoctorURL)
	}
	req, _ := http.NewRequest(http.MethodGet, f.d.DoctorURL, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep doctor.Report
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", f.d.DoctorURL, resp.StatusCode, err)
	}
	if !strings.Contains(rep.Config.Name, "Ledgerly") || len(rep.Config.Targets) != len(f.d.App.kitConfig.Targets) || rep.Config.AllowedAttributes[0] != "region" {
		t.Errorf("the report names %+v, not the demo app's Config", rep.Config)
	}
	if rep.Failed() {
		t.Errorf("the demo's own set-up fails a check: %+v", rep.Checks)
	}
	if rep.Config.HostOrigin != strings.TrimSuffix(f.d.AppURL, "/") {
		t.Errorf("report names host origin %q, want the app's %q", rep.Config.HostOrigin, f.d.AppURL)
	}
}
