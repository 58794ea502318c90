package webapp

import (
	"strings"
	"testing"

	"github.com/embedkit/embedkit/middleware"
)

// TestKitConfig: the kit's Config is built from the platform fields alone,
// with the demo's defaults, and every missing or invalid field is named.
func TestKitConfig(t *testing.T) {
	base := Config{PlatformURL: "http://127.0.0.1:7070", APIKey: "ek_dev_only_admin_all", DeploymentID: 1}
	kc, err := KitConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	if kc.Policy.DeploymentID != 1 || kc.PlatformURL != base.PlatformURL || kc.Origins.Host != "" || kc.Platform == nil {
		t.Errorf("Config %+v", kc)
	}
	if got, want := len(kc.Targets), len(DemoDashboards())+1+2; got != want {
		t.Errorf("%d targets, want the demo's %d dashboards, the projects' one, the chat and the app", got, want)
	}
	if pt := kc.Targets["project-1"]; !pt.RouteScoped || pt.PublicID != "project-analytics" {
		t.Errorf("the projects' target %+v, want project-analytics, RouteScoped", pt)
	}
	if kc.Targets[askTarget].Kind != middleware.KindChat || kc.Targets[appTarget].Kind != middleware.KindApp {
		t.Errorf("targets %v", kc.Targets)
	}

	withURL := base
	withURL.PublicURL = "https://app.example.com/"
	if kc, err := KitConfig(withURL); err != nil || kc.Origins.Host != "https://app.example.com" {
		t.Errorf("Origins.Host %q, %v", kc.Origins.Host, err)
	}

	for _, tt := range []struct {
		edit  func(*Config)
		field string
	}{
		{func(c *Config) { c.PlatformURL = "" }, "PlatformURL"},
		{func(c *Config) { c.PlatformURL = "http://platform.example.com" }, "PlatformURL"},
		{func(c *Config) { c.APIKey = "" }, "APIKey"},
		{func(c *Config) { c.DeploymentID = 0 }, "DeploymentID"},
		{func(c *Config) { c.PublicURL = "https://app.example.com/path" }, "PublicURL"},
		{func(c *Config) { c.Dashboards = []Dashboard{{PublicID: "a b"}} }, "Dashboards[0]"},
	} {
		c := base
		tt.edit(&c)
		if _, err := KitConfig(c); err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%s: err %v, want one naming it", tt.field, err)
		}
	}
}
