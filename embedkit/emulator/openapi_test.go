package emulator

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

var refPattern = regexp.MustCompile(`"#/components/(schemas|responses)/([A-Za-z0-9]+)"`)

func TestOpenAPIDocument(t *testing.T) {
	raw := openAPIDocument()
	if !bytes.Equal(raw, openAPIDocument()) {
		t.Error("two calls return different documents")
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"info"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas   map[string]json.RawMessage `json:"schemas"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" || doc.Info.Title != "Platform Management API (emulator)" {
		t.Errorf("openapi %q, info %+v", doc.OpenAPI, doc.Info)
	}

	ops := map[string][]string{
		"/api/v1/embed/generate-session":                                                       {"post"},
		"/api/v1/embed/session/token":                                                          {"post"},
		"/api/v1/embed/session/revoke":                                                         {"post"},
		"/api/v1/embed-tenants/{embedTenantName}/groups":                                       {"get"},
		"/api/v1/embed-tenants/{embedTenantName}/groups/{id}":                                  {"delete"},
		"/api/v1/deployments":                                                                  {"get"},
		"/api/v1/deployments/{deploymentId}":                                                   {"put"},
		"/api/v1/deployments/{deploymentId}/environments":                                      {"get"},
		"/api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync": {"post"},
		"/api/v1/deployments/{deploymentId}/token":                                             {"post"},
		"/api/v1/deployments/{deploymentId}/versions":                                          {"get"},
		"/build/api/v1/deployments/{deploymentId}/branches/staging-environment":                {"put"},
		"/api/v1/spec":              {"get"},
		"/api/v1/audit-logs/export": {"get"},
		"/api/v1/deployments/{deploymentId}/dashboard-exports":                  {"post"},
		"/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}":          {"get"},
		"/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download": {"get"},
	}
	for path, methods := range ops {
		item, ok := doc.Paths[path]
		if !ok {
			t.Errorf("path %s missing", path)
			continue
		}
		for _, m := range methods {
			if _, ok := item[m]; !ok {
				t.Errorf("%s %s missing", strings.ToUpper(m), path)
			}
		}
	}
	if len(doc.Paths) != len(ops) {
		t.Errorf("%d paths, want %d", len(doc.Paths), len(ops))
	}

	// Every reference resolves.
	for _, m := range refPattern.FindAllSubmatch(raw, -1) {
		kind, name := string(m[1]), string(m[2])
		var ok bool
		switch kind {
		case "schemas":
			_, ok = doc.Components.Schemas[name]
		case "responses":
			_, ok = doc.Components.Responses[name]
		}
		if !ok {
			t.Errorf("dangling reference #/components/%s/%s", kind, name)
		}
	}
}

func TestOpenAPIFieldNames(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := func(name string) map[string]any {
		s, ok := schemas[name].(map[string]any)
		if !ok {
			t.Fatalf("schema %s missing", name)
		}
		return s["properties"].(map[string]any)
	}
	want := map[string][]string{
		"GenerateSession": {"deploymentId", "externalId", "internalId", "email", "userProfile", "embedTenantName",
			"embedTenantProfile", "creatorMode", "groups", "tenantGroups", "tenantGroupDefinitions", "groupDefinitions",
			"userAttributes", "userAttributeDefinitions", "securityContext", "settings", "embedTheme", "isEphemeral",
			"publicDashboardId", "roles", "branchName"},
		"EmbedSessionSettings": {"allowAi", "showDashboardChat", "showWorkbookChat", "showAiWidgets",
			"allowChatWorkspaceAuthoring", "showWorkbookShare", "showDashboardSettings", "showMemberNames",
			"showGroupByCube", "locale", "timezone"},
		"GenerateSessionResponse":               {"sessionId"},
		"PostTokenBySessionIdInput":             {"sessionId"},
		"GenerateEmbedTokenResponse":            {"token"},
		"RevokeEmbedSessionInput":               {"sessionId"},
		"Deployment":                            {"id", "name", "created_at"},
		"Environment":                           {"id", "name", "type", "api_credentials"},
		"CreateDeploymentEnvironmentTokenInput": {"security_context", "expires_in"},
		"DeploymentEnvironmentToken":            {"token", "created_at", "expires_at"},
		"CreateDeploymentTokenInput":            {"expiresIn"},
		"DeploymentTokenResponse":               {"cubeApiToken"},
		"SetBranchStagingEnvironmentRequest":    {"enabled", "branchName", "branchId"},
		"Branch":                                {"id", "name", "parentBranch", "lastHash", "isStagingEnvironmentEnabled"},
		"DeploymentVersion":                     {"releaseChannelVersion", "version", "releaseChannel", "isLatestInChannel", "isCurrent"},
		"StartDashboardExportInput":             {"format", "dashboardId", "dashboardPublicId", "renderAs", "filters", "timeGrains", "memberSwitchers"},
		"DashboardExportJobResponse":            {"jobId", "expiresAt"},
		"DashboardExportStatusResponse":         {"status", "error"},
	}
	for name, fields := range want {
		p := props(name)
		for _, f := range fields {
			if _, ok := p[f]; !ok {
				t.Errorf("%s lacks %s", name, f)
			}
		}
	}
	gen := schemas["GenerateSession"].(map[string]any)
	if req, _ := gen["required"].([]any); len(req) != 1 || req[0] != "deploymentId" {
		t.Errorf("GenerateSession required = %v, want [deploymentId]", gen["required"])
	}
}
