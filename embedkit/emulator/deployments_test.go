package emulator

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type deploymentsPage struct {
	Data struct {
		Deployments []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			CreatedAt string `json:"created_at"`
		} `json:"deployments"`
	} `json:"data"`
	Pagination offsetPage `json:"pagination"`
}

func TestListDeploymentsPagination(t *testing.T) {
	e := setup(t)
	tests := []struct {
		name, query, cred string
		ids               []string
		page              offsetPage
	}{
		{"defaults", "", "ek_admin_all", []string{"1", "2", "3"}, offsetPage{0, 20, 3}},
		{"limit", "?limit=2", "ek_admin_all", []string{"1", "2"}, offsetPage{0, 2, 3}},
		{"offset", "?offset=2&limit=2", "ek_admin_all", []string{"3"}, offsetPage{2, 2, 3}},
		{"past the end", "?offset=9", "ek_admin_all", []string{}, offsetPage{9, 20, 3}},
		{"limit zero", "?limit=0", "ek_admin_all", []string{}, offsetPage{0, 0, 3}},
		{"largest limit", "?offset=1&limit=9223372036854775807", "ek_admin_all", []string{"2", "3"}, offsetPage{1, 9223372036854775807, 3}},
		{"largest offset and limit", "?offset=9223372036854775807&limit=9223372036854775807", "ek_admin_all", []string{}, offsetPage{9223372036854775807, 9223372036854775807, 3}},
		{"scoped key", "", "ek_admin_d2", []string{"2"}, offsetPage{0, 20, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p deploymentsPage
			mustJSON(t, e.expect(200, "GET", "/api/v1/deployments"+tt.query, tt.cred, nil), &p)
			ids := []string{}
			for _, d := range p.Data.Deployments {
				ids = append(ids, d.ID)
			}
			if !reflect.DeepEqual(ids, tt.ids) || p.Pagination != tt.page {
				t.Errorf("ids %v page %+v", ids, p.Pagination)
			}
		})
	}
	var p deploymentsPage
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments?limit=1", "ek_admin_all", nil), &p)
	if d := p.Data.Deployments[0]; d.Name != "Sales analytics" || d.CreatedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("item %+v", d)
	}
	for _, q := range []string{"?offset=-1", "?limit=x", "?limit=1.5"} {
		e.expect(400, "GET", "/api/v1/deployments"+q, "ek_admin_all", nil)
	}
}

type envPage struct {
	Data struct {
		Environments []environmentItem `json:"environments"`
	} `json:"data"`
	Pagination offsetPage `json:"pagination"`
}

func TestEnvironments(t *testing.T) {
	e := setup(t)
	var p envPage
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments/1/environments", "ek_admin_all", nil), &p)
	if len(p.Data.Environments) != 2 || p.Pagination.Total != 2 {
		t.Fatalf("environments %+v", p)
	}
	prod := p.Data.Environments[0]
	if prod.ID != "env-prod" || prod.Type != "production" || prod.APICredentials.Rest.URL != "https://acme.example/api/data/v1" ||
		prod.APICredentials.SQL.Host != "sql.acme.example" || prod.APICredentials.SQL.Port != 5432 {
		t.Errorf("production %+v", prod)
	}
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments/1/environments?type=staging", "ek_admin_all", nil), &p)
	if len(p.Data.Environments) != 0 {
		t.Errorf("staging before enabling: %+v", p.Data.Environments)
	}
	e.expect(200, "PUT", "/build/api/v1/deployments/1/branches/staging-environment", "ek_admin_all", `{"enabled":true,"branchId":2}`)
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments/1/environments?type=staging", "ek_admin_all", nil), &p)
	if len(p.Data.Environments) != 1 || p.Data.Environments[0].Type != "staging" ||
		p.Data.Environments[0].APICredentials.Rest.URL != "https://acme.example/dev-mode/q3-metrics/api/data/v1" {
		t.Errorf("staging %+v", p.Data.Environments)
	}
	mustJSON(t, e.expect(200, "GET", "/api/v1/deployments/1/environments?offset=1&limit=1", "ek_admin_all", nil), &p)
	if len(p.Data.Environments) != 1 || p.Data.Environments[0].ID != "env-dev" || p.Pagination.Total != 3 {
		t.Errorf("page %+v", p)
	}
	e.expect(400, "GET", "/api/v1/deployments/1/environments?type=qa", "ek_admin_all", nil)
	e.expect(404, "GET", "/api/v1/deployments/abc/environments", "ek_admin_all", nil)
}

func TestMetadataToken(t *testing.T) {
	e := setup(t)
	path := "/api/v1/deployments/1/environments/env-prod/tokens-for-meta-sync"
	var out struct {
		Data struct {
			Token     string `json:"token"`
			CreatedAt string `json:"created_at"`
			ExpiresAt string `json:"expires_at"`
		} `json:"data"`
	}
	mustJSON(t, e.expect(200, "POST", path, "ek_admin_all", `{"security_context":{"team":"a"}}`), &out)
	if out.Data.CreatedAt != "2026-04-01T12:00:00Z" || out.Data.ExpiresAt != "2026-04-02T12:00:00Z" || strings.Count(out.Data.Token, ".") != 2 {
		t.Errorf("token result %+v", out.Data)
	}
	if _, err := parseToken(e.s.secret, out.Data.Token); err == nil {
		t.Error("a metadata token verifies as an embed token")
	}
	mustJSON(t, e.expect(200, "POST", path, "ek_admin_all", `{"security_context":{},"expires_in":60}`), &out)
	if out.Data.ExpiresAt != "2026-04-01T12:01:00Z" {
		t.Errorf("expires_at %s", out.Data.ExpiresAt)
	}
	for body, msg := range map[string]string{
		``:                                       "security_context: is required",
		`{"security_context":null}`:              "security_context: is required",
		`{"security_context":[]}`:                "security_context: must be an object",
		`{"security_context":{},"expires_in":0}`: "expires_in",
		`{"security_context":{},"expires_in":"60"}`: "expires_in: must be an integer",
		`{"security_context":{},"scope":"x"}`:       "scope: unknown field",
	} {
		data := e.expect(400, "POST", path, "ek_admin_all", body)
		if !strings.Contains(errorOf(t, data), msg) {
			t.Errorf("%s: %s", body, data)
		}
	}
	e.expect(404, "POST", "/api/v1/deployments/1/environments/env-nope/tokens-for-meta-sync", "ek_admin_all", `{"security_context":{}}`)
}

func TestDataToken(t *testing.T) {
	e := setup(t)
	for body, want := range map[string]int{
		``:                     200,
		`{}`:                   200,
		`{"expiresIn":null}`:   200,
		`{"expiresIn":60}`:     200,
		`{"expiresIn":86400}`:  200,
		`{"expiresIn":59}`:     400,
		`{"expiresIn":86401}`:  400,
		`{"expiresIn":60.5}`:   400,
		`{"expiresIn":"60"}`:   400,
		`{"expires_in":60}`:    400,
		`{"expiresIn":3600.0}`: 200,
	} {
		got, _, data := e.do("POST", "/api/v1/deployments/1/token", "ek_admin_all", body)
		if got != want {
			t.Errorf("%q: status %d, want %d: %s", body, got, want, data)
			continue
		}
		if got == 200 {
			var out map[string]string
			mustJSON(t, data, &out)
			if len(out) != 1 || strings.Count(out["cubeApiToken"], ".") != 2 {
				t.Errorf("response %s", data)
			}
		} else if !strings.Contains(errorOf(t, data), "expires") {
			t.Errorf("message %s", data)
		}
	}
}

func TestVersionsAndSwitch(t *testing.T) {
	current := func(e *env) string {
		var out struct {
			Data []Version `json:"data"`
		}
		mustJSON(t, e.expect(200, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", nil), &out)
		if len(out.Data) != 3 {
			t.Fatalf("versions %+v", out.Data)
		}
		cur := ""
		for _, v := range out.Data {
			if v.IsCurrent {
				cur += v.Version
			}
		}
		return cur
	}
	tests := []struct {
		name    string
		before  string // a PUT sent first, when not empty
		body    string
		status  int
		version string
		channel string
		hold    bool
	}{
		{"semver", "", `{"releaseChannelVersion":"1.3.9"}`, 200, "1.3.9", "release", true},
		{"v-prefixed", "", `{"releaseChannelVersion":"v1.3.9"}`, 200, "1.3.9", "release", true},
		{"image form", "", `{"releaseChannelVersion":"platform/runtime:v1.3.9"}`, 200, "1.3.9", "release", true},
		{"explicit hold wins", "", `{"releaseChannelVersion":"1.3.9","releaseChannelVersionHold":false}`, 200, "1.3.9", "release", false},
		{"latest leaves no hold unset", "", `{"releaseChannelVersion":"1.4.2"}`, 200, "1.4.2", "release", false},
		{"latest leaves a hold set", `{"releaseChannelVersion":"1.3.9"}`, `{"releaseChannelVersion":"1.4.2"}`, 200, "1.4.2", "release", true},
		{"latest with the hold sent", `{"releaseChannelVersion":"1.3.9"}`, `{"releaseChannelVersion":"1.4.2","releaseChannelVersionHold":false}`, 200, "1.4.2", "release", false},
		{"channel only moves to latest", "", `{"releaseChannel":"latest"}`, 200, "1.5.0-rc.1", "latest", false},
		{"channel only keeps a hold", `{"releaseChannelVersion":"1.3.9"}`, `{"releaseChannel":"latest"}`, 200, "1.5.0-rc.1", "latest", true},
		{"version within channel", "", `{"releaseChannel":"release","releaseChannelVersion":"1.3.9"}`, 200, "1.3.9", "release", true},
		{"version not in channel", "", `{"releaseChannel":"latest","releaseChannelVersion":"1.3.9"}`, 400, "", "", false},
		{"unknown version", "", `{"releaseChannelVersion":"9.9.9"}`, 400, "", "", false},
		{"surrounding white space", "", `{"releaseChannelVersion":"  v1.3.9 "}`, 400, "", "", false},
		{"trailing newline", "", `{"releaseChannelVersion":"1.3.9\n"}`, 400, "", "", false},
		{"upper-case V", "", `{"releaseChannelVersion":"V1.3.9"}`, 400, "", "", false},
		{"unknown channel", "", `{"releaseChannel":"nightly"}`, 400, "", "", false},
		{"image not settable", "", `{"runtimeImage":"x"}`, 400, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			want := "1.4.2"
			if tt.before != "" {
				e.expect(200, "PUT", "/api/v1/deployments/1", "ek_admin_all", tt.before)
				want = current(e)
			}
			got, _, data := e.do("PUT", "/api/v1/deployments/1", "ek_admin_all", tt.body)
			if got != tt.status {
				t.Fatalf("status %d: %s", got, data)
			}
			if got != 200 {
				if current(e) != want {
					t.Error("a rejected update changed the version")
				}
				return
			}
			var st deploymentSettings
			mustJSON(t, data, &st)
			if !strings.HasSuffix(st.ReleaseChannelVersion, ":v"+tt.version) || st.ReleaseChannel != tt.channel || st.ReleaseChannelVersionHold != tt.hold || st.ID != 1 || st.Name != "Sales analytics" {
				t.Errorf("settings %+v", st)
			}
			if current(e) != tt.version {
				t.Errorf("current %s", current(e))
			}
		})
	}
}

func TestUpdateDeploymentPartial(t *testing.T) {
	e := setup(t)
	e.expect(200, "PUT", "/api/v1/deployments/1", "ek_admin_all", `{"templateVariables":{"a":1,"b":"x"},"region":"eu-1","launchpadTabs":["home"]}`)
	data := e.expect(200, "PUT", "/api/v1/deployments/1", "ek_admin_all", `{"templateVariables":{"b":"y","c":true}}`)
	var st map[string]any
	mustJSON(t, data, &st)
	if !reflect.DeepEqual(st["templateVariables"], map[string]any{"a": float64(1), "b": "y", "c": true}) {
		t.Errorf("templateVariables %v", st["templateVariables"])
	}
	if st["region"] != "eu-1" || st["releaseChannelVersion"] != "platform/runtime:v1.4.2" || st["cloudProvider"] != nil {
		t.Errorf("settings %v", st)
	}
	// A null value is a value: merged key by key, stored as given.
	data = e.expect(200, "PUT", "/api/v1/deployments/1", "ek_admin_all", `{"templateVariables":{"a":null}}`)
	st = nil
	mustJSON(t, data, &st)
	if !reflect.DeepEqual(st["templateVariables"], map[string]any{"a": nil, "b": "y", "c": true}) {
		t.Errorf("templateVariables after a null value %v", st["templateVariables"])
	}
	e.expect(400, "PUT", "/api/v1/deployments/1", "ek_admin_all", `{"templateVariables":[]}`)
	e.expect(404, "PUT", "/api/v1/deployments/77", "ek_admin_all", `{}`)
}

func TestUpdateDeploymentEnums(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		msg    string
	}{
		{"cloudProvider", `{"cloudProvider":"gcp"}`, 200, ""},
		{"cloudProvider null", `{"cloudProvider":null}`, 200, ""},
		{"cloudProvider unknown", `{"cloudProvider":"azure"}`, 400, "cloudProvider: must be one of cubecloud, aws, gcp"},
		{"cloudProvider case", `{"cloudProvider":"AWS"}`, 400, "cloudProvider: must be one of cubecloud, aws, gcp"},
		{"creationMethod", `{"creationMethod":"ssh"}`, 200, ""},
		{"creationMethod unknown", `{"creationMethod":"ftp"}`, 400, "creationMethod: must be one of upload, cubecloud, github, ssh"},
		{"deployMode", `{"deployMode":"cli"}`, 200, ""},
		{"deployMode unknown", `{"deployMode":"push"}`, 400, "deployMode: must be one of git, cli"},
		{"template", `{"template":"simpleCluster"}`, 200, ""},
		{"template unknown", `{"template":"simplecluster"}`, 400, "template: must be one of single, simpleCluster, multiCluster"},
		{"template empty", `{"template":""}`, 400, "template: must be one of single, simpleCluster, multiCluster"},
		{"one bad field changes nothing", `{"region":"eu-9","deployMode":"svn"}`, 400, "deployMode: must be one of git, cli"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			got, _, data := e.do("PUT", "/api/v1/deployments/1", "ek_admin_all", tt.body)
			if got != tt.status {
				t.Fatalf("status %d: %s", got, data)
			}
			if got != 200 {
				if msg := errorOf(t, data); msg != tt.msg {
					t.Errorf("message %q, want %q", msg, tt.msg)
				}
				var st map[string]any
				mustJSON(t, e.expect(200, "PUT", "/api/v1/deployments/1", "ek_admin_all", `{}`), &st)
				if st["region"] != nil || st["deployMode"] != nil || st["template"] != nil || st["cloudProvider"] != nil || st["creationMethod"] != nil {
					t.Errorf("a rejected update changed the settings: %v", st)
				}
			}
		})
	}
}

func TestStagingEnvironment(t *testing.T) {
	e := setup(t)
	path := "/build/api/v1/deployments/1/branches/staging-environment"
	tests := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"enable by name", `{"enabled":true,"branchName":"q3-metrics"}`, 200, ""},
		{"disable by id", `{"enabled":false,"branchId":2}`, 200, ""},
		{"both", `{"enabled":true,"branchName":"q3-metrics","branchId":2}`, 400, "exactly one of branchName or branchId"},
		{"neither", `{"enabled":true}`, 400, "exactly one"},
		{"enabled missing", `{"branchName":"q3-metrics"}`, 400, "enabled: is required"},
		{"personal", `{"enabled":true,"branchName":"dev-dana"}`, 400, "only shared branches"},
		{"production", `{"enabled":true,"branchId":1}`, 400, "only shared branches"},
		{"unknown name", `{"enabled":true,"branchName":"nope"}`, 404, "not a branch"},
		{"unknown id", `{"enabled":true,"branchId":99}`, 404, "not a branch"},
		{"id type", `{"enabled":true,"branchId":"2"}`, 400, "branchId: must be an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, data := e.do("PUT", path, "ek_admin_all", tt.body)
			if got != tt.status {
				t.Fatalf("status %d: %s", got, data)
			}
			if got != 200 {
				if !strings.Contains(errorOf(t, data), tt.msg) {
					t.Errorf("message %s", data)
				}
				return
			}
			var out struct {
				Data map[string]any `json:"data"`
			}
			mustJSON(t, data, &out)
			enabled := strings.Contains(tt.body, `"enabled":true`)
			if out.Data["id"] != float64(2) || out.Data["name"] != "q3-metrics" || out.Data["parentBranch"] != "main" ||
				out.Data["isStagingEnvironmentEnabled"] != enabled || len(out.Data["lastHash"].(string)) != 40 {
				t.Errorf("branch %v", out.Data)
			}
		})
	}
}

func TestSpecDocument(t *testing.T) {
	e := setup(t)
	_, h, data := e.do("GET", "/api/v1/spec", "ek_admin_all", nil)
	if h.Get("Content-Type") != "application/json" || !json.Valid(data) || string(data) != string(openAPIDocument()) {
		t.Errorf("spec: %s %.80s", h.Get("Content-Type"), data)
	}
}

func TestEveryExpiryReadsTheClock(t *testing.T) {
	e := setup(t)
	now := e.s.Advance(90 * time.Minute)
	if !now.Equal(testEpoch.Add(90 * time.Minute)) {
		t.Fatalf("Advance returned %v", now)
	}
	var out struct {
		Data struct {
			CreatedAt string `json:"created_at"`
		} `json:"data"`
	}
	mustJSON(t, e.expect(200, "POST", "/api/v1/deployments/1/environments/env-prod/tokens-for-meta-sync", "ek_admin_all", `{"security_context":{}}`), &out)
	if out.Data.CreatedAt != "2026-04-01T13:30:00Z" {
		t.Errorf("created_at %s", out.Data.CreatedAt)
	}
}
