package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// projectHost is a host app that scopes one embed by its own route: the
// viewer "ana" may see projects 42 and 7, "ben" only 7. Its handler checks
// the route against that list before it asks the Kit to mint.
func projectHost(tk *testKit) http.Handler {
	visible := map[string][]int{"ana": {42, 7}, "ben": {7}}
	base := Target{Kind: KindDashboard, PublicID: "dash-projects"}
	mux := http.NewServeMux()
	mux.Handle("/projects/{id}/analytics/frame", tk.FrameFunc(func(r *http.Request, v *Viewer) (Target, error) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || !slices.Contains(visible[v.Subject], id) {
			return Target{}, ErrUnknownTarget
		}
		t := base
		t.SecurityContext = map[string]any{"project": id}
		return t, nil
	}))
	return mux
}

func TestFrameFuncScopedByRoute(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Policy.SecurityContext = map[string]any{"tenant": "acme", "project": "every"}
	})
	host := projectHost(tk)
	tests := []struct {
		name, user, path string
		status           int
		project          any
	}{
		{"own project", "ana", "/projects/42/analytics/frame", http.StatusSeeOther, 42},
		{"another allowed project", "ana", "/projects/7/analytics/frame", http.StatusSeeOther, 7},
		{"42 edited to 43", "ana", "/projects/43/analytics/frame", http.StatusNotFound, nil},
		{"someone else's project", "ben", "/projects/42/analytics/frame", http.StatusNotFound, nil},
		{"not a number", "ana", "/projects/42x/analytics/frame", http.StatusNotFound, nil},
		{"signed out", "", "/projects/42/analytics/frame", http.StatusUnauthorized, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tk.platform.mintedIDs())
			w := serve(host, request(http.MethodGet, tt.path, tt.user))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			minted := len(tk.platform.mintedIDs()) - before
			if tt.project == nil {
				if minted != 0 {
					t.Fatalf("%d sessions minted for a route the host refused", minted)
				}
				return
			}
			if minted != 1 {
				t.Fatalf("%d sessions minted, want 1", minted)
			}
			sc := tk.platform.lastRequest().SecurityContext
			want := map[string]any{"tenant": "acme", "project": tt.project}
			if !reflect.DeepEqual(sc, want) {
				t.Errorf("security context %v, want %v", sc, want)
			}
			if loc := w.Header().Get("Location"); !strings.Contains(loc, "/embed/dashboard/dash-projects?") {
				t.Errorf("Location %q is not the dashboard", loc)
			}
		})
	}
}

func TestFrameFuncChecks(t *testing.T) {
	tk := newTestKit(t, nil)
	good := Target{Kind: KindDashboard, PublicID: "dash-x"}
	calls := 0
	tests := []struct {
		name    string
		req     func() *http.Request
		target  Target
		err     error
		status  int
		resolve bool
	}{
		{"head checks viewer and target", func() *http.Request { return request(http.MethodHead, "/p/1", "ana") }, good, nil, http.StatusOK, true},
		{"head without a viewer", func() *http.Request { return request(http.MethodHead, "/p/1", "") }, good, nil, http.StatusUnauthorized, false},
		{"head of a refused target", func() *http.Request { return request(http.MethodHead, "/p/1", "ana") }, good, ErrUnknownTarget, http.StatusNotFound, true},
		{"post", func() *http.Request { return request(http.MethodPost, "/p/1", "ana") }, good, nil, http.StatusMethodNotAllowed, false},
		{"cross-site", func() *http.Request {
			r := request(http.MethodGet, "/p/1", "ana")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			return r
		}, good, nil, http.StatusForbidden, false},
		{"denied", func() *http.Request { return request(http.MethodGet, "/p/1", "ana") }, good, fmt.Errorf("not a member: %w", ErrDenied), http.StatusForbidden, true},
		{"resolve fails", func() *http.Request { return request(http.MethodGet, "/p/1", "ana") }, good, errors.New("database down"), http.StatusInternalServerError, true},
		{"invalid target", func() *http.Request { return request(http.MethodGet, "/p/1", "ana") }, Target{Kind: KindDashboard, PublicID: "bad id"}, nil, http.StatusInternalServerError, true},
		{"controls on a chat", func() *http.Request { return request(http.MethodGet, "/p/1", "ana") },
			Target{Kind: KindChat, Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{{Member: "a.b", Value: 1}}}}, nil, http.StatusInternalServerError, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tk.platform.mintedIDs())
			calls = 0
			h := tk.FrameFunc(func(*http.Request, *Viewer) (Target, error) {
				calls++
				return tt.target, tt.err
			})
			w := serve(h, tt.req())
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if (calls == 1) != tt.resolve {
				t.Errorf("resolve ran %d times", calls)
			}
			if n := len(tk.platform.mintedIDs()) - before; n != 0 {
				t.Errorf("%d sessions minted", n)
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", w.Header().Get("Cache-Control"))
			}
		})
	}
}

func TestSecurityContextFuncReadsTheRoute(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Policy.SecurityContextFunc = func(r *http.Request, v *Viewer) (map[string]any, error) {
			switch team := r.PathValue("team"); team {
			case "":
				return nil, errors.New("no team in the route")
			case "red":
				return map[string]any{"team": team, "user": v.Subject}, nil
			default:
				return nil, fmt.Errorf("team %s: %w", team, ErrDenied)
			}
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/teams/{team}/frame", tk.FrameFunc(func(*http.Request, *Viewer) (Target, error) {
		return Target{Kind: KindDashboard, PublicID: "dash-team"}, nil
	}))
	mux.Handle("/embed/frame/", tk.FrameHandler())

	if w := serve(mux, request(http.MethodGet, "/teams/red/frame", "ana")); w.Code != http.StatusSeeOther {
		t.Fatalf("red: status %d", w.Code)
	}
	if sc := tk.platform.lastRequest().SecurityContext; !reflect.DeepEqual(sc, map[string]any{"team": "red", "user": "ana"}) {
		t.Errorf("security context %v", sc)
	}
	if w := serve(mux, request(http.MethodGet, "/teams/blue/frame", "ana")); w.Code != http.StatusForbidden {
		t.Errorf("blue: status %d, want 403 (the hook denied)", w.Code)
	}
	// The Kit's own frame route has no team: the hook's error is the
	// host's misconfiguration, not the viewer's.
	if w := serve(mux, request(http.MethodGet, "/embed/frame/sales", "ana")); w.Code != http.StatusInternalServerError {
		t.Errorf("kit route: status %d, want 500", w.Code)
	}
}

func TestTargetControlsInTheIframeURL(t *testing.T) {
	tk := newTestKit(t, func(c *Config) {
		c.Targets["filtered"] = Target{Kind: KindDashboard, PublicID: "dash-filtered", Controls: embedkit.DashboardControls{
			Filters:         []embedkit.DashboardFilter{{Member: "sales.region", Value: "EMEA"}, {Member: "sales.note", Value: "a&b=c+d"}},
			TimeGrains:      []embedkit.DashboardTimeGrain{{Member: "sales.month", Grain: "quarter"}},
			MemberSwitchers: []embedkit.DashboardMemberSwitcher{{Member: "sales.revenue", Selected: "sales.orders"}},
		}}
	})
	w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/filtered", "ana"))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("status %d", w.Code)
	}
	u, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	want := map[string]string{
		"f_sales.region":   `{"value":"EMEA"}`,
		"f_sales.note":     `{"value":"a\u0026b=c+d"}`,
		"tg_sales.month":   "quarter",
		"ms_sales.revenue": "sales.orders",
	}
	for k, v := range want {
		if got := q.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if strings.Contains(u.RawQuery, "{") || strings.Contains(u.RawQuery, `"`) {
		t.Errorf("the JSON is not percent-encoded: %s", u.RawQuery)
	}
	if q.Get("session") == "" {
		t.Error("no session in the URL")
	}
}

func TestTargetControlsConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"bad member", Target{Kind: KindDashboard, PublicID: "d", Controls: embedkit.DashboardControls{
			Filters: []embedkit.DashboardFilter{{Member: "region", Value: "EMEA"}}}},
			`Config.Targets["x"].Controls.filters[0].member must match .+\..+ (view.member)`},
		{"no value", Target{Kind: KindDashboard, PublicID: "d", Controls: embedkit.DashboardControls{
			Filters: []embedkit.DashboardFilter{{Member: "a.b"}}}},
			`Config.Targets["x"].Controls.filters[0].value is required`},
		{"upper-case grain", Target{Kind: KindDashboard, PublicID: "d", Controls: embedkit.DashboardControls{
			TimeGrains: []embedkit.DashboardTimeGrain{{Member: "a.b", Grain: "Month"}}}},
			`Config.Targets["x"].Controls.timeGrains[0].grain must be a lower-case granularity`},
		{"on an app", Target{Kind: KindApp, Controls: embedkit.DashboardControls{
			MemberSwitchers: []embedkit.DashboardMemberSwitcher{{Member: "a.b", Selected: "a.c"}}}},
			`Config.Targets["x"].Controls apply to dashboard targets only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Config{
				Platform: &fakePlatform{}, Identity: headerIdentity, Store: newMapStore(),
				Policy: Policy{DeploymentID: 1}, PlatformURL: "https://acme.example.com",
				Targets: map[string]Target{"x": tt.target},
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestFrameProbeLearnsSignOut: the host script probes the frame endpoint
// with fetch before it reloads a frame; a signed-out viewer must answer
// 401 there, not a redirect to the login page, while a top-level
// navigation still goes to the login page.
func TestFrameProbeLearnsSignOut(t *testing.T) {
	tk := newTestKit(t, func(c *Config) { c.Paths.Login = "/login" })
	tests := []struct {
		name, method, mode, dest string
		status                   int
	}{
		{"script probe", http.MethodHead, "same-origin", "empty", http.StatusUnauthorized},
		{"script get", http.MethodGet, "cors", "empty", http.StatusUnauthorized},
		{"iframe load", http.MethodGet, "navigate", "iframe", http.StatusUnauthorized},
		{"page navigation", http.MethodGet, "navigate", "document", http.StatusSeeOther},
		{"no fetch metadata", http.MethodGet, "", "", http.StatusSeeOther},
		{"no fetch metadata, iframe", http.MethodGet, "", "iframe", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(tt.method, "/embed/frame/sales", "")
			if tt.mode != "" {
				r.Header.Set("Sec-Fetch-Mode", tt.mode)
			}
			if tt.dest != "" {
				r.Header.Set("Sec-Fetch-Dest", tt.dest)
			}
			w := serve(tk.FrameHandler(), r)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			// The host script compares this with its own version when it probes.
			if v := w.Header().Get(HostScriptVersionHeader); v != HostScriptVersion {
				t.Errorf("%s %q, want %q", HostScriptVersionHeader, v, HostScriptVersion)
			}
			if tt.status == http.StatusSeeOther && !strings.HasPrefix(w.Header().Get("Location"), "/login?") {
				t.Errorf("Location %q", w.Header().Get("Location"))
			}
		})
	}
}

// TestRouteScopedTargetOnlyThroughItsRoute: a RouteScoped target is served
// by its FrameFunc route only. Through HTTP, ben gets 404 on a project
// route he may not see; the frame endpoint (by name and by frame path,
// GET and HEAD), the JSON endpoint and AllowAnyDashboard refuse the same
// dashboard too (404, nothing minted), where without the flag they would
// mint it with no project in the security context.
func TestRouteScopedTargetOnlyThroughItsRoute(t *testing.T) {
	scoped := Target{Kind: KindDashboard, PublicID: "dash-projects", RouteScoped: true}
	tk := newTestKit(t, func(c *Config) {
		c.AllowAnyDashboard = true
		c.Targets["projects"] = scoped
	})
	mux := http.NewServeMux()
	mux.Handle("/projects/{id}/analytics/frame", tk.FrameFunc(func(r *http.Request, v *Viewer) (Target, error) {
		if v.Subject != "ana" || r.PathValue("id") != "42" {
			return Target{}, ErrUnknownTarget
		}
		t, _ := tk.Target("projects")
		t.SecurityContext = map[string]any{"project": 42}
		return t, nil
	}))
	mux.Handle(DefaultFramePrefix, tk.FrameHandler())
	mux.Handle(DefaultSessionPath, tk.SessionHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	do := func(method, path, body, user string) int {
		t.Helper()
		var req *http.Request
		if body != "" {
			req, _ = http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequest(method, srv.URL+path, nil)
		}
		req.Header.Set("X-User", user)
		req.Header.Set("X-Session", "hs-"+user)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		name, method, path, body, user string
		want                           int
	}{
		{"ben on the project route", http.MethodGet, "/projects/42/analytics/frame", "", "ben", http.StatusNotFound},
		{"the frame path of the dashboard", http.MethodGet, "/embed/frame/dashboard/dash-projects", "", "ben", http.StatusNotFound},
		{"the frame path, HEAD", http.MethodHead, "/embed/frame/dashboard/dash-projects", "", "ben", http.StatusNotFound},
		{"the target's name", http.MethodGet, "/embed/frame/projects", "", "ben", http.StatusNotFound},
		{"the JSON endpoint by name", http.MethodPost, DefaultSessionPath, `{"target":"projects"}`, "ben", http.StatusNotFound},
		{"the JSON endpoint by frame path", http.MethodPost, DefaultSessionPath, `{"target":"dashboard/dash-projects"}`, "ben", http.StatusNotFound},
		{"another dashboard, AllowAnyDashboard", http.MethodGet, "/embed/frame/dashboard/dash-other", "", "ben", http.StatusSeeOther},
		{"ana on her project route", http.MethodGet, "/projects/42/analytics/frame", "", "ana", http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tk.platform.mintedIDs())
			if got := do(tt.method, tt.path, tt.body, tt.user); got != tt.want {
				t.Fatalf("%s %s as %s: %d, want %d", tt.method, tt.path, tt.user, got, tt.want)
			}
			minted := len(tk.platform.mintedIDs()) - before
			if tt.want != http.StatusSeeOther {
				if minted != 0 {
					t.Errorf("%d sessions minted for a refused request", minted)
				}
				return
			}
			req := tk.platform.lastRequest()
			if tt.user == "ana" && !reflect.DeepEqual(req.SecurityContext, map[string]any{"project": 42}) {
				t.Errorf("security context %v, want the project", req.SecurityContext)
			}
		})
	}
	// The host's own code may still mint it (FrameURL), as a route does.
	w := httptest.NewRecorder()
	if _, err := tk.FrameURL(w, request(http.MethodGet, "/", "ana"), scoped); err != nil {
		t.Errorf("FrameURL of a RouteScoped target: %v", err)
	}
}
