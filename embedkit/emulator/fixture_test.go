package emulator

import (
	"strings"
	"testing"
	"time"
)

func TestLoadFixtureErrors(t *testing.T) {
	dep := func(inner string) string {
		return `{"tenant":"acme","users":[{"username":"admin","admin":true}],"deployments":[{"id":1,"name":"D","createdAt":"2026-01-01T00:00:00Z",` + inner + `}]}`
	}
	tests := []struct {
		name, src, want string
	}{
		{"empty", ``, "empty"},
		{"not JSON", `{`, "fixture is not valid JSON"},
		{"array", `[]`, "fixture must be a JSON object"},
		{"unknown top-level field", `{"tenant":"acme","colour":"red"}`, "colour: unknown field"},
		{"bad tenant", `{"tenant":"Acme"}`, "tenant: must match"},
		{"missing tenant", `{}`, "tenant: must match"},
		{"type error", `{"tenant":"acme","embedding":"yes"}`, "embedding: must be a boolean"},
		{"unknown user field", `{"tenant":"acme","users":[{"username":"a","role":"x"}]}`, "users[0].role: unknown field"},
		{"duplicate username", `{"tenant":"acme","users":[{"username":"a"},{"username":"a"}]}`, `users[1].username: duplicate username "a"`},
		{"dangling key user", `{"tenant":"acme","apiKeys":[{"key":"k","user":"ghost"}]}`, `apiKeys[0].user: unknown user "ghost"`},
		{"dangling key deployment", `{"tenant":"acme","users":[{"username":"a"}],"apiKeys":[{"key":"k","user":"a","deployments":[7]}]}`, "apiKeys[0].deployments[0]: unknown deployment 7"},
		{"duplicate key", `{"tenant":"acme","users":[{"username":"a"}],"apiKeys":[{"key":"k","user":"a"},{"key":"k","user":"a"}]}`, "apiKeys[1].key: duplicate key"},
		{"duplicate group", `{"tenant":"acme","groups":["a","a"]}`, `groups[1]: duplicate group "a"`},
		{"attribute type", `{"tenant":"acme","userAttributes":[{"name":"a","type":"date"}]}`, "userAttributes[0].type: must be string, number, boolean, string_array or number_array"},
		{"duplicate deployment", `{"tenant":"acme","deployments":[{"id":1,"name":"a","createdAt":"2026-01-01T00:00:00Z"},{"id":1,"name":"b","createdAt":"2026-01-01T00:00:00Z"}]}`, "deployments[1].id: duplicate deployment id 1"},
		{"bad createdAt", `{"tenant":"acme","deployments":[{"id":1,"name":"a","createdAt":"yesterday"}]}`, "deployments[0].createdAt: must be an RFC 3339 time"},
		{"fractional id", `{"tenant":"acme","deployments":[{"id":1.5,"name":"a","createdAt":"2026-01-01T00:00:00Z"}]}`, "deployments[0].id: must be an integer"},
		{"branch kind", dep(`"branches":[{"id":1,"name":"main","kind":"production"},{"id":2,"name":"b","kind":"shared"},{"id":3,"name":"c","kind":"feature"}]`), "deployments[0].branches[2].kind: must be production, shared or personal"},
		{"two production branches", dep(`"branches":[{"id":1,"name":"main","kind":"production"},{"id":2,"name":"b","kind":"production"}]`), "deployments[0].branches: must have exactly one production branch, has 2"},
		{"duplicate branch id", dep(`"branches":[{"id":1,"name":"main","kind":"production"},{"id":1,"name":"b","kind":"shared"}]`), "deployments[0].branches[1].id: duplicate branch id 1"},
		{"staging on personal", dep(`"branches":[{"id":1,"name":"main","kind":"production"},{"id":2,"name":"b","kind":"personal","stagingEnvironment":true}]`), "deployments[0].branches[1].stagingEnvironment"},
		{"environment type", dep(`"environments":[{"id":"e","name":"E","type":"staging","restUrl":"https://x.test","sqlHost":"h","sqlPort":1}]`), "deployments[0].environments[0].type: must be production or development"},
		{"environment url", dep(`"environments":[{"id":"e","name":"E","type":"production","restUrl":"x.test","sqlHost":"h","sqlPort":1}]`), "deployments[0].environments[0].restUrl"},
		{"empty share list", dep(`"dashboards":[{"id":1,"publicId":"p","title":"T","published":true,"sharedWithTenants":[]}]`), "deployments[0].dashboards[0].sharedWithTenants: must not be empty"},
		{"bad shared tenant", dep(`"dashboards":[{"id":1,"publicId":"p","title":"T","published":true,"sharedWithTenants":["Globex"]}]`), "deployments[0].dashboards[0].sharedWithTenants[0]: must match"},
		{"version shape", dep(`"versions":[{"releaseChannelVersion":"1.0.0","version":"1.0.0","releaseChannel":"release","isLatestInChannel":true,"isCurrent":true}]`), "deployments[0].versions[0].releaseChannelVersion: must have the shape <image_repo>:v<semver>"},
		{"version mismatch", dep(`"versions":[{"releaseChannelVersion":"r/x:v1.0.0","version":"1.0.1","releaseChannel":"release","isLatestInChannel":true,"isCurrent":true}]`), `deployments[0].versions[0].version: must be "1.0.0"`},
		{"no current version", dep(`"versions":[{"releaseChannelVersion":"r/x:v1.0.0","version":"1.0.0","releaseChannel":"release","isLatestInChannel":true,"isCurrent":false}]`), "deployments[0].versions: must have exactly one current version"},
		{"unknown channel", dep(`"versions":[{"releaseChannelVersion":"r/x:v1.0.0","version":"1.0.0","releaseChannel":"stable","isLatestInChannel":true,"isCurrent":true}]`), `deployments[0].versions[0].releaseChannel: must be one of latest, release (the platform's channels), got "stable"`},
		{"two latest", dep(`"versions":[{"releaseChannelVersion":"r/x:v1.0.0","version":"1.0.0","releaseChannel":"release","isLatestInChannel":true,"isCurrent":true},{"releaseChannelVersion":"r/x:v1.0.1","version":"1.0.1","releaseChannel":"release","isLatestInChannel":true,"isCurrent":false}]`), `channel "release" must have exactly one latest version`},
		{"dangling manager", dep(`"dashboards":[{"id":1,"publicId":"p","title":"T","published":true,"managers":["ghost"]}]`), `deployments[0].dashboards[0].managers[0]: unknown user "ghost"`},
		{"duplicate publicId", dep(`"dashboards":[{"id":1,"publicId":"p","title":"T"},{"id":2,"publicId":"p","title":"U"}]`), `deployments[0].dashboards[1].publicId: duplicate publicId "p"`},
		{"dashboard unknown field", dep(`"dashboards":[{"id":1,"publicId":"p","title":"T","owner":"x"}]`), "deployments[0].dashboards[0].owner: unknown field"},
		{"embed tenant name", `{"tenant":"acme","embedTenants":[{"name":"X"}]}`, "embedTenants[0].name: must match"},
		{"audit event name", `{"tenant":"acme","auditEvents":[{"time":"2026-01-01T00:00:00Z"}]}`, "auditEvents[0].eventName: is required"},
		{"negative limit", `{"tenant":"acme","maxExportsInFlight":-1}`, "maxExportsInFlight: must not be negative"},
		{"lead not a duration", `{"tenant":"acme","sessionExpiringLead":"soon"}`, `sessionExpiringLead: must be a duration such as "15m"`},
		{"lead without a unit", `{"tenant":"acme","sessionExpiringLead":"15"}`, `sessionExpiringLead: must be a duration such as "15m"`},
		{"lead not a string", `{"tenant":"acme","sessionExpiringLead":900}`, "sessionExpiringLead: must be a string"},
		{"lead too short", `{"tenant":"acme","sessionExpiringLead":"59s"}`, "sessionExpiringLead: must be between 1m and 12h"},
		{"lead too long", `{"tenant":"acme","sessionExpiringLead":"12h0m1s"}`, "sessionExpiringLead: must be between 1m and 12h"},
		{"negative lead", `{"tenant":"acme","sessionExpiringLead":"-10m"}`, "sessionExpiringLead: must be between 1m and 12h"},
		{"renewal switch not a boolean", `{"tenant":"acme","predatesSessionRenewal":"yes"}`, "predatesSessionRenewal: must be a boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFixture(strings.NewReader(tt.src))
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "emulator: ") {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadFixtureSessionRenewal(t *testing.T) {
	tests := []struct {
		name, src string
		predates  bool
		lead      time.Duration
	}{
		{"defaults", `{"tenant":"acme"}`, false, 10 * time.Minute},
		{"shortest lead", `{"tenant":"acme","sessionExpiringLead":"1m"}`, false, time.Minute},
		{"longest lead", `{"tenant":"acme","sessionExpiringLead":"12h"}`, false, 12 * time.Hour},
		{"lead in two units", `{"tenant":"acme","sessionExpiringLead":"1h30m"}`, false, 90 * time.Minute},
		{"older platform", `{"tenant":"acme","predatesSessionRenewal":true}`, true, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := LoadFixture(strings.NewReader(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if f.PredatesSessionRenewal != tt.predates || f.sessionExpiringLead() != tt.lead {
				t.Errorf("predates %v, lead %s; want %v, %s", f.PredatesSessionRenewal, f.sessionExpiringLead(), tt.predates, tt.lead)
			}
		})
	}
	if _, err := New(&Fixture{Tenant: "acme", SessionExpiringLead: "30s"}); err == nil || err.Error() != "emulator: invalid fixture: sessionExpiringLead: must be between 1m and 12h" {
		t.Errorf("New with a 30s lead: %v", err)
	}
}

func TestLoadFixtureExactPathMessage(t *testing.T) {
	src := `{"tenant":"acme","deployments":[{"id":1,"name":"D","createdAt":"2026-01-01T00:00:00Z","branches":[{"id":1,"name":"main","kind":"production"},{"id":2,"name":"b","kind":"shared"},{"id":3,"name":"c","kind":"feature"}]}]}`
	_, err := LoadFixture(strings.NewReader(src))
	if err == nil || err.Error() != "emulator: invalid fixture: deployments[0].branches[2].kind: must be production, shared or personal" {
		t.Fatalf("error %v", err)
	}
}

func TestDemoFixture(t *testing.T) {
	f := DemoFixture()
	if f.Tenant != "acme" || !f.Embedding || !f.CreatorMode || !f.AuditLog || !f.RevocationClaim {
		t.Errorf("flags %+v", f)
	}
	if len(f.APIKeys) != 3 || f.APIKeys[0].Key != "ek_dev_only_admin_all" || f.APIKeys[1].Key != "ek_dev_only_admin_d1" || f.APIKeys[2].Key != "ek_dev_only_personal" {
		t.Errorf("keys %+v", f.APIKeys)
	}
	if strings.Join(f.Groups, ",") != "sales,emea,amer,apac,analysts" || len(f.UserAttributes) != 2 {
		t.Errorf("catalogs %v %v", f.Groups, f.UserAttributes)
	}
	d := f.Deployments[0]
	if d.ID != 1 || d.Name != "Sales analytics" || len(d.Environments) != 2 || len(d.Branches) != 3 || len(d.Versions) != 3 || len(d.Dashboards) != 5 || len(f.AuditEvents) < 3 {
		t.Errorf("deployment %+v", d)
	}
	titles := map[string]string{}
	for _, db := range d.Dashboards {
		titles[db.PublicID] = db.Title
	}
	if titles["sales-overview"] != "Sales overview" || titles["regional-performance"] != "Regional performance" {
		t.Errorf("dashboards %v", titles)
	}
	// Fresh copies.
	f.Tenant = "changed"
	if DemoFixture().Tenant != "acme" {
		t.Error("DemoFixture shares state")
	}
	// New(nil) serves the demo account.
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if title, ok := s.dashboardByPublicID(1, "regional-performance"); !ok || title != "Regional performance" {
		t.Errorf("demo dashboard %q %v", title, ok)
	}
}

func TestNewValidatesAndCopies(t *testing.T) {
	if _, err := New(&Fixture{Tenant: "acme", APIKeys: []APIKey{{Key: "k", User: "ghost"}}}); err == nil || !strings.Contains(err.Error(), `apiKeys[0].user: unknown user "ghost"`) {
		t.Errorf("New: %v", err)
	}
	f := &Fixture{Tenant: "acme", Embedding: true, Users: []User{{Username: "a", Admin: true}}, APIKeys: []APIKey{{Key: "k", User: "a"}},
		Deployments: []Deployment{{ID: 1, Name: "D", CreatedAt: testEpoch}}}
	s, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	f.APIKeys[0].Key = "mutated"
	s.mu.Lock()
	_, ok := s.st.keys["k"]
	s.mu.Unlock()
	if !ok {
		t.Error("the Server shares the caller's fixture")
	}
}

// TestFixtureAuditEventNames: the audit events of the built-in fixture and
// of the tests' fixture use event names the platform's documentation
// gives (its catalogue is not published; these are its examples), never
// invented ones.
func TestFixtureAuditEventNames(t *testing.T) {
	documented := map[string]bool{"Logged in": true, "Created deployment": true, "Entered dev mode": true}
	for _, tt := range []struct {
		name string
		fx   *Fixture
	}{
		{"demo", DemoFixture()},
		{"rules", mustFixture(t, testFixture)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.fx.AuditEvents) == 0 {
				t.Fatal("no audit events")
			}
			for i, e := range tt.fx.AuditEvents {
				if !documented[e.EventName] {
					t.Errorf("auditEvents[%d].eventName %q is not a documented event name", i, e.EventName)
				}
			}
		})
	}
}
