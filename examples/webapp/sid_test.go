package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// loginAgain signs in through a provider that still holds the browser's
// sign-in (single sign-on): /authorize answers with a code at once, and
// the browser lands on the app.
func (b *browser) loginAgain() (*http.Response, string) {
	t := b.f.t
	t.Helper()
	resp, _ := b.get(b.f.d.AppURL + LoginPath)
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), b.f.d.IssuerURL+"/authorize?") {
		t.Fatalf("GET /login: %d %q, want a redirect to the provider", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = b.get(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("GET authorize with a live sign-in: %d, want 302 with a code (single sign-on)", resp.StatusCode)
	}
	cb, _ := url.Parse(resp.Header.Get("Location"))
	b.f.secrets.add("auth code", cb.Query().Get("code"))
	return b.follow(resp, "")
}

// signOutAtProvider ends b's sign-in at the provider, without the app:
// the provider's confirmation page, confirmed. The provider then sends
// the app a back-channel logout token.
func (b *browser) signOutAtProvider() {
	t := b.f.t
	t.Helper()
	if resp, body := b.get(b.f.d.IssuerURL + "/logout"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("provider logout: %d, want its confirmation page", resp.StatusCode)
	}
	if resp, _ := b.post(b.f.d.IssuerURL+"/logout", url.Values{"confirm": {"yes"}}, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("provider logout confirmed: %d", resp.StatusCode)
	}
}

// TestSIDOnlyBackChannelLogout: a provider whose logout token names the
// sid and no sub (Back-Channel Logout 1.0 allows it) signs the viewer out
// of the app and revokes their embed sessions, answered 200; another
// user, and the same user's login in another provider session, are left
// alone. Before, the app looked the sid up as its own login key, ended
// nothing, and answered 200.
func TestSIDOnlyBackChannelLogout(t *testing.T) {
	f := startFlowWith(t, DemoOptions{Getenv: envOf(map[string]string{EnvSessionKeys: sessionKeys()}), IdPSIDOnlyLogout: true})
	ana, anaPhone, ben := f.browser(), f.browser(), f.browser()
	ana.login("ana", "ana-dev-pass")
	ana.frameRedirect("/embed/frame/dashboard/sales-overview")
	anaPhone.login("ana", "ana-dev-pass") // a second provider session: another sid
	ben.login("ben", "ben-dev-pass")
	ben.frameRedirect("/embed/frame/dashboard/sales-overview")
	anaCookie := ana.sessionCookie()

	ana.signOutAtProvider()

	logs := f.logs.String()
	if !strings.Contains(logs, `msg="webapp: back-channel logout" provider_session=`) || !strings.Contains(logs, "complete=true") {
		t.Errorf("no complete back-channel logout by provider session in the app's log")
	}
	if strings.Contains(logs, "devidp: back-channel logout failed") {
		t.Errorf("the app did not answer the provider's logout token with 200")
	}
	if f.signedInWith(anaCookie) {
		t.Error("ana is still signed in after a back-channel logout of her provider session")
	}
	if live, revoked := f.sessionStates("ana"); live != 0 || revoked != 1 {
		t.Errorf("ana's embed sessions: %d live, %d revoked; want 0, 1", live, revoked)
	}
	if !f.signedInWith(anaPhone.sessionCookie()) {
		t.Error("ana's login in another provider session was ended too")
	}
	if !f.signedInWith(ben.sessionCookie()) {
		t.Error("ben was signed out by ana's logout")
	}
	if live, _ := f.sessionStates("ben"); live != 1 {
		t.Errorf("ben has %d live embed sessions, want 1", live)
	}
}

// TestSameSIDReloginAfterLocalLogout: a user who signs out of the app
// alone (the provider keeps its sign-in) and signs in again gets the same
// sid from the provider; the new login works, and a back-channel logout of
// that provider session afterwards still ends it.
func TestSameSIDReloginAfterLocalLogout(t *testing.T) {
	f := startFlowWith(t, DemoOptions{Getenv: envOf(map[string]string{EnvSessionKeys: sessionKeys()}), IdPSingleSignOn: true, IdPSIDOnlyLogout: true})
	ana := f.browser()
	_, page := ana.login("ana", "ana-dev-pass")
	ana.frameRedirect("/embed/frame/dashboard/sales-overview")
	old := ana.sessionCookie()
	// Sign out of the app; its redirect to the provider's sign-out is not
	// followed, so the provider keeps the sign-in.
	if resp, _ := ana.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", resp.StatusCode)
	}
	if f.signedInWith(old) {
		t.Fatal("the cookie from before the local sign-out still signs in")
	}

	if resp, page := ana.loginAgain(); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Ana") {
		t.Fatalf("signing in again in the same provider session: %d, want ana's page", resp.StatusCode)
	}
	if resp, _ := ana.get(f.d.AppURL + "/dashboards"); resp.StatusCode != http.StatusOK {
		t.Fatalf("after signing in again: GET /dashboards %d, want 200", resp.StatusCode)
	}
	ana.frameRedirect("/embed/frame/dashboard/sales-overview")
	if f.signedInWith(old) {
		t.Error("the new login revived the old cookie")
	}

	ana.signOutAtProvider()
	if f.signedInWith(ana.sessionCookie()) {
		t.Error("the login made in the same provider session survived its back-channel logout")
	}
	if live, revoked := f.sessionStates("ana"); live != 0 || revoked != 2 {
		t.Errorf("ana's embed sessions: %d live, %d revoked; want 0, 2", live, revoked)
	}
}
