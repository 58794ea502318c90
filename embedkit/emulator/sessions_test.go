package emulator

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAuthMatrix(t *testing.T) {
	e := setup(t)
	gen := `{"deploymentId":1,"externalId":"u1"}`
	gen2 := `{"deploymentId":2,"externalId":"u1"}`
	revoke := `{"sessionId":"00000000000000000000000000000000"}`
	tests := []struct {
		name, method, path, cred string
		body                     any
		want                     int
		msg                      string
	}{
		{"generate no credential", "POST", "/api/v1/embed/generate-session", "", gen, 401, "missing credential"},
		{"generate unknown key", "POST", "/api/v1/embed/generate-session", "ek_nope", gen, 401, "invalid credential"},
		{"generate malformed scheme", "POST", "/api/v1/embed/generate-session", "Basic ek_admin_all", gen, 401, "malformed"},
		{"generate bare key", "POST", "/api/v1/embed/generate-session", "ek_admin_all ", gen, 401, "malformed"},
		{"generate Bearer", "POST", "/api/v1/embed/generate-session", "Bearer ek_admin_all", gen, 200, ""},
		{"generate Api-Key", "POST", "/api/v1/embed/generate-session", "Api-Key ek_admin_all", gen, 200, ""},
		{"generate scheme case-insensitive", "POST", "/api/v1/embed/generate-session", "api-key ek_admin_all", gen, 200, ""},
		{"generate inactive user", "POST", "/api/v1/embed/generate-session", "ek_gone", gen, 401, "deactivated"},
		{"generate non-admin", "POST", "/api/v1/embed/generate-session", "ek_dana", gen, 403, "admin"},
		{"generate personal key", "POST", "/api/v1/embed/generate-session", "ek_personal", gen, 403, ""},
		{"generate personal key of admin", "POST", "/api/v1/embed/generate-session", "ek_admin_personal", gen, 403, "personal"},
		{"generate scoped key in scope", "POST", "/api/v1/embed/generate-session", "ek_admin_d1", gen, 200, ""},
		{"generate scoped key out of scope", "POST", "/api/v1/embed/generate-session", "ek_admin_d1", gen2, 403, "not scoped to deployment 2"},
		{"generate unknown deployment", "POST", "/api/v1/embed/generate-session", "ek_admin_all", `{"deploymentId":99,"externalId":"u1"}`, 404, "deployment 99 not found"},
		{"revoke no credential", "POST", "/api/v1/embed/session/revoke", "", revoke, 401, ""},
		{"revoke Api-Key", "POST", "/api/v1/embed/session/revoke", "Api-Key ek_admin_all", revoke, 204, ""},
		{"revoke scoped key not scope-checked", "POST", "/api/v1/embed/session/revoke", "ek_admin_d2", revoke, 204, ""},
		{"revoke non-admin", "POST", "/api/v1/embed/session/revoke", "ek_dana", revoke, 403, ""},
		{"list deployments Bearer", "GET", "/api/v1/deployments", "ek_admin_all", nil, 200, ""},
		{"list deployments Api-Key refused", "GET", "/api/v1/deployments", "Api-Key ek_admin_all", nil, 401, "malformed"},
		{"list deployments none", "GET", "/api/v1/deployments", "", nil, 401, ""},
		{"environments out of scope", "GET", "/api/v1/deployments/2/environments", "ek_admin_d1", nil, 403, ""},
		{"environments in scope", "GET", "/api/v1/deployments/1/environments", "ek_admin_d1", nil, 200, ""},
		{"environments unknown deployment", "GET", "/api/v1/deployments/42/environments", "ek_admin_all", nil, 404, ""},
		{"versions out of scope", "GET", "/api/v1/deployments/1/versions", "ek_admin_d2", nil, 403, ""},
		{"data token out of scope", "POST", "/api/v1/deployments/1/token", "ek_admin_d2", nil, 403, ""},
		{"build prefix Bearer", "PUT", "/build/api/v1/deployments/1/branches/staging-environment", "ek_admin_all", `{"enabled":false,"branchName":"q3-metrics"}`, 200, ""},
		{"build prefix out of scope", "PUT", "/build/api/v1/deployments/1/branches/staging-environment", "ek_admin_d2", `{"enabled":false,"branchName":"q3-metrics"}`, 403, ""},
		{"audit without permission", "GET", "/api/v1/audit-logs/export", "ek_ops", nil, 403, "AuditLogManage"},
		{"tenant groups non-admin", "GET", "/api/v1/embed-tenants/globex/groups", "ek_dana", nil, 403, ""},
		{"spec", "GET", "/api/v1/spec", "ek_dana", nil, 200, ""},
		{"spec no credential", "GET", "/api/v1/spec", "", nil, 401, ""},
		{"exchange needs no credential", "POST", "/api/v1/embed/session/token", "", `{"sessionId":"nope"}`, 401, "session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, h, data := e.do(tt.method, tt.path, tt.cred, tt.body)
			if got != tt.want {
				t.Fatalf("status %d, want %d: %s", got, tt.want, data)
			}
			if got >= 400 {
				if ct := h.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if msg := errorOf(t, data); !strings.Contains(msg, tt.msg) {
					t.Errorf("error %q does not contain %q", msg, tt.msg)
				}
			}
		})
	}
}

func TestEmbeddingDisabled(t *testing.T) {
	e := setup(t, strings.Replace(testFixture, `"embedding":true`, `"embedding":false`, 1))
	data := e.expect(403, "POST", "/api/v1/embed/generate-session", "ek_admin_all", `{"deploymentId":1,"externalId":"u"}`)
	if !strings.Contains(errorOf(t, data), "embedding is not enabled") {
		t.Errorf("message %s", data)
	}
	e.expect(403, "POST", "/api/v1/embed/session/revoke", "ek_admin_all", `{"sessionId":"x"}`)
}

func TestGenerateSessionValidation(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int
		msg  string
	}{
		{"empty body", ``, 400, "deploymentId: is required"},
		{"null deploymentId", `{"deploymentId":null,"externalId":"u"}`, 400, "deploymentId: is required"},
		{"string deploymentId", `{"deploymentId":"1","externalId":"u"}`, 400, "deploymentId: must be a number"},
		{"fractional deploymentId", `{"deploymentId":1.5,"externalId":"u"}`, 400, "deploymentId: must be a positive integer"},
		{"zero deploymentId", `{"deploymentId":0,"externalId":"u"}`, 400, "deploymentId: must be a positive integer"},
		{"float deploymentId accepted", `{"deploymentId":1.0,"externalId":"u"}`, 200, ""},
		{"not JSON", `{"deploymentId":`, 400, "not valid JSON"},
		{"array body", `[1]`, 400, "must be a JSON object"},
		{"trailing data", `{"deploymentId":1,"externalId":"u"} {}`, 400, "not valid JSON"},
		{"unknown field", `{"deploymentId":1,"externalId":"u","ephemeralTtlSeconds":5}`, 400, "ephemeralTtlSeconds: unknown field"},
		{"field names are case-sensitive", `{"DeploymentId":1,"externalId":"u"}`, 400, "DeploymentId: unknown field"},
		{"neither id", `{"deploymentId":1}`, 400, "exactly one of externalId or internalId"},
		{"both ids", `{"deploymentId":1,"externalId":"u","internalId":"admin"}`, 400, "exactly one of externalId or internalId"},
		{"null externalId is omitted", `{"deploymentId":1,"externalId":null,"internalId":"admin"}`, 200, ""},
		{"uppercase externalId", `{"deploymentId":1,"externalId":"User-1"}`, 400, "externalId: must be lowercase"},
		{"untrimmed externalId", `{"deploymentId":1,"externalId":" u1"}`, 400, "externalId: must be trimmed"},
		{"empty externalId", `{"deploymentId":1,"externalId":""}`, 400, "externalId: must not be empty"},
		{"externalId type", `{"deploymentId":1,"externalId":42}`, 400, "externalId: must be a string"},
		{"unknown internalId", `{"deploymentId":1,"internalId":"nobody"}`, 400, `internalId: user "nobody" not found`},
		{"inactive internalId", `{"deploymentId":1,"internalId":"gone"}`, 400, "internalId"},
		{"internalId with groups", `{"deploymentId":1,"internalId":"admin","groups":["sales"]}`, 400, "groups: not allowed with internalId"},
		{"internalId with userAttributes", `{"deploymentId":1,"internalId":"admin","userAttributes":[]}`, 400, "userAttributes: not allowed with internalId"},
		{"internalId with groupDefinitions", `{"deploymentId":1,"internalId":"admin","groupDefinitions":[{"name":"x"}]}`, 400, "groupDefinitions: not allowed"},
		{"internalId with userAttributeDefinitions", `{"deploymentId":1,"internalId":"admin","creatorMode":true,"userAttributeDefinitions":[{"name":"x","type":"string"}]}`, 400, "userAttributeDefinitions: not allowed"},
		{"internalId with securityContext", `{"deploymentId":1,"internalId":"admin","securityContext":{}}`, 400, "securityContext: not allowed"},
		{"internalId with userProfile", `{"deploymentId":1,"internalId":"admin","userProfile":{}}`, 400, "userProfile: not allowed"},
		{"internalId with null groups", `{"deploymentId":1,"internalId":"admin","groups":null,"securityContext":null}`, 200, ""},
		{"tenant name too long", `{"deploymentId":1,"externalId":"u","embedTenantName":"a` + strings.Repeat("b", 36) + `"}`, 400, "embedTenantName: must match"},
		{"tenant name uppercase", `{"deploymentId":1,"externalId":"u","embedTenantName":"Acme"}`, 400, "embedTenantName"},
		{"tenant name trailing dash", `{"deploymentId":1,"externalId":"u","embedTenantName":"acme-"}`, 400, "embedTenantName"},
		{"tenant name two chars", `{"deploymentId":1,"externalId":"u","embedTenantName":"ab"}`, 200, ""},
		{"tenantGroups without creatorMode", `{"deploymentId":1,"externalId":"u","embedTenantName":"globex","tenantGroups":["g1"]}`, 400, "tenantGroups: requires creatorMode"},
		{"tenantGroups without tenant", `{"deploymentId":1,"externalId":"u","creatorMode":true,"tenantGroups":["g1"]}`, 400, "tenantGroups: requires"},
		{"tenantGroupDefinitions without tenant", `{"deploymentId":1,"externalId":"u","creatorMode":true,"tenantGroupDefinitions":[{"name":"x"}]}`, 400, "tenantGroupDefinitions: requires"},
		{"attribute definitions without creatorMode", `{"deploymentId":1,"externalId":"u","userAttributeDefinitions":[{"name":"x","type":"string"}]}`, 400, "userAttributeDefinitions: requires creatorMode"},
		{"attribute definition bad type", `{"deploymentId":1,"externalId":"u","creatorMode":true,"userAttributeDefinitions":[{"name":"x","type":"date"}]}`, 400, "userAttributeDefinitions[0].type: must be one of"},
		{"attribute definition missing type", `{"deploymentId":1,"externalId":"u","creatorMode":true,"userAttributeDefinitions":[{"name":"x"}]}`, 400, "userAttributeDefinitions[0].type: is required"},
		{"attribute definition duplicate", `{"deploymentId":1,"externalId":"u","creatorMode":true,"userAttributeDefinitions":[{"name":"x","type":"string"},{"name":"x","type":"string"}]}`, 400, `userAttributeDefinitions: duplicate name "x"`},
		{"tenant group definition duplicate", `{"deploymentId":1,"externalId":"u","creatorMode":true,"embedTenantName":"globex","tenantGroupDefinitions":[{"name":"x"},{"name":"x"}]}`, 400, `tenantGroupDefinitions: duplicate name "x"`},
		{"duplicate attribute values", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"region","value":"a"},{"name":"region","value":"b"}]}`, 400, `userAttributes: duplicate name "region"`},
		{"attribute without name", `{"deploymentId":1,"externalId":"u","userAttributes":[{"value":"a"}]}`, 400, "userAttributes[0].name: is required"},
		{"unknown attribute", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"shoe","value":"a"}]}`, 400, "User attributes not found"},
		{"attribute type mismatch", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"quota","value":"ten"}]}`, 400, `userAttributes[0].value: attribute "quota" has type number`},
		{"attribute mixed array", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"tags","value":["a",1]}]}`, 400, "userAttributes[0].value: must be"},
		{"attribute object value", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"region","value":{}}]}`, 400, "userAttributes[0].value: must be"},
		{"attribute string array", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"tags","value":["a","b"]}]}`, 200, ""},
		{"attribute null clears", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"quota","value":null}]}`, 200, ""},
		{"unknown groups", `{"deploymentId":1,"externalId":"u","groups":["sales","ghosts","zombies","ghosts"]}`, 400, "Groups with names ghosts, zombies not found"},
		{"empty group name", `{"deploymentId":1,"externalId":"u","groups":[""]}`, 400, "groups[0]: must not be empty"},
		{"null group element", `{"deploymentId":1,"externalId":"u","groups":[null]}`, 400, "groups[0]: must be a string"},
		{"groups not array", `{"deploymentId":1,"externalId":"u","groups":"sales"}`, 400, "groups: must be an array"},
		{"unknown tenant group", `{"deploymentId":1,"externalId":"u","creatorMode":true,"embedTenantName":"globex","tenantGroups":["g1","nope"]}`, 400, "Groups with names nope not found"},
		{"tenant group defined in request", `{"deploymentId":1,"externalId":"u","creatorMode":true,"embedTenantName":"globex","tenantGroups":["new"],"tenantGroupDefinitions":[{"name":"new"}]}`, 200, ""},
		{"picture relative", `{"deploymentId":1,"externalId":"u","userProfile":{"picture":"/me.png"}}`, 400, "userProfile.picture: must be an absolute"},
		{"picture ftp", `{"deploymentId":1,"externalId":"u","userProfile":{"picture":"ftp://x.test/a.png"}}`, 400, "userProfile.picture"},
		{"picture https", `{"deploymentId":1,"externalId":"u","userProfile":{"picture":"https://img.test/a.png","displayName":"U"}}`, 200, ""},
		{"profile unknown key", `{"deploymentId":1,"externalId":"u","userProfile":{"avatar":"x"}}`, 400, "userProfile.avatar: unknown field"},
		{"settings unknown key", `{"deploymentId":1,"externalId":"u","settings":{"showDashboardHeader":false}}`, 400, "settings.showDashboardHeader: unknown field"},
		{"settings wrong type", `{"deploymentId":1,"externalId":"u","settings":{"allowAi":"no"}}`, 400, "settings.allowAi: must be a boolean"},
		{"settings locale type", `{"deploymentId":1,"externalId":"u","settings":{"locale":1}}`, 400, "settings.locale: must be a string"},
		{"settings unshipped locale accepted", `{"deploymentId":1,"externalId":"u","settings":{"locale":"xx-YY","timezone":"+02:00","allowAi":null}}`, 200, ""},
		{"theme unknown key", `{"deploymentId":1,"externalId":"u","embedTheme":{"borderRadius":"4px"}}`, 400, "embedTheme.borderRadius: unknown field"},
		{"theme nested", `{"deploymentId":1,"externalId":"u","embedTheme":{"analyticsChat":{"chatInput":{"borderColor":1}}}}`, 400, "embedTheme.analyticsChat.chatInput.borderColor: must be a string"},
		{"securityContext not object", `{"deploymentId":1,"externalId":"u","securityContext":[1]}`, 400, "securityContext: must be an object"},
		{"creator mode with tenant flag", `{"deploymentId":1,"externalId":"u","creatorMode":true}`, 200, ""},
		{"groupDefinitions accepted and ignored", `{"deploymentId":1,"externalId":"u","groupDefinitions":[{"name":"brand-new"}]}`, 200, ""},
		{"undocumented fields accepted", `{"deploymentId":1,"externalId":"u","isEphemeral":true,"publicDashboardId":"sales-overview","roles":["viewer"],"email":"u@x.test","embedTenantProfile":{"displayName":"Acme"}}`, 200, ""},
		{"roles type", `{"deploymentId":1,"externalId":"u","roles":[1]}`, 400, "roles[0]: must be a string"},
		{"branch unknown", `{"deploymentId":1,"externalId":"u","branchName":"nope"}`, 404, `branchName: "nope" is not a branch`},
		{"branch not served", `{"deploymentId":1,"externalId":"u","branchName":"q3-metrics"}`, 400, "not served"},
		{"branch personal served", `{"deploymentId":1,"externalId":"u","branchName":"dev-dana"}`, 200, ""},
		{"branch production", `{"deploymentId":1,"externalId":"u","branchName":"main"}`, 200, ""},
	}
	e := setup(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, data := e.do("POST", "/api/v1/embed/generate-session", "ek_admin_all", tt.body)
			if got != tt.want {
				t.Fatalf("status %d, want %d: %s", got, tt.want, data)
			}
			if tt.want != 200 {
				if msg := errorOf(t, data); !strings.Contains(msg, tt.msg) {
					t.Errorf("error %q does not contain %q", msg, tt.msg)
				}
			}
		})
	}
}

func TestGenerateSessionExactMessages(t *testing.T) {
	e := setup(t)
	cases := map[string]string{
		`{"deploymentId":1,"externalId":"u","groups":["ghosts","zombies"]}`:                  "Groups with names ghosts, zombies not found",
		`{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"shoe","value":"x"}]}`: "User attributes not found",
	}
	for body, want := range cases {
		data := e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all", body)
		if got := errorOf(t, data); got != want {
			t.Errorf("error %q, want %q", got, want)
		}
	}
}

func TestSessionIDFormat(t *testing.T) {
	e := setup(t)
	re := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for i := range 20 {
		id := e.generate(fmt.Sprintf(`{"deploymentId":1,"externalId":"u%d"}`, i))
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("session id %q (duplicate: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

func TestTokenClaims(t *testing.T) {
	e := setup(t)
	id := e.generate(`{"deploymentId":1,"externalId":"viewer-1","email":"v@x.test","groups":["sales","emea"],
		"userAttributes":[{"name":"region","value":"EMEA"},{"name":"quota","value":12.5}],
		"securityContext":{"tenant_id":7,"platformCloud":{"keep":true,"groups":["forged"]}},
		"userProfile":{"displayName":"Viewer One","picture":"https://img.test/v.png"},
		"settings":{"allowAi":false,"locale":"de-DE","showMemberNames":null},
		"embedTheme":{"primaryColor":"#123456","chat":{"inputColor":"#fff"}},
		"branchName":"dev-dana"}`)
	_, c := e.exchange(id)
	if c.ExternalID != "viewer-1" || c.Subject != "viewer-1" || c.DeploymentID != 1 || c.Email != "v@x.test" {
		t.Errorf("identity claims: %+v", c)
	}
	if c.IssuedAt != testEpoch.Unix() || c.ExpiresAt != testEpoch.Add(24*time.Hour).Unix() {
		t.Errorf("iat %d exp %d", c.IssuedAt, c.ExpiresAt)
	}
	if !c.Revocable || c.ID == "" {
		t.Errorf("rvk %v jti %q", c.Revocable, c.ID)
	}
	if c.SecurityContext["tenant_id"] != float64(7) {
		t.Errorf("security context %v", c.SecurityContext)
	}
	pc := c.SecurityContext["platformCloud"].(map[string]any)
	if !reflect.DeepEqual(pc["groups"], []any{"sales", "emea"}) || pc["keep"] != true {
		t.Errorf("platformCloud %v", pc)
	}
	if !reflect.DeepEqual(c.Attributes, map[string]any{"region": "EMEA", "quota": 12.5}) {
		t.Errorf("attributes %v", c.Attributes)
	}
	if !reflect.DeepEqual(c.Settings, map[string]any{"allowAi": false, "locale": "de-DE"}) {
		t.Errorf("settings %v", c.Settings)
	}
	if !reflect.DeepEqual(c.Theme, map[string]any{"primaryColor": "#123456", "chat": map[string]any{"inputColor": "#fff"}}) {
		t.Errorf("theme %v", c.Theme)
	}
	if c.DisplayName != "Viewer One" || c.Picture != "https://img.test/v.png" || c.BranchName != "dev-dana" || c.Tenant != "acme" {
		t.Errorf("profile/branch/tenant claims: %+v", c)
	}

	// Production branch by name queries production: no branch claim.
	_, c = e.exchange(e.generate(`{"deploymentId":1,"externalId":"viewer-1","branchName":"main"}`))
	if c.BranchName != "" {
		t.Errorf("production branch claim %q", c.BranchName)
	}
	// Internal user.
	_, c = e.exchange(e.generate(`{"deploymentId":1,"internalId":"dana"}`))
	if c.InternalID != "dana" || c.ExternalID != "" || c.Email != "dana@acme.test" {
		t.Errorf("internal claims %+v", c)
	}
}

func groupsOf(t *testing.T, c *tokenClaims) []any {
	t.Helper()
	pc, _ := c.SecurityContext["platformCloud"].(map[string]any)
	g, _ := pc["groups"].([]any)
	return g
}

func TestGroupsReplaceKeepClear(t *testing.T) {
	e := setup(t)
	steps := []struct {
		body string
		want []any
	}{
		{`{"deploymentId":1,"externalId":"g-user","groups":["sales","emea"]}`, []any{"sales", "emea"}},
		{`{"deploymentId":1,"externalId":"g-user"}`, []any{"sales", "emea"}},
		{`{"deploymentId":1,"externalId":"g-user","groups":null}`, []any{"sales", "emea"}},
		{`{"deploymentId":1,"externalId":"g-user","groups":["emea"]}`, []any{"emea"}},
		{`{"deploymentId":1,"externalId":"g-user","groups":["ghost"]}`, nil}, // rejected: memberships unchanged
		{`{"deploymentId":1,"externalId":"g-user"}`, []any{"emea"}},
		{`{"deploymentId":1,"externalId":"g-user","groups":[]}`, []any{}},
		{`{"deploymentId":1,"externalId":"g-user"}`, []any{}},
	}
	for i, st := range steps {
		if st.want == nil {
			e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all", st.body)
			continue
		}
		_, c := e.exchange(e.generate(st.body))
		if got := groupsOf(t, c); !reflect.DeepEqual(got, st.want) {
			t.Errorf("step %d: groups %v, want %v", i, got, st.want)
		}
	}
}

func TestAttributesAndProfilePersist(t *testing.T) {
	e := setup(t)
	_, c := e.exchange(e.generate(`{"deploymentId":1,"externalId":"p","userAttributes":[{"name":"region","value":"EMEA"},{"name":"quota","value":3}],"userProfile":{"displayName":"Pat","picture":"https://img.test/p.png"}}`))
	if !reflect.DeepEqual(c.Attributes, map[string]any{"region": "EMEA", "quota": float64(3)}) {
		t.Fatalf("attributes %v", c.Attributes)
	}
	// Overwrite one, clear one; profile: overwrite displayName only.
	_, c = e.exchange(e.generate(`{"deploymentId":1,"externalId":"p","userAttributes":[{"name":"region","value":"AMER"},{"name":"quota","value":null}],"userProfile":{"displayName":"Patricia"}}`))
	if !reflect.DeepEqual(c.Attributes, map[string]any{"region": "AMER"}) {
		t.Errorf("attributes %v", c.Attributes)
	}
	if c.DisplayName != "Patricia" || c.Picture != "https://img.test/p.png" {
		t.Errorf("profile %q %q", c.DisplayName, c.Picture)
	}
	// Omitted: preserved.
	_, c = e.exchange(e.generate(`{"deploymentId":1,"externalId":"p"}`))
	if c.DisplayName != "Patricia" || !reflect.DeepEqual(c.Attributes, map[string]any{"region": "AMER"}) {
		t.Errorf("after omission: %q %v", c.DisplayName, c.Attributes)
	}
}

func TestCreatorModeCatalogs(t *testing.T) {
	e := setup(t)
	body := `{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech",
		"tenantGroupDefinitions":[{"name":"editors","description":"Can edit"}],"tenantGroups":["editors"],
		"userAttributeDefinitions":[{"name":"plan","type":"string","displayName":"Plan"}],
		"userAttributes":[{"name":"plan","value":"gold"}],"groups":["sales"]}`
	_, c := e.exchange(e.generate(body))
	if !c.CreatorMode || c.Tenant != "initech" {
		t.Errorf("creatorMode %v tenant %q", c.CreatorMode, c.Tenant)
	}
	if got := groupsOf(t, c); !reflect.DeepEqual(got, []any{"sales", "system:tenant:initech:group:editors"}) {
		t.Errorf("groups %v", got)
	}
	if c.Attributes["plan"] != "gold" {
		t.Errorf("attributes %v", c.Attributes)
	}
	// Idempotent: same request again.
	e.generate(body)
	// Tenant-wide attribute names do not resolve in creator mode.
	data := e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all",
		`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","userAttributes":[{"name":"region","value":"x"}]}`)
	if errorOf(t, data) != "User attributes not found" {
		t.Errorf("message %s", data)
	}
	// Type change: rejected with the exact message, nothing upserted.
	data = e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all",
		`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","userAttributeDefinitions":[{"name":"new-one","type":"string"},{"name":"plan","type":"number"}]}`)
	if errorOf(t, data) != "cannot change type" {
		t.Errorf("message %s", data)
	}
	e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all",
		`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","userAttributes":[{"name":"new-one","value":"x"}]}`)
	// Description updated when supplied and different, never cleared.
	e.generate(`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","tenantGroupDefinitions":[{"name":"editors"}]}`)
	data = e.expect(200, "GET", "/api/v1/embed-tenants/initech/groups", "ek_admin_all", nil)
	if !strings.Contains(string(data), `"description":"Can edit"`) {
		t.Errorf("description cleared: %s", data)
	}
	e.generate(`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","tenantGroupDefinitions":[{"name":"editors","description":"Edits"}]}`)
	data = e.expect(200, "GET", "/api/v1/embed-tenants/initech/groups", "ek_admin_all", nil)
	if !strings.Contains(string(data), `"description":"Edits"`) {
		t.Errorf("description not updated: %s", data)
	}
	// An empty description is not a new one: never cleared (rule 7).
	e.generate(`{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"initech","tenantGroupDefinitions":[{"name":"editors","description":""}]}`)
	data = e.expect(200, "GET", "/api/v1/embed-tenants/initech/groups", "ek_admin_all", nil)
	if !strings.Contains(string(data), `"description":"Edits"`) {
		t.Errorf("empty description cleared it: %s", data)
	}
	// Creator mode off for the tenant.
	e2 := setup(t, strings.Replace(testFixture, `"creatorMode":true`, `"creatorMode":false`, 1))
	data = e2.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all", `{"deploymentId":1,"externalId":"c","creatorMode":true}`)
	if !strings.Contains(errorOf(t, data), "creatorMode") {
		t.Errorf("message %s", data)
	}
}

func TestBranchServedByStaging(t *testing.T) {
	e := setup(t)
	body := `{"deploymentId":1,"externalId":"u","branchName":"q3-metrics"}`
	e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all", body)
	e.expect(200, "PUT", "/build/api/v1/deployments/1/branches/staging-environment", "ek_admin_all", `{"enabled":true,"branchName":"q3-metrics"}`)
	_, c := e.exchange(e.generate(body))
	if c.BranchName != "q3-metrics" {
		t.Errorf("branch claim %q", c.BranchName)
	}
}

func TestExternalUserLimit(t *testing.T) {
	e := setup(t, strings.Replace(testFixture, `"maxExternalUsers":10000`, `"maxExternalUsers":2`, 1))
	e.generate(`{"deploymentId":1,"externalId":"a"}`)
	e.generate(`{"deploymentId":1,"externalId":"b"}`)
	e.generate(`{"deploymentId":1,"externalId":"a"}`) // existing user: fine
	data := e.expect(400, "POST", "/api/v1/embed/generate-session", "ek_admin_all", `{"deploymentId":1,"externalId":"c"}`)
	if !strings.Contains(errorOf(t, data), "limit of 2 external users") {
		t.Errorf("message %s", data)
	}
	e.generate(`{"deploymentId":1,"internalId":"admin"}`) // internal users do not count
}

func TestSessionStateTable(t *testing.T) {
	e := setup(t)
	state := func(id string) string {
		for _, si := range e.s.Sessions() {
			if si.SessionID == id {
				return si.State
			}
		}
		return "(none)"
	}
	exchangeStatus := func(id string) int {
		got, _, _ := e.do("POST", "/api/v1/embed/session/token", "", `{"sessionId":"`+id+`"}`)
		return got
	}
	revoke := func(id string) {
		e.expect(204, "POST", "/api/v1/embed/session/revoke", "ek_admin_all", `{"sessionId":"`+id+`"}`)
	}

	// Exchange just before the window closes works, once.
	a := e.generate(`{"deploymentId":1,"externalId":"s"}`)
	if state(a) != stateUnexchanged {
		t.Fatalf("state %s", state(a))
	}
	e.s.Advance(sessionWindow - time.Nanosecond)
	if got := exchangeStatus(a); got != 200 {
		t.Fatalf("exchange at 5m-1ns: %d", got)
	}
	if state(a) != stateExchanged {
		t.Fatalf("state %s", state(a))
	}
	if got := exchangeStatus(a); got != 401 {
		t.Fatalf("second exchange: %d", got)
	}

	// At exactly 5 minutes the id is expired.
	b := e.generate(`{"deploymentId":1,"externalId":"s"}`)
	e.s.Advance(sessionWindow)
	if state(b) != stateExpired || exchangeStatus(b) != 401 {
		t.Fatalf("at 5m: state %s", state(b))
	}
	revoke(b) // expired: 204, unchanged
	if state(b) != stateExpired {
		t.Fatalf("revoked expired: %s", state(b))
	}

	// Revoke of an unexchanged id.
	c := e.generate(`{"deploymentId":1,"externalId":"s"}`)
	revoke(c)
	if state(c) != stateRevoked || exchangeStatus(c) != 401 {
		t.Fatalf("revoked unexchanged: %s", state(c))
	}
	revoke(c) // already revoked: 204

	// Revoke of an exchanged id whose token has the claim.
	d := e.generate(`{"deploymentId":1,"externalId":"s"}`)
	tok, claims := e.exchange(d)
	if e.s.tokenRevoked(claims.ID) {
		t.Fatal("revoked before revoke")
	}
	revoke(d)
	if state(d) != stateRevoked || !e.s.tokenRevoked(claims.ID) {
		t.Fatalf("revoked exchanged: state %s", state(d))
	}
	// The revoked token is rejected as a credential with 401.
	got, _, data := e.do("POST", "/api/v1/embed/session/revoke", "Bearer "+tok, `{"sessionId":"x"}`)
	if got != 401 || !strings.Contains(errorOf(t, data), "revoked") {
		t.Fatalf("revoked token as credential: %d %s", got, data)
	}

	// Unknown ids.
	revoke("ffffffffffffffffffffffffffffffff")
	revoke("not-even-hex")
	e.expect(400, "POST", "/api/v1/embed/session/revoke", "ek_admin_all", `{}`)
	e.expect(400, "POST", "/api/v1/embed/session/token", "", `{}`)
}

func TestRevokeWithoutRevocationClaim(t *testing.T) {
	e := setup(t, strings.Replace(testFixture, `"revocationClaim":true`, `"revocationClaim":false`, 1))
	id := e.generate(`{"deploymentId":1,"externalId":"old"}`)
	_, c := e.exchange(id)
	if c.Revocable {
		t.Fatal("token carries rvk")
	}
	e.expect(204, "POST", "/api/v1/embed/session/revoke", "ek_admin_all", `{"sessionId":"`+id+`"}`)
	if e.s.tokenRevoked(c.ID) {
		t.Error("token without the claim was revoked")
	}
	if st := e.s.Sessions()[0].State; st != stateExchanged {
		t.Errorf("state %s, want exchanged", st)
	}
}

func TestRevokeWithEmbedToken(t *testing.T) {
	e := setup(t)
	adminTok, _ := e.exchange(e.generate(`{"deploymentId":1,"internalId":"admin"}`))
	danaTok, _ := e.exchange(e.generate(`{"deploymentId":1,"internalId":"dana"}`))
	extTok, _ := e.exchange(e.generate(`{"deploymentId":1,"externalId":"x"}`))
	target := e.generate(`{"deploymentId":1,"externalId":"x"}`)
	e.expect(403, "POST", "/api/v1/embed/session/revoke", "Bearer "+danaTok, `{"sessionId":"`+target+`"}`)
	e.expect(403, "POST", "/api/v1/embed/session/revoke", "Bearer "+extTok, `{"sessionId":"`+target+`"}`)
	e.expect(204, "POST", "/api/v1/embed/session/revoke", "Bearer "+adminTok, `{"sessionId":"`+target+`"}`)
	// Embed tokens are not API keys elsewhere; data tokens are not embed tokens.
	e.expect(401, "GET", "/api/v1/deployments", "Bearer "+adminTok, nil)
	e.s.Advance(24 * time.Hour)
	e.expect(401, "POST", "/api/v1/embed/session/revoke", "Bearer "+adminTok, `{"sessionId":"`+target+`"}`)
}

func TestConcurrentExchangeSingleUse(t *testing.T) {
	e := setup(t)
	id := e.generate(`{"deploymentId":1,"externalId":"race"}`)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", e.ts.URL+"/api/v1/embed/session/token", strings.NewReader(`{"sessionId":"`+id+`"}`))
			resp, err := e.ts.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 1 || codes[401] != 99 {
		t.Fatalf("status counts %v, want one 200 and 99 401", codes)
	}
}

func TestConcurrentClients(t *testing.T) {
	e := setup(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				body := fmt.Sprintf(`{"deploymentId":1,"externalId":"c%d-%d","groups":["sales"]}`, i, j)
				req, _ := http.NewRequest("POST", e.ts.URL+"/api/v1/embed/generate-session", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer ek_admin_all")
				resp, err := e.ts.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("status %d", resp.StatusCode)
				}
				_ = e.s.Sessions()
				_ = e.s.Requests()
			}
		}()
	}
	wg.Wait()
	if n := len(e.s.Sessions()); n != 200 {
		t.Errorf("%d sessions", n)
	}
}

func TestSweepDropsStaleSessions(t *testing.T) {
	e := setup(t)
	e.generate(`{"deploymentId":1,"externalId":"old"}`)
	e.s.Advance(sessionWindow + embedTokenLifetime + time.Minute)
	e.generate(`{"deploymentId":1,"externalId":"new"}`)
	ss := e.s.Sessions()
	if len(ss) != 1 || ss[0].ExternalID != "new" {
		t.Fatalf("sessions after sweep: %+v", ss)
	}
}

// TestTenantScopedUserState holds rules 7 and 8 for one external user who
// signs in to several embed tenants: a session carries the tenant-group
// memberships of its own embed tenant and the attribute values of the
// catalog it resolves against (the embed tenant's own in creator mode, the
// tenant-wide one otherwise), never another's.
func TestTenantScopedUserState(t *testing.T) {
	const (
		creatorA = `{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a",
			"tenantGroupDefinitions":[{"name":"admins"}],"tenantGroups":["admins"],
			"userAttributeDefinitions":[{"name":"secret-tier","type":"string"}],
			"userAttributes":[{"name":"secret-tier","value":"gold"}]}`
		creatorB = `{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-b",
			"tenantGroupDefinitions":[{"name":"admins"},{"name":"editors"}],"tenantGroups":["admins","editors"]}`
		tenantWide    = `{"deploymentId":1,"externalId":"kate","userAttributes":[{"name":"region","value":"EMEA"}]}`
		deleteAdminsA = "delete tenant-a admins"
	)
	tests := []struct {
		name      string
		steps     []string
		last      string
		wantGroup []any
		wantAttrs map[string]any
	}{
		{"non-creator after creator", []string{creatorA},
			`{"deploymentId":1,"externalId":"kate"}`, []any{}, nil},
		{"second tenant, not in creator mode", []string{creatorA},
			`{"deploymentId":1,"externalId":"kate","embedTenantName":"tenant-b"}`, []any{}, nil},
		{"second tenant in creator mode", []string{creatorA},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-b"}`, []any{}, nil},
		{"same tenant again", []string{creatorA},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a"}`,
			[]any{"system:tenant:tenant-a:group:admins"}, map[string]any{"secret-tier": "gold"}},
		{"another tenant's memberships do not replace these", []string{creatorA, creatorB},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a"}`,
			[]any{"system:tenant:tenant-a:group:admins"}, map[string]any{"secret-tier": "gold"}},
		{"each tenant its own", []string{creatorA, creatorB},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-b"}`,
			[]any{"system:tenant:tenant-b:group:admins", "system:tenant:tenant-b:group:editors"}, nil},
		{"tenant-wide values stay out of creator sessions", []string{tenantWide, creatorA},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a"}`,
			[]any{"system:tenant:tenant-a:group:admins"}, map[string]any{"secret-tier": "gold"}},
		{"tenant-wide values persist beside creator ones", []string{tenantWide, creatorA},
			`{"deploymentId":1,"externalId":"kate","embedTenantName":"tenant-a"}`,
			[]any{"system:tenant:tenant-a:group:admins"}, map[string]any{"region": "EMEA"}},
		{"deleted group leaves its tenant's members", []string{creatorA, deleteAdminsA},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a"}`,
			[]any{}, map[string]any{"secret-tier": "gold"}},
		{"deleted group leaves the same name in another tenant", []string{creatorA, creatorB, deleteAdminsA},
			`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-b"}`,
			[]any{"system:tenant:tenant-b:group:admins", "system:tenant:tenant-b:group:editors"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			for _, step := range tt.steps {
				if step != deleteAdminsA {
					e.generate(step)
					continue
				}
				var list struct {
					Items []struct {
						ID   int64  `json:"id"`
						Name string `json:"name"`
					} `json:"items"`
				}
				mustJSON(t, e.expect(200, "GET", "/api/v1/embed-tenants/tenant-a/groups", "ek_admin_all", nil), &list)
				if len(list.Items) != 1 || list.Items[0].Name != "admins" {
					t.Fatalf("tenant-a groups %+v", list.Items)
				}
				e.expect(204, "DELETE", fmt.Sprintf("/api/v1/embed-tenants/tenant-a/groups/%d", list.Items[0].ID), "ek_admin_all", nil)
			}
			_, c := e.exchange(e.generate(tt.last))
			if got := groupsOf(t, c); !reflect.DeepEqual(got, tt.wantGroup) {
				t.Errorf("groups %v, want %v", got, tt.wantGroup)
			}
			if !reflect.DeepEqual(c.Attributes, tt.wantAttrs) {
				t.Errorf("attributes %v, want %v", c.Attributes, tt.wantAttrs)
			}
		})
	}
}
