package middleware

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// referenceIframeURL is the iframe URL as url.URL writes it: the platform
// URL with the target's path and q.Encode() of the target's query and the
// per-load parameters.
func referenceIframeURL(k *Kit, t Target, q url.Values, sessionID, locale, timeZone, parent string) string {
	if q == nil {
		q = url.Values{}
	}
	u := *k.platformURL
	base := u.Path
	dep := strconv.FormatInt(k.cfg.Policy.DeploymentID, 10)
	switch t.Kind {
	case KindDashboard:
		if t.DeploymentPath {
			u.Path = base + "/embed/d/" + dep + "/dashboard/" + t.PublicID
		} else {
			u.Path = base + "/embed/dashboard/" + t.PublicID
		}
		q.Set("session", sessionID)
	case KindApp:
		u.Path = base + "/embed/d/" + dep + "/app"
		q.Set("session", sessionID)
	case KindChat:
		u.Path = base + "/embed/chat"
		q.Set("sessionId", sessionID)
	}
	if locale != "" {
		q.Set("locale", locale)
	}
	if timeZone != "" {
		q.Set("timezone", timeZone)
	}
	if parent != "" {
		q.Set("parentOrigin", parent)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// TestIframeURLAsURLWritesIt: the one-pass iframe URL is, byte for byte,
// what url.URL writes, for every kind of target, with and without the
// target's own parameters (chrome switches and dashboard controls, whose
// keys sort before, between and after the per-load ones), per-load
// parameters that need escaping, and platform URLs with a path.
func TestIframeURLAsURLWritesIt(t *testing.T) {
	sid := "5e550001c0ffee0ddba11f00dcafe1a7"
	controls := embedkit.DashboardControls{
		Filters:    []embedkit.DashboardFilter{{Member: "sales.region", Value: "a&b c"}},
		TimeGrains: []embedkit.DashboardTimeGrain{{Member: "sales.month", Grain: "week"}},
	}
	targets := []Target{
		{Kind: KindDashboard, PublicID: "sales-overview"},
		{Kind: KindDashboard, PublicID: "sales_2", DeploymentPath: true},
		{Kind: KindDashboard, PublicID: "board", Chrome: Chrome{AllowExport: true, HideDashboardHeader: true, HideDashboardTitle: true}},
		{Kind: KindDashboard, PublicID: "board", Controls: controls},
		{Kind: KindApp},
		{Kind: KindApp, Chrome: Chrome{HideWorkbookBackButton: true}},
		{Kind: KindChat},
		{Kind: KindChat, Chrome: Chrome{HideNewChat: true, HideChatHistory: true}},
	}
	prefs := []struct{ locale, zone, parent string }{
		{"", "", ""},
		{"de-DE", "Europe/Berlin", "https://app.example.com"},
		{"pt-BR", "", "http://127.0.0.1:8080"},
		{"", "America/Argentina/Buenos_Aires", ""},
	}
	for _, platform := range []string{"https://acme.example.com", "https://example.com/tenant/acme", "http://127.0.0.1:7070"} {
		tk := newTestKit(t, func(c *Config) { c.PlatformURL = platform; c.Policy.DeploymentID = 42 })
		for _, tg := range targets {
			for _, p := range prefs {
				q1, err := tg.query()
				if err != nil {
					t.Fatal(err)
				}
				q2, _ := tg.query()
				got := tk.iframeURL(tg, q1, sid, p.locale, p.zone, p.parent)
				want := referenceIframeURL(tk.Kit, tg, q2, sid, p.locale, p.zone, p.parent)
				if got != want {
					t.Errorf("%s %s %+v:\n got %s\nwant %s", platform, tg.canonicalRef(), p, got, want)
				}
			}
		}
	}
}
