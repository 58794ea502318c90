package webapp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestLoginOverLogin: signing in as another user in a browser that holds a
// login ends the first one as logout would: its embed sessions are
// revoked, and a copy of its cookie signs nobody in. The second user's
// sessions live on until they sign out.
func TestLoginOverLogin(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	b := f.browser()
	b.login("ben", "ben-dev-pass")
	b.frameRedirect("/embed/frame/dashboard/sales-overview")
	b.frameRedirect("/embed/frame/dashboard/regional-performance")
	benCookie := b.sessionCookie()

	b.login("ana", "ana-dev-pass")
	b.frameRedirect("/embed/frame/dashboard/sales-overview")
	states := f.sessionStates
	if live, revoked := states("ben"); live != 0 || revoked != 2 {
		t.Errorf("ben's embed sessions after ana signed in over his login: %d live, %d revoked; want 0, 2", live, revoked)
	}
	if live, _ := states("ana"); live != 1 {
		t.Errorf("ana has %d live embed sessions, want 1", live)
	}

	// ben's cookie, copied before, signs nobody in.
	if f.signedInWith(benCookie) {
		t.Error("ben's old cookie still signs in")
	}

	// The browser is ana's now, and her sign-out ends her session.
	resp, page := b.get(f.d.AppURL + "/dashboards")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Ana") {
		t.Fatalf("after the second sign-in: %d, ana's page expected", resp.StatusCode)
	}
	if resp, _ := b.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", resp.StatusCode)
	}
	if live, revoked := states("ana"); live != 0 || revoked != 1 {
		t.Errorf("ana's embed sessions after her sign-out: %d live, %d revoked", live, revoked)
	}
}

// TestHeavyUserKeepsOpenDashboards: a sign-in that opens many embeds (100,
// beyond the 64 the stores kept before) loses none of them while signed
// in, and its logout revokes every one.
func TestHeavyUserKeepsOpenDashboards(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	b := f.browser()
	b.login("ben", "ben-dev-pass")
	const n = 100
	for range n {
		b.frameRedirect("/embed/frame/dashboard/sales-overview")
	}
	count := func() (live, revoked int) { return f.sessionStates("ben") }
	// Make any revoke queued early (a store pushing out old records) that
	// is due now before counting.
	if _, err := f.d.App.kit.FlushRevokes(t.Context()); err != nil {
		t.Fatal(err)
	}
	if live, revoked := count(); live != n || revoked != 0 {
		t.Fatalf("while signed in: %d live, %d revoked; want %d live", live, revoked, n)
	}
	_, page := b.get(f.d.AppURL + "/dashboards")
	if resp, _ := b.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", resp.StatusCode)
	}
	if live, revoked := count(); live != 0 || revoked != n {
		t.Errorf("after logout: %d live, %d revoked; want all %d revoked", live, revoked, n)
	}
}

// TestForgedLogoutTokensFetchKeysOnce: forged back-channel logout tokens
// (anyone can POST them) cost the demo at most one fetch of the
// provider's keys, not one each.
func TestForgedLogoutTokensFetchKeysOnce(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	b := f.browser()
	before := f.transport.keyFetches.Load()
	for i := range 50 {
		header := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"alg":"RS256","typ":"logout+jwt","kid":"forged-%d"}`, i))
		claims := base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"x","sub":"ana"}`))
		token := header + "." + claims + "." + base64.RawURLEncoding.EncodeToString([]byte("not a signature"))
		if resp, _ := b.post(f.d.AppURL+BackChannelLogoutPath, url.Values{"logout_token": {token}}, nil); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("forged logout token %d: %d, want 400", i, resp.StatusCode)
		}
	}
	if n := f.transport.keyFetches.Load() - before; n > 1 {
		t.Errorf("50 forged logout tokens made the app fetch the provider's keys %d times, want at most 1", n)
	}
}

// TestProjectDashboardOnlyThroughProjectRoute: the projects' dashboard
// shows every project's rows without a project in the security context,
// so it is RouteScoped: ben (AMER) gets 404 on an EMEA project's route,
// and the same dashboard through the frame endpoint or the JSON endpoint
// is refused as well (404, nothing minted), where it used to answer 303
// with no project signed in. ana still opens her own project.
func TestProjectDashboardOnlyThroughProjectRoute(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	count := func(who string) int {
		n := 0
		for _, s := range f.sessions() {
			if s.ExternalID == who {
				n++
			}
		}
		return n
	}
	ben := f.browser()
	ben.login("ben", "ben-dev-pass")
	for _, path := range []string{
		"/projects/nordics-rollout/analytics/frame",
		"/embed/frame/dashboard/project-analytics",
		"/embed/frame/project-1",
	} {
		if resp, _ := ben.get(f.d.AppURL + path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("ben: GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	for _, target := range []string{"project-1", "dashboard/project-analytics"} {
		req, err := http.NewRequest(http.MethodPost, f.d.AppURL+"/embed/session", strings.NewReader(`{"target":"`+target+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", f.d.AppURL)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if resp, body := ben.do(req); resp.StatusCode != http.StatusNotFound {
			t.Errorf("ben: POST /embed/session for %s: %d, want 404; %.200s", target, resp.StatusCode, body)
		}
	}
	if n := count("ben"); n != 0 {
		t.Errorf("%d sessions minted for ben", n)
	}
	ana := f.browser()
	ana.login("ana", "ana-dev-pass")
	ana.frameRedirect("/projects/nordics-rollout/analytics/frame")
	if n := count("ana"); n != 1 {
		t.Errorf("%d sessions minted for ana's project, want 1", n)
	}
}

// TestPlainEmbedFindsProjectDashboardEmpty: a session grants its whole
// deployment, so a plain embed of Sales overview reaches Project analytics
// through the embed's own navigation, with no project in its security
// context. The fixture's data model denies every row without the key (the
// access policy a host that scopes by route must write), so it shows
// none; the project route's session shows that project's rows.
func TestPlainEmbedFindsProjectDashboardEmpty(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvSessionKeys: sessionKeys()}))
	ana := f.browser()
	ana.login("ana", "ana-dev-pass")
	rows := func(frame, publicID string) []map[string]any {
		t.Helper()
		loc := ana.frameRedirect(frame)
		status, token := f.exchange(loc.Query().Get("session"))
		if status != http.StatusOK {
			t.Fatalf("exchange the session of %s: %d", frame, status)
		}
		req, _ := http.NewRequest(http.MethodGet, f.d.PlatformURL+"/embed/api/context?publicId="+publicID, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ctx struct {
			Rows       []map[string]any `json:"rows"`
			Dashboards []struct {
				PublicID string `json:"publicId"`
			} `json:"dashboards"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&ctx); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the embed context of %s with the session of %s: %d %v", publicID, frame, resp.StatusCode, err)
		}
		listed := false
		for _, d := range ctx.Dashboards {
			listed = listed || d.PublicID == "project-analytics"
		}
		if !listed {
			t.Fatalf("the navigation of the session of %s does not list project-analytics", frame)
		}
		return ctx.Rows
	}
	if got := rows("/embed/frame/dashboard/sales-overview", "project-analytics"); len(got) != 0 {
		t.Errorf("a plain Sales overview session shows %d rows of Project analytics, want none", len(got))
	}
	got := rows("/projects/nordics-rollout/analytics/frame", "project-analytics")
	if len(got) == 0 {
		t.Fatal("the project route's session shows no rows of its project")
	}
	for _, r := range got {
		if r["project"] != "nordics-rollout" {
			t.Fatalf("the project route's session shows a row of project %v", r["project"])
		}
	}
}
