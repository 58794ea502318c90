package middleware

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func ptrBool(b bool) *bool { return &b }

// TestHostTargetGrantFollowsMintRequest holds the grant tag to the
// generate-session request it stands for: two targets have equal tags
// exactly when the Policy builds the same request for them, for one
// viewer; and the pinned tag to the URL-only parameters.
func TestHostTargetGrantFollowsMintRequest(t *testing.T) {
	plain := Target{Kind: KindDashboard, PublicID: "plain"}
	policySettings := &embedkit.EmbedSessionSettings{AllowAI: ptrBool(false)}
	cases := []struct {
		name                    string
		other                   Target
		sameGrant, samePinned   bool
		sameRequestWantsToAgree bool
	}{
		{"another plain dashboard", Target{Kind: KindDashboard, PublicID: "other"}, true, true, true},
		{"deployment path form", Target{Kind: KindDashboard, PublicID: "other", DeploymentPath: true}, true, true, true},
		{"settings the policy already has", Target{Kind: KindDashboard, PublicID: "other", Settings: &embedkit.EmbedSessionSettings{AllowAI: ptrBool(false)}}, true, true, true},
		{"other settings", Target{Kind: KindDashboard, PublicID: "other", Settings: &embedkit.EmbedSessionSettings{ShowDashboardChat: ptrBool(false)}}, false, true, false},
		{"other theme", Target{Kind: KindDashboard, PublicID: "other", Theme: &embedkit.EmbedTheme{PrimaryColor: "#ff0000"}}, false, true, false},
		{"other chrome", Target{Kind: KindDashboard, PublicID: "other", Chrome: Chrome{HideDashboardTitle: true}}, true, false, true},
		{"a time grain preset", Target{Kind: KindDashboard, PublicID: "other", Controls: embedkit.DashboardControls{TimeGrains: []embedkit.DashboardTimeGrain{{Member: "sales.month", Grain: "week"}}}}, true, false, true},
		{"a member switcher preset", Target{Kind: KindDashboard, PublicID: "other", Controls: embedkit.DashboardControls{MemberSwitchers: []embedkit.DashboardMemberSwitcher{{Member: "sales.measure", Selected: "sales.count"}}}}, true, false, true},
		{"a filter preset only", Target{Kind: KindDashboard, PublicID: "other", Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{{Member: "sales.region", Value: "EMEA"}}}}, true, true, true},
		{"a locale of its own", Target{Kind: KindDashboard, PublicID: "other", Locale: "de-DE"}, true, false, true},
		{"a time zone of its own", Target{Kind: KindDashboard, PublicID: "other", TimeZone: "Europe/Berlin"}, true, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tk := newTestKit(t, func(c *Config) {
				c.Policy.Settings = policySettings
				c.Targets = map[string]Target{"a": plain, "b": tc.other}
			})
			hs := tk.HostSettings()
			a, okA := hs.Targets["a"]
			b, okB := hs.Targets["b"]
			if !okA || !okB {
				t.Fatalf("HostSettings.Targets = %v, want a and b listed", hs.Targets)
			}
			if a.Grant == "" || a.Pinned == "" {
				t.Fatalf("target a has empty tags: %+v", a)
			}
			if got := a.Grant == b.Grant; got != tc.sameGrant {
				t.Errorf("equal grant tags = %v, want %v", got, tc.sameGrant)
			}
			if got := a.Pinned == b.Pinned; got != tc.samePinned {
				t.Errorf("equal pinned tags = %v, want %v", got, tc.samePinned)
			}
			// The tag stands for the request: build both for one viewer.
			v := &Viewer{Subject: "ann", Groups: []string{"sales"}, Tenant: "acme-co"}
			r := httptestRequest()
			ra, err := tk.cfg.Policy.Request(r, v, plain)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := tk.cfg.Policy.Request(r, v, tc.other)
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.DeepEqual(ra, rb); got != tc.sameRequestWantsToAgree || got != tc.sameGrant {
				t.Errorf("equal requests = %v, equal grant tags = %v: the tag must follow the request", got, a.Grant == b.Grant)
			}
			// By frame path as by name.
			if byPath := hs.Targets["dashboard/"+tc.other.PublicID]; byPath.Grant != b.Grant || byPath.Path != b.Path {
				t.Errorf("Targets[dashboard/%s] = %+v, want %+v", tc.other.PublicID, byPath, b)
			}
		})
	}
}

func httptestRequest() *http.Request {
	r, _ := http.NewRequest(http.MethodGet, "https://host.example/embed/frame/a", nil)
	return r
}

// TestHostTargetNeverShared lists the targets whose frames never move:
// RouteScoped ones, ones with a security context of their own, apps and
// chats, and every target under a Policy with Customize (which sees the
// target and may build any request from it).
func TestHostTargetNeverShared(t *testing.T) {
	cases := []struct {
		name   string
		target Target
		mod    func(*Config)
	}{
		{"route scoped", Target{Kind: KindDashboard, PublicID: "scoped", RouteScoped: true}, nil},
		{"own security context", Target{Kind: KindDashboard, PublicID: "own", SecurityContext: map[string]any{"project": "p1"}}, nil},
		{"app", Target{Kind: KindApp}, nil},
		{"chat", Target{Kind: KindChat}, nil},
		{"policy with Customize", Target{Kind: KindDashboard, PublicID: "custom"}, func(c *Config) {
			c.Policy.Customize = func(*http.Request, *Viewer, Target, *embedkit.GenerateSessionRequest) error { return nil }
		}},
		{"policy with Customize, CustomizeIgnoresTarget on a route-scoped target", Target{Kind: KindDashboard, PublicID: "custom", RouteScoped: true}, func(c *Config) {
			c.Policy.Customize = func(*http.Request, *Viewer, Target, *embedkit.GenerateSessionRequest) error { return nil }
			c.Policy.CustomizeIgnoresTarget = true
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tk := newTestKit(t, func(c *Config) {
				c.Targets = map[string]Target{string(tc.target.Kind) + "-t": tc.target}
				if tc.mod != nil {
					tc.mod(c)
				}
			})
			if got := tk.HostSettings().Targets; len(got) != 0 {
				t.Errorf("HostSettings.Targets = %v, want none listed", got)
			}
		})
	}
}

// TestHostTargetCustomizeIgnoresTarget: a Policy whose Customize is
// declared not to read the target lists its plain dashboards.
func TestHostTargetCustomizeIgnoresTarget(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Policy.Customize = func(*http.Request, *Viewer, Target, *embedkit.GenerateSessionRequest) error { return nil }
		c.Policy.CustomizeIgnoresTarget = true
		c.Targets = map[string]Target{"a": {Kind: KindDashboard, PublicID: "a"}, "b": {Kind: KindDashboard, PublicID: "b"}}
	})
	ts := tk.HostSettings().Targets
	if ts["a"].Grant == "" || ts["a"].Grant != ts["b"].Grant {
		t.Errorf("Targets %v, want a and b listed with one grant", ts)
	}
}

// TestHostTargetTagsNeedTheKey: the tags are HMACs under a key derived
// from Config.LogKey, so a page cannot compute the tag of a request of its
// choosing; kits with one LogKey agree, kits with another do not.
func TestHostTargetTagsNeedTheKey(t *testing.T) {
	kitWith := func(key string) HostTarget {
		tk := newTestKit(t, func(c *Config) {
			c.LogKey = []byte(key)
			c.Targets = map[string]Target{"a": {Kind: KindDashboard, PublicID: "plain"}}
		})
		return tk.HostSettings().Targets["a"]
	}
	one, again, other := kitWith("0123456789abcdef-one"), kitWith("0123456789abcdef-one"), kitWith("0123456789abcdef-two")
	if !reflect.DeepEqual(one, again) {
		t.Errorf("one LogKey gave %+v and %+v, want equal tags", one, again)
	}
	if one.Grant == other.Grant || one.Pinned == other.Pinned {
		t.Errorf("two LogKeys gave equal tags %+v and %+v", one, other)
	}
	if strings.Contains(one.Grant, "plain") || len(one.Grant) != 24 {
		t.Errorf("grant tag %q: want 24 opaque characters", one.Grant)
	}
}

// TestHostTargetPathAndFilters: the embed path the navigate action takes,
// in the target's URL form, and the preset filters as set-filter
// parameters in the host script's own encoding.
func TestHostTargetPathAndFilters(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Policy.DeploymentID = 42
		c.Targets = map[string]Target{
			"a": {Kind: KindDashboard, PublicID: "sales", Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{
				{Member: "sales.region", Value: "North America"}, {Member: "sales.year", Value: 2026}}}},
			"b": {Kind: KindDashboard, PublicID: "ops", DeploymentPath: true},
		}
	})
	hs := tk.HostSettings()
	a, b := hs.Targets["a"], hs.Targets["b"]
	if a.Path != "/embed/dashboard/sales" || b.Path != "/embed/d/42/dashboard/ops" {
		t.Errorf("paths %q, %q", a.Path, b.Path)
	}
	want := []string{"f_sales.region=%7B%22value%22%3A%22North%20America%22%7D", "f_sales.year=%7B%22value%22%3A2026%7D"}
	if !reflect.DeepEqual(a.Filters, want) {
		t.Errorf("filters %q, want %q", a.Filters, want)
	}
	if b.Filters != nil {
		t.Errorf("filters of b %q, want none", b.Filters)
	}
}

// TestHostTargetBadControls: a target whose filter cannot be written fails
// New by name (it would fail every mint too).
func TestHostTargetBadControls(t *testing.T) {
	_, err := New(Config{
		Platform: &fakePlatform{}, Identity: headerIdentity, Store: newMapStore(),
		Policy: Policy{DeploymentID: 1}, PlatformURL: "https://acme.example.com",
		Targets: map[string]Target{"a": {Kind: KindDashboard, PublicID: "sales", Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{
			{Member: "sales.region", Value: func() {}}}}}},
	})
	if err == nil || !strings.Contains(err.Error(), `Config.Targets["a"]`) {
		t.Errorf("New = %v, want an error naming Config.Targets[\"a\"]", err)
	}
}
