package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestStandardProvider runs the demo against a provider configured like
// many certified ones by default: profile claims from the userinfo
// endpoint only, no back-channel logout. Signing in gives the same
// experience as with the development provider's defaults: the account's
// name and tenant in the header, its locale and time zone in the frame,
// its region in the embed session, and logout revokes.
func TestStandardProvider(t *testing.T) {
	type seen struct {
		name, locale, zone string
		attributes         int
	}
	run := func(t *testing.T, standard bool) seen {
		f := startFlowWith(t, DemoOptions{StandardProvider: standard})
		b := f.browser()
		b.login("ana", "ana-dev-pass")
		_, page := b.get(f.d.AppURL + "/dashboards")
		loc := b.frameRedirect("/embed/frame/dashboard/sales-overview")
		var s seen
		if i := strings.Index(page, `id="account-name"`); i >= 0 {
			rest := page[i:]
			s.name = rest[strings.Index(rest, ">")+1 : strings.Index(rest, "<")]
		}
		s.locale, s.zone = loc.Query().Get("locale"), loc.Query().Get("timezone")
		for _, body := range f.transport.mintBodies() {
			if strings.Contains(body, `"name":"region","value":"EMEA"`) {
				s.attributes++
			}
		}
		if resp, _ := b.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST /logout: %d", resp.StatusCode)
		}
		for _, es := range f.sessions() {
			if es.ExternalID == "ana" && es.State != "revoked" {
				t.Errorf("ana's session %s after logout", es.State)
			}
		}
		return s
	}
	dev := run(t, false)
	t.Logf("development provider: %+v", dev)
	std := run(t, true)
	if dev != std {
		t.Errorf("signed in through a standard provider: %+v; through the development one: %+v", std, dev)
	}
	if std.name == "" {
		t.Errorf("no account name from userinfo: %+v", std)
	}
	if std.locale != "de-DE" || std.zone != "Europe/Berlin" || std.attributes != 1 {
		t.Errorf("the profile from userinfo did not reach the embed: %+v", std)
	}
}
