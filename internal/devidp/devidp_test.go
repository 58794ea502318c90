package devidp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"github.com/embedkit/embedkit/internal/testkit"
)

const (
	testClientID     = "app"
	testClientSecret = "app-dev-secret"
	testRedirect     = "http://app.test/auth/callback"
	testPostLogout   = "http://app.test/"
)

type clock = testkit.Clock

type syncBuffer = testkit.SyncBuffer

type env struct {
	idp      *Provider
	srv      *httptest.Server
	clock    *clock
	logs     *syncBuffer
	provider *oidc.Provider
	oauth    *oauth2.Config
	browser  *http.Client
	ctx      context.Context
}

// setup starts a provider on an httptest server, with one client whose
// back-channel logout URI is backChannel (may be empty), and discovers it
// with go-oidc.
func setup(t *testing.T, backChannel string, mods ...func(*Config)) *env {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	clk := testkit.NewClock(time.Now())
	logs := &syncBuffer{}
	cfg := Config{
		Issuer: issuer,
		Clients: []Client{{
			ID:                     testClientID,
			Secret:                 testClientSecret,
			RedirectURIs:           []string{testRedirect},
			PostLogoutRedirectURIs: []string{testPostLogout},
			BackChannelLogoutURI:   backChannel,
		}, {
			ID:           "other",
			Secret:       "other-dev-secret",
			RedirectURIs: []string{"http://other.test/cb"},
		}},
		Now:    clk.Now,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mods {
		m(&cfg)
	}
	idp, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.Config.Handler = idp
	srv.Start()
	t.Cleanup(srv.Close)

	ctx := oidc.ClientContext(t.Context(), srv.Client())
	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		t.Fatalf("oidc.NewProvider: %v", err)
	}
	jar, _ := cookiejar.New(nil)
	return &env{
		idp:      idp,
		srv:      srv,
		clock:    clk,
		logs:     logs,
		provider: provider,
		ctx:      ctx,
		oauth: &oauth2.Config{
			ClientID:     testClientID,
			ClientSecret: testClientSecret,
			Endpoint:     provider.Endpoint(),
			RedirectURL:  testRedirect,
			Scopes:       []string{oidc.ScopeOpenID, "profile", "email"},
		},
		browser: &http.Client{
			Jar:           jar,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

func (e *env) verifier() *oidc.IDTokenVerifier {
	return e.provider.VerifierContext(e.ctx, &oidc.Config{ClientID: testClientID, Now: e.clock.Now})
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// signInForm loads the sign-in page at authURL and returns the form's
// hidden fields.
func (e *env) signInForm(t *testing.T, authURL string) url.Values {
	t.Helper()
	resp, err := e.browser.Get(authURL)
	if err != nil {
		t.Fatalf("GET authorize: %v", err)
	}
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET authorize: status %d: %s", resp.StatusCode, body)
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return form
}

func (e *env) postSignIn(t *testing.T, form url.Values, user, pass string) *http.Response {
	t.Helper()
	form = maps2(form)
	form.Set("username", user)
	form.Set("password", pass)
	resp, err := e.browser.PostForm(e.srv.URL+"/authorize", form)
	if err != nil {
		t.Fatalf("POST authorize: %v", err)
	}
	return resp
}

func maps2(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

type login struct {
	code, state, nonce, verifier string
}

// exchange trades l's code for tokens and verifies the ID token; it
// returns the tokens, the raw ID token and the verified one.
func (e *env) exchange(t *testing.T, l login) (*oauth2.Token, string, *oidc.IDToken) {
	t.Helper()
	tok, err := e.oauth.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := e.verifier().Verify(e.ctx, raw)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return tok, raw, idt
}

// userInfo asks the userinfo endpoint with tok's access token.
func (e *env) userInfo(t *testing.T, tok *oauth2.Token) idClaims {
	t.Helper()
	info, err := e.provider.UserInfo(e.ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		t.Fatalf("UserInfo: %v", err)
	}
	var ic idClaims
	if err := info.Claims(&ic); err != nil {
		t.Fatal(err)
	}
	return ic
}

// signIn runs the browser part of the flow for user and returns the code.
func (e *env) signIn(t *testing.T, user, pass string) login {
	t.Helper()
	l := login{state: "st-" + rand.Text(), nonce: "n-" + rand.Text(), verifier: oauth2.GenerateVerifier()}
	authURL := e.oauth.AuthCodeURL(l.state, oidc.Nonce(l.nonce), oauth2.S256ChallengeOption(l.verifier))
	resp := e.postSignIn(t, e.signInForm(t, authURL), user, pass)
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("POST authorize: status %d: %s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatalf("Location: %v", err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != testRedirect {
		t.Fatalf("redirected to %q, want %q", got, testRedirect)
	}
	q := loc.Query()
	if q.Get("state") != l.state {
		t.Fatalf("state = %q, want %q", q.Get("state"), l.state)
	}
	if q.Get("iss") != e.srv.URL {
		t.Fatalf("iss = %q, want %q", q.Get("iss"), e.srv.URL)
	}
	l.code = q.Get("code")
	if l.code == "" {
		t.Fatalf("no code in %s", loc)
	}
	return l
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

type idClaims struct {
	Subject     string   `json:"sub"`
	Name        string   `json:"name"`
	Email       string   `json:"email"`
	Groups      []string `json:"groups"`
	Region      string   `json:"region"`
	Tenant      string   `json:"tenant"`
	CreatorMode bool     `json:"creator_mode"`
	Locale      string   `json:"locale"`
	ZoneInfo    string   `json:"zoneinfo"`
	SID         string   `json:"sid"`
	AuthTime    int64    `json:"auth_time"`
	IssuedAt    int64    `json:"iat"`
}

// TestProfileInUserInfo: with ProfileInUserInfo the ID token carries sub
// and the protocol claims only; userinfo returns the profile.
func TestProfileInUserInfo(t *testing.T) {
	e := setup(t, "", func(c *Config) { c.ProfileInUserInfo = true })
	u := DemoUsers()[0]
	l := e.signIn(t, u.Username, u.Password)
	tok, _, idt := e.exchange(t, l)
	var c map[string]any
	if err := idt.Claims(&c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "email", "groups", "region", "tenant", "locale", "zoneinfo", "creator_mode"} {
		if _, ok := c[k]; ok {
			t.Errorf("the ID token carries %q", k)
		}
	}
	if c["sub"] != u.Subject || c["nonce"] != l.nonce || c["sid"] == nil {
		t.Errorf("ID token claims %v lack sub, nonce or sid", c)
	}
	ic := e.userInfo(t, tok)
	if ic.Subject != u.Subject || ic.Name != u.Name || ic.Locale != u.Locale || ic.ZoneInfo != u.ZoneInfo || !slices.Equal(ic.Groups, u.Groups) {
		t.Errorf("userinfo = %+v", ic)
	}
}

func TestFullFlowEachDemoUser(t *testing.T) {
	e := setup(t, "")
	for _, u := range DemoUsers() {
		t.Run(u.Username, func(t *testing.T) {
			l := e.signIn(t, u.Username, u.Password)
			tok, raw, idt := e.exchange(t, l)
			if idt.Nonce != l.nonce {
				t.Errorf("nonce = %q, want %q", idt.Nonce, l.nonce)
			}
			if idt.Issuer != e.srv.URL || !slices.Equal(idt.Audience, []string{testClientID}) {
				t.Errorf("iss/aud = %q %v", idt.Issuer, idt.Audience)
			}
			if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
				t.Errorf("at_hash: %v", err)
			}
			if d := idt.Expiry.Sub(idt.IssuedAt); d != TokenTTL {
				t.Errorf("exp - iat = %v, want %v", d, TokenTTL)
			}
			var c idClaims
			if err := idt.Claims(&c); err != nil {
				t.Fatal(err)
			}
			want := idClaims{
				Subject: u.Subject, Name: u.Name, Email: u.Email, Groups: u.Groups,
				Region: u.Region, Tenant: u.Tenant, CreatorMode: u.CreatorMode,
				Locale: u.Locale, ZoneInfo: u.ZoneInfo, SID: c.SID, AuthTime: c.IssuedAt, IssuedAt: c.IssuedAt,
			}
			if c.SID == "" || c.AuthTime == 0 {
				t.Errorf("sid %q, auth_time %d: want both set", c.SID, c.AuthTime)
			}
			if !equalClaims(c, want) {
				t.Errorf("claims = %+v\nwant %+v", c, want)
			}

			kid := headerKID(t, raw)
			if kid != e.idp.KeyID() {
				t.Errorf("kid = %q, want %q", kid, e.idp.KeyID())
			}

			ic := e.userInfo(t, tok)
			if ic.Subject != u.Subject || ic.Region != u.Region || ic.Tenant != u.Tenant ||
				!slices.Equal(ic.Groups, u.Groups) || ic.CreatorMode != u.CreatorMode || ic.Locale != u.Locale {
				t.Errorf("userinfo = %+v", ic)
			}
		})
	}
	logs := e.logs.String()
	for _, u := range DemoUsers() {
		if strings.Contains(logs, u.Password) {
			t.Errorf("logs contain %s's password", u.Username)
		}
	}
	if !strings.Contains(logs, "not for production") {
		t.Errorf("startup log does not say the provider is for development only")
	}
}

func equalClaims(a, b idClaims) bool {
	return slices.Equal(a.Groups, b.Groups) &&
		a.Subject == b.Subject && a.Name == b.Name && a.Email == b.Email &&
		a.Region == b.Region && a.Tenant == b.Tenant && a.CreatorMode == b.CreatorMode &&
		a.Locale == b.Locale && a.ZoneInfo == b.ZoneInfo && a.SID == b.SID &&
		a.AuthTime == b.AuthTime && a.IssuedAt == b.IssuedAt
}

func headerKID(t *testing.T, raw string) string {
	t.Helper()
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return jws.Signatures[0].Header.KeyID
}

func TestDemoUsersAreDistinct(t *testing.T) {
	users := DemoUsers()
	if len(users) < 3 {
		t.Fatalf("%d demo users, want at least 3", len(users))
	}
	want := map[string]string{"ana": "ana-dev-pass", "ben": "ben-dev-pass", "chloe": "chloe-dev-pass"}
	for _, u := range users {
		if want[u.Username] != u.Password {
			t.Errorf("user %q has an unexpected password", u.Username)
		}
	}
	if users[0].Region == users[1].Region || users[0].Tenant == users[2].Tenant || !users[2].CreatorMode {
		t.Errorf("demo users do not differ in region, tenant and creator mode")
	}
	users[0].Groups[0] = "changed"
	if DemoUsers()[0].Groups[0] == "changed" {
		t.Errorf("DemoUsers shares its slices between calls")
	}
}

func TestSignInPage(t *testing.T) {
	e := setup(t, "")
	authURL := e.oauth.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
	resp, err := e.browser.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body := readBody(t, resp)
	for _, want := range []string{
		"Development sign-in — not for production",
		`name="username"`,
		`name="password"`,
		`type="password"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("sign-in page lacks %q", want)
		}
	}
	if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("X-Frame-Options = %q", got)
	}
}

func TestSignInRefused(t *testing.T) {
	e := setup(t, "")
	for _, tc := range []struct{ name, user, pass string }{
		{"wrong password", "ana", "ben-dev-pass"},
		{"empty password", "ana", ""},
		{"unknown user", "mallory", "ana-dev-pass"},
		{"password as user name", "ana-dev-pass", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			authURL := e.oauth.AuthCodeURL("s", oidc.Nonce("n"), oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
			resp := e.postSignIn(t, e.signInForm(t, authURL), tc.user, tc.pass)
			body := readBody(t, resp)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if resp.Header.Get("Location") != "" {
				t.Errorf("redirected to %q", resp.Header.Get("Location"))
			}
			if !strings.Contains(body, "Wrong user name or password") {
				t.Errorf("page does not say why")
			}
			if len(tc.pass) > 3 && strings.Contains(body, tc.pass) {
				t.Errorf("page echoes the password")
			}
		})
	}
	if strings.Contains(e.logs.String(), "ana-dev-pass") {
		t.Errorf("logs contain a password")
	}
}

func TestSignInCrossOriginRefused(t *testing.T) {
	e := setup(t, "")
	authURL := e.oauth.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
	form := e.signInForm(t, authURL)
	form.Set("username", "ana")
	form.Set("password", "ana-dev-pass")
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := e.browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
}

func TestAuthorizeRejects(t *testing.T) {
	e := setup(t, "")
	challenge := oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())
	base := url.Values{
		"client_id":             {testClientID},
		"redirect_uri":          {testRedirect},
		"response_type":         {"code"},
		"scope":                 {"openid profile"},
		"state":                 {"xyz"},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
	}
	for _, tc := range []struct {
		name      string
		edit      func(url.Values)
		wantError string // OAuth error sent back to the client; empty: shown to the user
	}{
		{"PKCE missing", func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") }, "invalid_request"},
		{"PKCE method missing", func(v url.Values) { v.Del("code_challenge_method") }, "invalid_request"},
		{"PKCE plain", func(v url.Values) { v.Set("code_challenge_method", "plain") }, "invalid_request"},
		{"PKCE challenge malformed", func(v url.Values) { v.Set("code_challenge", "short") }, "invalid_request"},
		{"implicit flow", func(v url.Values) { v.Set("response_type", "id_token") }, "unsupported_response_type"},
		{"no openid scope", func(v url.Values) { v.Set("scope", "profile") }, "invalid_scope"},
		{"unknown client", func(v url.Values) { v.Set("client_id", "nobody") }, ""},
		{"unregistered redirect_uri", func(v url.Values) { v.Set("redirect_uri", "http://evil.test/cb") }, ""},
		{"redirect_uri prefix", func(v url.Values) { v.Set("redirect_uri", testRedirect+"/x") }, ""},
		{"other client's redirect_uri", func(v url.Values) { v.Set("redirect_uri", "http://other.test/cb") }, ""},
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				v := maps2(base)
				tc.edit(v)
				var resp *http.Response
				var err error
				if method == http.MethodGet {
					resp, err = e.browser.Get(e.srv.URL + "/authorize?" + v.Encode())
				} else {
					v.Set("username", "ana")
					v.Set("password", "ana-dev-pass")
					resp, err = e.browser.PostForm(e.srv.URL+"/authorize", v)
				}
				if err != nil {
					t.Fatal(err)
				}
				readBody(t, resp)
				loc := resp.Header.Get("Location")
				if tc.wantError == "" {
					if resp.StatusCode != http.StatusBadRequest || loc != "" {
						t.Fatalf("status %d location %q, want 400 and no redirect", resp.StatusCode, loc)
					}
					return
				}
				u, err := url.Parse(loc)
				if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc, testRedirect+"?") {
					t.Fatalf("status %d location %q, want redirect to the client", resp.StatusCode, loc)
				}
				if got := u.Query().Get("error"); got != tc.wantError {
					t.Errorf("error = %q, want %q", got, tc.wantError)
				}
				if u.Query().Has("code") {
					t.Errorf("a code was issued")
				}
				if u.Query().Get("state") != "xyz" {
					t.Errorf("state not returned")
				}
			})
		}
	}
}

func TestTokenRejects(t *testing.T) {
	e := setup(t, "")
	basic := e.oauth
	post := *e.oauth
	post.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	for _, tc := range []struct {
		name     string
		exchange func(l login) error
	}{
		{"PKCE verifier missing", func(l login) error {
			_, err := basic.Exchange(e.ctx, l.code)
			return err
		}},
		{"PKCE verifier wrong", func(l login) error {
			_, err := basic.Exchange(e.ctx, l.code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
			return err
		}},
		{"PKCE verifier is the challenge", func(l login) error {
			_, err := basic.Exchange(e.ctx, l.code, oauth2.VerifierOption(oauth2.S256ChallengeFromVerifier(l.verifier)))
			return err
		}},
		{"redirect_uri mismatch", func(l login) error {
			c := *basic
			c.RedirectURL = testRedirect + "?x=1"
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"redirect_uri missing", func(l login) error {
			c := *basic
			c.RedirectURL = ""
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"wrong secret basic", func(l login) error {
			c := *basic
			c.ClientSecret = "wrong"
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"wrong secret post", func(l login) error {
			c := post
			c.ClientSecret = "wrong"
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"empty secret", func(l login) error {
			c := post
			c.ClientSecret = ""
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"another client's code", func(l login) error {
			c := *basic
			c.ClientID, c.ClientSecret = "other", "other-dev-secret"
			_, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"unknown code", func(l login) error {
			_, err := basic.Exchange(e.ctx, l.code+"x", oauth2.VerifierOption(l.verifier))
			return err
		}},
		{"expired code", func(l login) error {
			e.clock.Advance(CodeTTL)
			_, err := basic.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := e.signIn(t, "ana", "ana-dev-pass")
			err := tc.exchange(l)
			var re *oauth2.RetrieveError
			if !asRetrieveError(err, &re) {
				t.Fatalf("Exchange error = %v, want a token endpoint error", err)
			}
			if re.ErrorCode != "invalid_grant" && re.ErrorCode != "invalid_client" {
				t.Errorf("error code %q", re.ErrorCode)
			}
			if strings.Contains(tc.name, "secret") && re.Response.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", re.Response.StatusCode)
			}
		})
	}
}

func asRetrieveError(err error, re **oauth2.RetrieveError) bool {
	if err == nil {
		return false
	}
	r, ok := err.(*oauth2.RetrieveError)
	*re = r
	return ok
}

func TestTokenBothAuthStyles(t *testing.T) {
	e := setup(t, "")
	for _, style := range []oauth2.AuthStyle{oauth2.AuthStyleInHeader, oauth2.AuthStyleInParams} {
		c := *e.oauth
		c.Endpoint.AuthStyle = style
		l := e.signIn(t, "ben", "ben-dev-pass")
		if _, err := c.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier)); err != nil {
			t.Errorf("auth style %d: %v", style, err)
		}
	}
}

func TestCodeReuseRevokes(t *testing.T) {
	e := setup(t, "")
	l := e.signIn(t, "ana", "ana-dev-pass")
	tok, err := e.oauth.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
	if err != nil {
		t.Fatalf("first exchange: %v", err)
	}
	if _, err := e.oauth.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier)); err == nil {
		t.Fatal("second exchange of the same code succeeded")
	}
	if _, err := e.provider.UserInfo(e.ctx, oauth2.StaticTokenSource(tok)); err == nil {
		t.Error("access token issued from a reused code still works")
	}
}

func TestUserinfoRejects(t *testing.T) {
	e := setup(t, "")
	l := e.signIn(t, "chloe", "chloe-dev-pass")
	tok, err := e.oauth.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, auth string }{
		{"no header", ""},
		{"basic", "Basic " + tok.AccessToken},
		{"unknown token", "Bearer nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/userinfo", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			readBody(t, resp)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("expired", func(t *testing.T) {
		e.clock.Advance(TokenTTL)
		if _, err := e.provider.UserInfo(e.ctx, oauth2.StaticTokenSource(tok)); err == nil {
			t.Error("expired access token accepted")
		}
	})
}

// fullLogin signs in and exchanges the code, returning the raw ID token
// and the access token.
func (e *env) fullLogin(t *testing.T, user, pass string) (string, *oauth2.Token) {
	t.Helper()
	l := e.signIn(t, user, pass)
	tok, err := e.oauth.Exchange(e.ctx, l.code, oauth2.VerifierOption(l.verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	return raw, tok
}

func TestEndSession(t *testing.T) {
	e := setup(t, "")
	var endSession struct {
		URL string `json:"end_session_endpoint"`
	}
	if err := e.provider.Claims(&endSession); err != nil || endSession.URL != e.srv.URL+"/logout" {
		t.Fatalf("end_session_endpoint = %q, %v", endSession.URL, err)
	}
	rawID, _ := e.fullLogin(t, "ana", "ana-dev-pass")

	foreignKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	foreignSigner, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: foreignKey}, nil)
	forged, _ := sign(foreignSigner, map[string]any{"iss": e.srv.URL, "aud": testClientID, "sub": "ana"})

	for _, tc := range []struct {
		name     string
		params   url.Values
		status   int
		location string
	}{
		{"registered redirect with hint", url.Values{"id_token_hint": {rawID}, "post_logout_redirect_uri": {testPostLogout}, "state": {"s1"}}, http.StatusFound, testPostLogout + "?state=s1"},
		{"registered redirect with client_id", url.Values{"client_id": {testClientID}, "post_logout_redirect_uri": {testPostLogout}}, http.StatusFound, testPostLogout},
		{"unregistered redirect", url.Values{"id_token_hint": {rawID}, "post_logout_redirect_uri": {"http://evil.test/"}}, http.StatusBadRequest, ""},
		{"registered redirect prefix", url.Values{"client_id": {testClientID}, "post_logout_redirect_uri": {testPostLogout + "x"}}, http.StatusBadRequest, ""},
		{"redirect without client", url.Values{"post_logout_redirect_uri": {testPostLogout}}, http.StatusBadRequest, ""},
		{"other client's redirect", url.Values{"client_id": {"other"}, "post_logout_redirect_uri": {testPostLogout}}, http.StatusBadRequest, ""},
		{"hint and client_id disagree", url.Values{"id_token_hint": {rawID}, "client_id": {"other"}}, http.StatusBadRequest, ""},
		{"forged hint", url.Values{"id_token_hint": {forged}, "post_logout_redirect_uri": {testPostLogout}}, http.StatusBadRequest, ""},
		{"garbage hint", url.Values{"id_token_hint": {"a.b.c"}}, http.StatusBadRequest, ""},
		{"no parameters", url.Values{}, http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.browser.Get(e.srv.URL + "/logout?" + tc.params.Encode())
			if err != nil {
				t.Fatal(err)
			}
			readBody(t, resp)
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
				t.Errorf("status %d location %q, want %d %q", resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
			}
		})
	}
}

func TestBackChannelLogout(t *testing.T) {
	type received struct {
		contentType string
		token       string
	}
	got := make(chan received, 4)
	rp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- received{r.Header.Get("Content-Type"), r.PostFormValue("logout_token")}
		w.WriteHeader(http.StatusOK)
	}))
	defer rp.Close()
	e := setup(t, rp.URL+"/backchannel")

	for _, via := range []string{"id_token_hint", "browser cookie"} {
		t.Run(via, func(t *testing.T) {
			rawID, tok := e.fullLogin(t, "ben", "ben-dev-pass")
			idt, err := e.verifier().Verify(e.ctx, rawID)
			if err != nil {
				t.Fatal(err)
			}
			var idc idClaims
			_ = idt.Claims(&idc)

			q := url.Values{}
			if via == "id_token_hint" {
				q.Set("id_token_hint", rawID)
			}
			resp, err := e.browser.Get(e.srv.URL + "/logout?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			body := readBody(t, resp)
			if via == "browser cookie" {
				// Without a hint the provider asks first; the user confirms.
				resp = e.confirmLogout(t, body, nil)
				readBody(t, resp)
			}

			var r received
			select {
			case r = <-got:
			case <-time.After(5 * time.Second):
				t.Fatal("no logout token received")
			}
			if r.contentType != "application/x-www-form-urlencoded" {
				t.Errorf("Content-Type %q", r.contentType)
			}
			lt, err := e.verifier().VerifyLogout(e.ctx, r.token)
			if err != nil {
				t.Fatalf("VerifyLogout: %v", err)
			}
			if lt.Subject != "ben" || lt.SessionID != idc.SID || lt.TokenID == "" {
				t.Errorf("logout token sub %q sid %q jti %q; want sub ben sid %q", lt.Subject, lt.SessionID, lt.TokenID, idc.SID)
			}
			jws, err := jose.ParseSignedCompact(r.token, []jose.SignatureAlgorithm{jose.RS256})
			if err != nil {
				t.Fatal(err)
			}
			if typ := jws.Signatures[0].Header.ExtraHeaders["typ"]; typ != "logout+jwt" {
				t.Errorf("typ = %v, want logout+jwt", typ)
			}
			var claims map[string]json.RawMessage
			_ = lt.Claims(&claims)
			if _, ok := claims["nonce"]; ok {
				t.Errorf("logout token carries a nonce")
			}
			if string(claims["events"]) != `{"`+BackChannelLogoutEvent+`":{}}` {
				t.Errorf("events = %s", claims["events"])
			}
			if _, err := e.provider.UserInfo(e.ctx, oauth2.StaticTokenSource(tok)); err == nil {
				t.Errorf("access token still valid after logout")
			}
		})
	}
}

func TestBackChannelLogoutBestEffort(t *testing.T) {
	rp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer rp.Close()
	e := setup(t, rp.URL)
	rawID, _ := e.fullLogin(t, "ana", "ana-dev-pass")
	resp, err := e.browser.Get(e.srv.URL + "/logout?" + url.Values{"id_token_hint": {rawID}, "post_logout_redirect_uri": {testPostLogout}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want the logout to complete", resp.StatusCode)
	}
	if !strings.Contains(e.logs.String(), "back-channel logout failed") {
		t.Errorf("failure not logged")
	}
	if strings.Contains(e.logs.String(), rawID) {
		t.Errorf("logs contain the ID token")
	}
}

func TestNewRejectsConfig(t *testing.T) {
	good := Client{ID: "a", Secret: "s", RedirectURIs: []string{"http://a.test/cb"}}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"relative issuer", Config{Issuer: "/idp", Clients: []Client{good}}},
		{"issuer with query", Config{Issuer: "http://127.0.0.1:1/?x=1", Clients: []Client{good}}},
		{"no clients", Config{Issuer: "http://127.0.0.1:1"}},
		{"client without secret", Config{Issuer: "http://127.0.0.1:1", Clients: []Client{{ID: "a", RedirectURIs: good.RedirectURIs}}}},
		{"duplicate client", Config{Issuer: "http://127.0.0.1:1", Clients: []Client{good, good}}},
		{"relative redirect", Config{Issuer: "http://127.0.0.1:1", Clients: []Client{{ID: "a", Secret: "s", RedirectURIs: []string{"/cb"}}}}},
		{"remote back-channel", Config{Issuer: "http://127.0.0.1:1", Clients: []Client{{ID: "a", Secret: "s", RedirectURIs: good.RedirectURIs, BackChannelLogoutURI: "http://10.0.0.1/bc"}}}},
		{"user without password", Config{Issuer: "http://127.0.0.1:1", Clients: []Client{good}, Users: []User{{Username: "x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), "devidp: ") {
				t.Errorf("New error = %v, want a devidp error", err)
			}
		})
	}
}

func TestIssuerWithPath(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String() + "/idp"
	idp, err := New(Config{Issuer: issuer, Clients: []Client{{ID: "a", Secret: "s", RedirectURIs: []string{"http://a.test/cb"}}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/idp/", idp)
	srv.Config.Handler = mux
	srv.Start()
	defer srv.Close()
	p, err := oidc.NewProvider(oidc.ClientContext(t.Context(), srv.Client()), issuer)
	if err != nil {
		t.Fatalf("NewProvider: %v", err)
	}
	if p.Endpoint().TokenURL != issuer+"/token" {
		t.Errorf("token URL %q", p.Endpoint().TokenURL)
	}
	resp, err := srv.Client().Get(issuer + "/jwks")
	if err != nil {
		t.Fatal(err)
	}
	if readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("jwks status %d", resp.StatusCode)
	}
}

func TestListen(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		forced bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:0", false, false},
		{":0", false, false},
		{"[::]:0", false, false},
		{"example.com:0", false, false},
		{"192.0.2.1:0", false, false},
		{"127.0.0.1", false, false},
		{"0.0.0.0:0", true, true},
	} {
		ln, err := Listen(tc.addr, tc.forced)
		if (err == nil) != tc.ok {
			t.Errorf("Listen(%q, %v) error = %v, want ok=%v", tc.addr, tc.forced, err, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "devidp: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
		if ln != nil {
			ln.Close()
		}
	}
}

// TestSingleSignOn: with Config.SingleSignOn a browser that still holds a
// live sign-in gets a code at once, for the same sign-in (same sid, and a
// new nonce, iat and code); once the sign-in ends at the provider, the
// page asks again. Without it the page always asks.
func TestSingleSignOn(t *testing.T) {
	e := setup(t, "", func(c *Config) { c.SingleSignOn = true })
	sidOf := func(raw string) string {
		t.Helper()
		idt, err := e.verifier().Verify(e.ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		var c idClaims
		_ = idt.Claims(&c)
		return c.SID
	}
	first, _ := e.fullLogin(t, "ana", "ana-dev-pass")
	e.clock.Set(e.clock.Now().Add(2 * time.Second))

	l := login{state: "st-2", nonce: "n-2", verifier: oauth2.GenerateVerifier()}
	resp, err := e.browser.Get(e.oauth.AuthCodeURL(l.state, oidc.Nonce(l.nonce), oauth2.S256ChallengeOption(l.verifier)))
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize with a live sign-in: status %d, want 302 with a code", resp.StatusCode)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	l.code = loc.Query().Get("code")
	if loc.Query().Get("state") != "st-2" || l.code == "" {
		t.Fatalf("redirect %s: want state st-2 and a code", loc.Redacted())
	}
	_, again, idt := e.exchange(t, l)
	if sidOf(again) != sidOf(first) || sidOf(first) == "" {
		t.Errorf("sid %q after single sign-on, want the first sign-in's %q", sidOf(again), sidOf(first))
	}
	if idt.Nonce != "n-2" {
		t.Errorf("nonce %q, want n-2", idt.Nonce)
	}

	// The sign-in ends at the provider: the page asks again.
	if resp, err := e.browser.Get(e.srv.URL + "/logout?" + url.Values{"id_token_hint": {again}}.Encode()); err != nil {
		t.Fatal(err)
	} else {
		readBody(t, resp)
	}
	third, _ := e.fullLogin(t, "ana", "ana-dev-pass")
	if sidOf(third) == sidOf(first) {
		t.Error("a sign-in after the provider's logout kept the ended sid")
	}

	plain := setup(t, "")
	plain.fullLogin(t, "ana", "ana-dev-pass")
	// signInForm fails the test unless the page answers 200 with a form.
	plain.signInForm(t, plain.oauth.AuthCodeURL("st", oidc.Nonce("n"), oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
}

// TestBackChannelSIDOnly: a client with BackChannelSIDOnly gets logout
// tokens with the sid and no sub; LogoutToken leaves out an empty claim
// and refuses a token with neither.
func TestBackChannelSIDOnly(t *testing.T) {
	got := make(chan string, 1)
	rp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.PostFormValue("logout_token")
	}))
	defer rp.Close()
	e := setup(t, rp.URL+"/backchannel", func(c *Config) { c.Clients[0].BackChannelSIDOnly = true })
	rawID, _ := e.fullLogin(t, "ben", "ben-dev-pass")
	idt, err := e.verifier().Verify(e.ctx, rawID)
	if err != nil {
		t.Fatal(err)
	}
	var idc idClaims
	_ = idt.Claims(&idc)
	resp, err := e.browser.Get(e.srv.URL + "/logout?" + url.Values{"id_token_hint": {rawID}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	var raw string
	select {
	case raw = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no logout token received")
	}
	lt, err := e.verifier().VerifyLogout(e.ctx, raw)
	if err != nil {
		t.Fatalf("VerifyLogout: %v", err)
	}
	var claims map[string]json.RawMessage
	_ = lt.Claims(&claims)
	if _, ok := claims["sub"]; ok || lt.SessionID != idc.SID || idc.SID == "" {
		t.Errorf("logout token: sub present %v, sid %q; want no sub and sid %q", ok, lt.SessionID, idc.SID)
	}
	if _, err := e.idp.LogoutToken(testClientID, "", "", e.clock.Now()); err == nil {
		t.Error("LogoutToken with neither sub nor sid returned a token")
	}
}
