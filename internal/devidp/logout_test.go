package devidp

import (
	"crypto/rand"
	"crypto/rsa"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

// crossSite are the headers a browser sends on a navigation or form post
// started by a page of another site.
var crossSite = http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}

// logoutRequest sends a GET (form nil) or a POST of form to /logout with
// params in the query, through the env's browser (with its cookie) or,
// when noCookie, without any cookie.
func (e *env) logoutRequest(t *testing.T, params, form url.Values, header http.Header, noCookie bool) (*http.Response, string) {
	t.Helper()
	method, body := http.MethodGet, ""
	if form != nil {
		method, body = http.MethodPost, form.Encode()
	}
	req, err := http.NewRequest(method, e.srv.URL+"/logout?"+params.Encode(), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	client := e.browser
	if noCookie {
		client = &http.Client{CheckRedirect: e.browser.CheckRedirect}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, readBody(t, resp)
}

// confirmLogout submits the confirmation form found in page, with header.
func (e *env) confirmLogout(t *testing.T, page string, header http.Header) *http.Response {
	t.Helper()
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	if form.Get("confirm") != "yes" || !strings.Contains(page, `<form method="post" action="/logout">`) {
		t.Fatalf("no confirmation form in: %s", page)
	}
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/logout", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := e.browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// signedIn reports whether the sign-in that issued tok is still live.
func (e *env) signedIn(tok *oauth2.Token) bool {
	_, err := e.provider.UserInfo(e.ctx, oauth2.StaticTokenSource(tok))
	return err == nil
}

// TestLogoutNeedsHintOrConfirmation: /logout ends a sign-in on a valid
// id_token_hint for it, or after the user confirms on the provider's own
// page; anything else (a cross-site GET, a forged or foreign hint, a
// cross-site confirmation) ends nothing.
func TestLogoutNeedsHintOrConfirmation(t *testing.T) {
	foreignKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	foreignSigner, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: foreignKey}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	withHint := func(hint string) url.Values {
		return url.Values{"id_token_hint": {hint}, "post_logout_redirect_uri": {testPostLogout}, "state": {"s1"}}
	}
	redirect := testPostLogout + "?state=s1"

	for _, tc := range []struct {
		name string
		// run sends the logout request(s) for a browser signed in with
		// the ID token raw (claims c), and returns the last answer.
		run       func(t *testing.T, e *env, raw string, c idClaims) (*http.Response, string)
		status    int
		location  string
		body      string // in the page, when set
		signedOut bool
	}{
		{
			name: "cross-site GET without hint asks",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{"client_id": {testClientID}, "post_logout_redirect_uri": {testPostLogout}}, nil, crossSite, false)
			},
			status: http.StatusOK, body: "Sign out?",
		},
		{
			name: "GET without any parameter asks",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{}, nil, nil, false)
			},
			status: http.StatusOK, body: "<strong>ana</strong>",
		},
		{
			name: "POST without hint or confirm asks",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{}, url.Values{"client_id": {testClientID}}, crossSite, false)
			},
			status: http.StatusOK, body: "Sign out?",
		},
		{
			name: "cross-site GET with a valid hint",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, withHint(raw), nil, crossSite, false)
			},
			status: http.StatusFound, location: redirect, signedOut: true,
		},
		{
			name: "valid hint and client_id, no cookie",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				q := withHint(raw)
				q.Set("client_id", testClientID)
				return e.logoutRequest(t, q, nil, nil, true)
			},
			status: http.StatusFound, location: redirect, signedOut: true,
		},
		{
			name: "valid hint by form POST",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{}, withHint(raw), crossSite, false)
			},
			status: http.StatusFound, location: redirect, signedOut: true,
		},
		{
			name: "valid hint without redirect",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{"id_token_hint": {raw}}, nil, crossSite, false)
			},
			status: http.StatusOK, body: "Signed out", signedOut: true,
		},
		{
			name: "expired hint still counts",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				e.clock.Advance(TokenTTL + time.Minute)
				defer e.clock.Advance(-TokenTTL - time.Minute) // the access token checks below
				return e.logoutRequest(t, withHint(raw), nil, crossSite, false)
			},
			status: http.StatusFound, location: redirect, signedOut: true,
		},
		{
			name: "hint signed by another key",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				forged, _ := sign(foreignSigner, map[string]any{"iss": e.srv.URL, "aud": testClientID, "sub": c.Subject, "sid": c.SID})
				return e.logoutRequest(t, withHint(forged), nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "hint of another issuer",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				other, _ := sign(e.idp.signer, map[string]any{"iss": "http://other-idp.test", "aud": testClientID, "sub": c.Subject, "sid": c.SID})
				return e.logoutRequest(t, withHint(other), nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "hint for another client_id",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{"id_token_hint": {raw}, "client_id": {"other"}}, nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "hint issued to an unregistered client",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				h, _ := sign(e.idp.signer, map[string]any{"iss": e.srv.URL, "aud": "stranger", "sub": c.Subject, "sid": c.SID})
				return e.logoutRequest(t, url.Values{"id_token_hint": {h}}, nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "hint issued to a client not in that sign-in asks",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				h, _ := sign(e.idp.signer, map[string]any{"iss": e.srv.URL, "aud": "other", "sub": c.Subject, "sid": c.SID})
				return e.logoutRequest(t, url.Values{"id_token_hint": {h}}, nil, crossSite, false)
			},
			status: http.StatusOK, body: "Sign out?",
		},
		{
			name: "hint naming another subject asks",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				h, _ := sign(e.idp.signer, map[string]any{"iss": e.srv.URL, "aud": testClientID, "sub": "ben", "sid": c.SID})
				return e.logoutRequest(t, url.Values{"id_token_hint": {h}}, nil, crossSite, false)
			},
			status: http.StatusOK, body: "Sign out?",
		},
		{
			name: "logout token as hint",
			run: func(t *testing.T, e *env, _ string, c idClaims) (*http.Response, string) {
				lt, _ := e.idp.LogoutToken(testClientID, c.Subject, c.SID, e.clock.Now())
				return e.logoutRequest(t, withHint(lt), nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "garbage hint",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, withHint("a.b.c"), nil, crossSite, false)
			},
			status: http.StatusBadRequest,
		},
		{
			name: "stale hint cannot end the browser's newer sign-in",
			run: func(t *testing.T, e *env, raw string, _ idClaims) (*http.Response, string) {
				if resp, _ := e.logoutRequest(t, withHint(raw), nil, nil, true); resp.StatusCode != http.StatusFound {
					t.Fatalf("first logout: %d", resp.StatusCode)
				}
				_, tok := e.fullLogin(t, "ben", "ben-dev-pass")
				resp, body := e.logoutRequest(t, withHint(raw), nil, crossSite, false)
				if !e.signedIn(tok) {
					t.Error("a stale hint ended the browser's other sign-in")
				}
				return resp, body
			},
			status: http.StatusOK, body: "<strong>ben</strong>", signedOut: true, // ana's sign-in ended by the first logout
		},
		{
			name: "confirmation POST",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				_, page := e.logoutRequest(t, url.Values{"client_id": {testClientID}, "post_logout_redirect_uri": {testPostLogout}, "state": {"s1"}}, nil, crossSite, false)
				resp := e.confirmLogout(t, page, http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {e.srv.URL}})
				return resp, readBody(t, resp)
			},
			status: http.StatusFound, location: redirect, signedOut: true,
		},
		{
			name: "confirmation POST without redirect",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				_, page := e.logoutRequest(t, url.Values{}, nil, nil, false)
				resp := e.confirmLogout(t, page, nil)
				return resp, readBody(t, resp)
			},
			status: http.StatusOK, body: "Signed out", signedOut: true,
		},
		{
			name: "cross-site confirmation POST",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{}, url.Values{"confirm": {"yes"}}, crossSite, false)
			},
			status: http.StatusForbidden,
		},
		{
			name: "same-site confirmation POST from another port",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{}, url.Values{"confirm": {"yes"}}, http.Header{"Sec-Fetch-Site": {"same-site"}, "Origin": {"http://127.0.0.1:1"}}, false)
			},
			status: http.StatusForbidden,
		},
		{
			name: "confirmation by GET",
			run: func(t *testing.T, e *env, _ string, _ idClaims) (*http.Response, string) {
				return e.logoutRequest(t, url.Values{"confirm": {"yes"}}, nil, crossSite, false)
			},
			status: http.StatusOK, body: "Sign out?",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, "")
			raw, tok := e.fullLogin(t, "ana", "ana-dev-pass")
			idt, err := e.verifier().Verify(e.ctx, raw)
			if err != nil {
				t.Fatal(err)
			}
			var c idClaims
			_ = idt.Claims(&c)

			resp, body := tc.run(t, e, raw, c)
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
				t.Errorf("status %d location %q, want %d %q; body %.300s", resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location, body)
			}
			if tc.body != "" && !strings.Contains(body, tc.body) {
				t.Errorf("page lacks %q: %.600s", tc.body, body)
			}
			if got := !e.signedIn(tok); got != tc.signedOut {
				t.Errorf("signed out = %v, want %v", got, tc.signedOut)
			}
			if strings.Contains(e.logs.String(), raw) {
				t.Error("the logs contain the ID token")
			}
		})
	}
}
