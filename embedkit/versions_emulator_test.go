package embedkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorVersions(t *testing.T) {
	ctx := context.Background()

	current := func(t *testing.T, c *embedkit.Client) string {
		t.Helper()
		vs, err := c.ListVersions(ctx, 1)
		if err != nil {
			t.Fatalf("ListVersions: %v", err)
		}
		cur := ""
		for _, v := range vs {
			if v.IsCurrent {
				if cur != "" {
					t.Fatalf("two current versions: %s and %s", cur, v.Version)
				}
				cur = v.Version
			}
		}
		return cur
	}

	t.Run("list", func(t *testing.T) {
		e := startEmulator(t)
		vs, err := e.client(t, keyAdminAll).ListVersions(ctx, 1)
		if err != nil {
			t.Fatalf("ListVersions: %v", err)
		}
		want := []embedkit.DeploymentVersion{
			{ReleaseChannelVersion: "platform/runtime:v1.4.2", Version: "1.4.2", ReleaseChannel: "release", IsLatestInChannel: true, IsCurrent: true},
			{ReleaseChannelVersion: "platform/runtime:v1.3.9", Version: "1.3.9", ReleaseChannel: "release"},
			{ReleaseChannelVersion: "platform/runtime:v1.5.0-rc.1", Version: "1.5.0-rc.1", ReleaseChannel: "latest", IsLatestInChannel: true},
		}
		if !slices.Equal(vs, want) {
			t.Errorf("versions = %+v, want %+v", vs, want)
		}
	})

	switchTests := []struct {
		name     string
		version  string
		want     string
		wantHold bool
	}{
		{"bare semver", "1.3.9", "1.3.9", true},
		{"v prefix", "v1.5.0-rc.1", "1.5.0-rc.1", false},
		{"image reference", "platform/runtime:v1.3.9", "1.3.9", true},
	}
	for _, tt := range switchTests {
		t.Run("switch "+tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			s, err := c.SwitchVersion(ctx, 1, tt.version)
			if err != nil {
				t.Fatalf("SwitchVersion: %v", err)
			}
			if s.ID != 1 || s.Name != "Sales analytics" || !strings.HasSuffix(s.ReleaseChannelVersion, ":v"+tt.want) || s.ReleaseChannelVersionHold != tt.wantHold {
				t.Errorf("settings = id %d, %q, version %q, hold %v; want 1, Sales analytics, …:v%s, hold %v",
					s.ID, s.Name, s.ReleaseChannelVersion, s.ReleaseChannelVersionHold, tt.want, tt.wantHold)
			}
			if got := current(t, c); got != tt.want {
				t.Errorf("current version = %s, want %s", got, tt.want)
			}
		})
	}

	unlisted := []struct{ name, version string }{
		{"unknown version", "9.9.9"},
		{"listed version under another image repository", "other/image:v1.3.9"},
	}
	for _, tt := range unlisted {
		t.Run("switch refused: "+tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			_, err := c.SwitchVersion(ctx, 1, tt.version)
			wantAPIError(t, err, http.StatusBadRequest, "not in the versions list")
			if got := current(t, c); got != "1.4.2" {
				t.Errorf("current version after a refused switch = %s, want 1.4.2", got)
			}
		})
	}

	t.Run("switch refused before sending", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		for _, v := range []string{"", "latest", "1.4", "platform/runtime:1.4.2"} {
			_, err := c.SwitchVersion(ctx, 1, v)
			wantValidation(t, err, "releaseChannelVersion")
		}
		if n := len(e.emu.Requests()); n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})

	t.Run("channel alone moves to its latest", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		s, err := c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{ReleaseChannel: "latest"})
		if err != nil {
			t.Fatalf("UpdateDeployment: %v", err)
		}
		if s.ReleaseChannel != "latest" || current(t, c) != "1.5.0-rc.1" {
			t.Errorf("channel %q, current %s; want latest, 1.5.0-rc.1", s.ReleaseChannel, current(t, c))
		}
	})

	t.Run("template variables merge", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		steps := []struct {
			send map[string]any
			want map[string]any
		}{
			{map[string]any{"warehouse": "main", "schema": "sales"}, map[string]any{"warehouse": "main", "schema": "sales"}},
			{map[string]any{"schema": "sales_v2", "region": "eu"}, map[string]any{"warehouse": "main", "schema": "sales_v2", "region": "eu"}},
			// A null value is merged as given: the platform documents no
			// removal of a key.
			{map[string]any{"warehouse": nil}, map[string]any{"warehouse": nil, "schema": "sales_v2", "region": "eu"}},
		}
		for i, st := range steps {
			s, err := c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{TemplateVariables: st.send})
			if err != nil {
				t.Fatalf("step %d: UpdateDeployment: %v", i, err)
			}
			got, _ := json.Marshal(s.TemplateVariables)
			want, _ := json.Marshal(st.want)
			if !bytes.Equal(got, want) {
				t.Errorf("step %d: templateVariables = %s, want %s", i, got, want)
			}
			if len(s.Raw) == 0 {
				t.Errorf("step %d: Raw is empty", i)
			}
		}
		if got := current(t, c); got != "1.4.2" {
			t.Errorf("a template update changed the version to %s", got)
		}
	})

	t.Run("update refused", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		_, err := e.client(t, keyAdminD1).UpdateDeployment(ctx, 2, &embedkit.UpdateDeploymentRequest{Region: "eu-west-1"})
		wantAPIError(t, err, http.StatusForbidden, "not scoped")
		// Every field of the partial update is optional: an empty one is
		// sent, and the platform leaves everything untouched.
		if _, err = c.UpdateDeployment(ctx, 1, &embedkit.UpdateDeploymentRequest{}); err != nil {
			t.Errorf("empty update: %v", err)
		}
	})

	t.Run("spec", func(t *testing.T) {
		e := startEmulator(t)
		raw, err := e.client(t, keyAdminAll).Spec(ctx)
		if err != nil {
			t.Fatalf("Spec: %v", err)
		}
		var doc struct {
			OpenAPI string `json:"openapi"`
			Info    struct {
				Version string `json:"version"`
			} `json:"info"`
			Paths map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("spec is not an OpenAPI document: %v", err)
		}
		if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" {
			t.Errorf("openapi %q, info.version %q; want 3.1.0, 1.0.0", doc.OpenAPI, doc.Info.Version)
		}
		for _, p := range []string{"/api/v1/embed/generate-session", "/api/v1/deployments", "/api/v1/audit-logs/export"} {
			if _, ok := doc.Paths[p]; !ok {
				t.Errorf("spec has no path %s", p)
			}
		}
	})
}
