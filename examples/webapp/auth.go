package webapp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gorilla/sessions"
	"golang.org/x/oauth2"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/middleware"
)

// LoginTTL is how long a started login may take: the lifetime of the login
// cookie that carries its state, nonce and PKCE verifier.
const LoginTTL = 10 * time.Minute

// SessionKeyValue is the key, in the main session's Values, of the random
// session key that Auth stores at each login. It is a string, new at every
// login; the app copies it into middleware.Viewer.SessionKey so that logout
// revokes exactly the embed sessions minted during this login.
const SessionKeyValue = "session_key"

// Keys of the login cookie's values.
const (
	loginState    = "state"
	loginNonce    = "nonce"
	loginVerifier = "verifier"
	loginReturn   = "return_to"
	loginIssued   = "issued"
)

// AuthConfig configures Auth. Issuer, ClientID, ClientSecret, RedirectURL,
// Sessions, SessionName and OnLogin are required.
//
// There is deliberately no way to relax token verification: go-oidc's
// Skip* and Insecure* switches are never set.
type AuthConfig struct {
	// Issuer is the OpenID provider's issuer URL, discovered at NewAuth.
	Issuer string
	// ClientID and ClientSecret are the app's registration at the provider.
	ClientID     string
	ClientSecret string
	// RedirectURL is the absolute URL of the Callback handler, exactly as
	// registered at the provider. When it is https, the login cookie is
	// marked Secure.
	RedirectURL string
	// Scopes are requested at login. Empty means openid, profile and email;
	// openid is added when missing.
	Scopes []string
	// Sessions stores the app's main session and the short-lived login
	// cookie. Its options must make cookies HttpOnly, SameSite=Lax or
	// Strict, Secure on HTTPS and bounded in MaxAge: gorilla's
	// NewCookieStore does not by default.
	Sessions sessions.Store
	// SessionName names the main session. The login cookie is named
	// SessionName + "_login".
	SessionName string
	// OnLogin is called once the ID token is verified, with the main
	// session already replaced by a fresh one (see Callback). It puts the
	// viewer into that session, which LoginSession(r) returns; Auth saves
	// the session after OnLogin returns. RawIDToken(r) returns the ID token
	// during the call, for an app that keeps it as a logout hint. An error
	// ends the login with a 500 page.
	OnLogin func(w http.ResponseWriter, r *http.Request, tok *oidc.IDToken, claims map[string]any) error
	// EndPrevious, when set, is called once the new login's ID token is
	// verified and before the main session is replaced, with the request
	// as the browser sent it (its old cookie). It ends the login the
	// browser already holds as logout would (revokes its embed sessions,
	// records it as ended), so that signing in as another user over an
	// existing login leaves nothing of the first alive. It must not write
	// the main session's cookie: Callback replaces it. An error ends the
	// new login with a 500 page, and the old login stays as it was.
	EndPrevious func(w http.ResponseWriter, r *http.Request) error
	// ErrorPage renders a failed login. Nil means plain text. title and
	// detail are fixed texts: they never hold a code, token or state.
	ErrorPage func(w http.ResponseWriter, r *http.Request, status int, title, detail string)
	// HTTPClient is used for discovery, keys and the token endpoint. Nil
	// means a client with a 10-second timeout.
	HTTPClient *http.Client
	// Logger receives rejected logins and failures. Nil means
	// slog.Default(). Codes, tokens, state, nonce and cookies are never
	// logged.
	Logger *slog.Logger
	// RedactSubject is how a record names the subject who signed in: a
	// keyed hash such as middleware.Kit.RedactViewer (HMAC under
	// middleware.Config.LogKey), so that the record matches the kit's
	// records of the same viewer and a list of emails cannot reverse it.
	// Nil leaves the subject out of the records. The raw subject is never
	// logged.
	RedactSubject func(subject string) string
	// Now returns the current time, for token expiry and login age. Nil
	// means time.Now.
	Now func() time.Time
}

// Auth is an OpenID Connect relying party: authorization code flow with
// PKCE (S256), state and nonce, for a server-rendered app whose session
// lives in a gorilla/sessions store. Its handlers are safe for concurrent
// use.
type Auth struct {
	cfg        AuthConfig
	oauth      oauth2.Config
	verifier   *oidc.IDTokenVerifier
	provider   *oidc.Provider
	endSession string
	loginName  string
	secure     bool
	log        *slog.Logger
	now        func() time.Time
	hc         *http.Client
}

// NewAuth checks cfg and discovers the provider at cfg.Issuer. ctx bounds
// the discovery request only.
func NewAuth(ctx context.Context, cfg AuthConfig) (*Auth, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errors.New("webapp: auth: Issuer is required")
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, errors.New("webapp: auth: ClientID and ClientSecret are required")
	case cfg.Sessions == nil || cfg.SessionName == "":
		return nil, errors.New("webapp: auth: Sessions and SessionName are required")
	case cfg.OnLogin == nil:
		return nil, errors.New("webapp: auth: OnLogin is required")
	}
	ru, err := url.Parse(cfg.RedirectURL)
	if err != nil || (ru.Scheme != "http" && ru.Scheme != "https") || ru.Host == "" || ru.Fragment != "" {
		return nil, fmt.Errorf("webapp: auth: RedirectURL %q must be an absolute http or https URL", cfg.RedirectURL)
	}
	a := &Auth{
		cfg:       cfg,
		loginName: cfg.SessionName + "_login",
		secure:    ru.Scheme == "https",
		log:       cfg.Logger,
		now:       cfg.Now,
		hc:        cfg.HTTPClient,
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.hc == nil {
		a.hc = &http.Client{Timeout: 10 * time.Second}
	}
	if a.cfg.ErrorPage == nil {
		a.cfg.ErrorPage = plainErrorPage
	}
	scopes := slices.Clone(cfg.Scopes)
	if len(scopes) == 0 {
		scopes = []string{"profile", "email"}
	}
	if !slices.Contains(scopes, oidc.ScopeOpenID) {
		scopes = append([]string{oidc.ScopeOpenID}, scopes...)
	}

	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, a.hc), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("webapp: auth: discovering %s: %w", cfg.Issuer, err)
	}
	var meta struct {
		EndSessionEndpoint string   `json:"end_session_endpoint"`
		JWKSURI            string   `json:"jwks_uri"`
		SigningAlgs        []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil {
		return nil, fmt.Errorf("webapp: auth: reading discovery document: %w", err)
	}
	a.endSession = meta.EndSessionEndpoint
	a.provider = provider
	a.oauth = oauth2.Config{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		Endpoint:     provider.Endpoint(),
		RedirectURL:  cfg.RedirectURL,
		Scopes:       scopes,
	}
	if meta.JWKSURI == "" {
		return nil, fmt.Errorf("webapp: auth: the discovery document of %s has no jwks_uri", cfg.Issuer)
	}
	// The provider's keys are fetched at most once per
	// oidcclaims.DefaultKeyRefreshInterval: the same verifier checks
	// back-channel logout tokens, which anyone can POST, and go-oidc's own
	// key set would fetch the keys again for every forged one.
	keys := oidcclaims.NewKeySet(meta.JWKSURI, oidcclaims.KeySetConfig{Client: a.hc, Now: a.now})
	a.verifier = oidc.NewVerifier(cfg.Issuer, keys, &oidc.Config{ClientID: cfg.ClientID, Now: a.now, SupportedSigningAlgs: meta.SigningAlgs})
	return a, nil
}

// Verifier returns the verifier of the provider's ID tokens for this
// client, on an oidcclaims.KeySet (an unauthenticated request cannot make
// it fetch the provider's keys more than once per ten seconds). Its VerifyLogout checks back-channel logout tokens' signature,
// issuer, audience, expiry, events and nonce; the caller still checks the
// "typ" header and that the jti was not seen before.
func (a *Auth) Verifier() *oidc.IDTokenVerifier { return a.verifier }

// Login starts a login (GET /login?return_to=/path). It makes a fresh
// state, nonce and PKCE verifier, keeps them in the login cookie (HttpOnly,
// SameSite=Lax, LoginTTL) apart from the main session, and redirects to the
// provider with an S256 code challenge. A return_to that SafeReturnPath
// refuses becomes "/". A second login in another tab replaces the first's
// login cookie, so only the latest login can complete.
func (a *Auth) Login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		a.cfg.ErrorPage(w, r, http.StatusMethodNotAllowed, "Method not allowed", "Sign-in starts with a GET request.")
		return
	}
	returnTo, _ := middleware.SafeReturnPath(r.URL.Query().Get("return_to"))
	state, nonce, verifier := randomString(), randomString(), oauth2.GenerateVerifier()

	ls, _ := a.cfg.Sessions.New(r, a.loginName) // a stale or undecodable login cookie is replaced
	ls.ID = ""
	ls.Values = map[any]any{
		loginState:    state,
		loginNonce:    nonce,
		loginVerifier: verifier,
		loginReturn:   returnTo,
		loginIssued:   a.now().Unix(),
	}
	ls.Options = a.loginCookieOptions(int(LoginTTL / time.Second))
	if err := a.cfg.Sessions.Save(r, w, ls); err != nil {
		a.log.Error("webapp: auth: saving the login cookie", "err", err)
		a.fail(w, r, http.StatusInternalServerError, "Sign-in is unavailable", "The sign-in could not be started. Try again later.")
		return
	}
	noStore(w)
	http.Redirect(w, r, a.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), http.StatusFound)
}

func (a *Auth) loginCookieOptions(maxAge int) *sessions.Options {
	return &sessions.Options{
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   a.secure,
		SameSite: http.SameSiteLaxMode,
	}
}

var oauthErrorCode = regexp.MustCompile(`^[a-z_]{1,64}$`)

// Callback completes a login (GET /auth/callback). In order:
//
//  1. the state parameter must be present and equal the login cookie's
//     (400 otherwise, before any call to the provider); the login cookie
//     is then deleted, so a replayed callback URL fails;
//  2. the code is exchanged with the PKCE verifier;
//  3. the ID token is verified by go-oidc (signature against the
//     provider's keys, issuer, audience, expiry) and its nonce must equal
//     the login's; when the provider publishes a userinfo_endpoint, it is
//     asked with the access token, its sub must be the ID token's, and
//     its claims fill those the ID token lacks (oidcclaims.MergeUserInfo:
//     providers may keep profile claims out of the ID token);
//  4. EndPrevious ends the login the browser already holds, if any;
//  5. the main session is replaced: all prior values are dropped, a
//     server-side store's old record is deleted and a new one is made, and
//     a new SessionKeyValue is stored. A cookie-only store (CookieStore)
//     cannot invalidate the old cookie's contents; the new SessionKeyValue
//     is what tells the two apart;
//  6. OnLogin fills the session, Auth saves it, and the browser is sent to
//     the return path given at Login.
func (a *Auth) Callback(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		a.fail(w, r, http.StatusMethodNotAllowed, "Method not allowed", "The sign-in callback accepts GET only.")
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		a.reject(w, r, http.StatusBadRequest, "missing state")
		return
	}
	ls, err := a.cfg.Sessions.New(r, a.loginName)
	if err != nil || ls.IsNew {
		a.reject(w, r, http.StatusBadRequest, "no login in progress")
		return
	}
	wantState, _ := ls.Values[loginState].(string)
	nonce, _ := ls.Values[loginNonce].(string)
	verifier, _ := ls.Values[loginVerifier].(string)
	returnTo, _ := ls.Values[loginReturn].(string)
	issued, _ := ls.Values[loginIssued].(int64)
	if wantState == "" || nonce == "" || verifier == "" {
		a.reject(w, r, http.StatusBadRequest, "incomplete login cookie")
		return
	}
	if subtle.ConstantTimeCompare([]byte(state), []byte(wantState)) != 1 {
		// The pending login is left alone, so a forged callback cannot
		// cancel it.
		a.reject(w, r, http.StatusBadRequest, "state mismatch")
		return
	}
	// Single use: from here on this login is spent, whatever happens.
	ls.Options = a.loginCookieOptions(-1)
	if err := a.cfg.Sessions.Save(r, w, ls); err != nil {
		a.log.Error("webapp: auth: deleting the login cookie", "err", err)
		a.fail(w, r, http.StatusInternalServerError, "Sign-in failed", "The sign-in could not be completed. Try again.")
		return
	}
	if age := a.now().Sub(time.Unix(issued, 0)); age < 0 || age > LoginTTL {
		a.reject(w, r, http.StatusBadRequest, "login expired")
		return
	}
	if iss := q.Get("iss"); q.Has("iss") && iss != a.cfg.Issuer {
		// RFC 9207: the response comes from another provider (mix-up).
		a.reject(w, r, http.StatusBadRequest, "iss parameter mismatch")
		return
	}
	if e := q.Get("error"); e != "" {
		detail := "The identity provider did not complete the sign-in."
		if oauthErrorCode.MatchString(e) {
			a.log.Info("webapp: auth: provider returned an error", "error", e)
			if e == "access_denied" {
				detail = "The sign-in was cancelled or refused."
			}
		}
		a.fail(w, r, http.StatusBadRequest, "Sign-in not completed", detail)
		return
	}
	code := q.Get("code")
	if code == "" {
		a.reject(w, r, http.StatusBadRequest, "missing code")
		return
	}

	ctx := oidc.ClientContext(r.Context(), a.hc)
	tok, err := a.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			status := 0
			if re.Response != nil {
				status = re.Response.StatusCode
			}
			a.log.Warn("webapp: auth: code exchange refused", "error", re.ErrorCode, "status", status)
			a.fail(w, r, http.StatusBadRequest, "Sign-in failed", "The sign-in link has expired or was already used. Sign in again.")
			return
		}
		a.log.Error("webapp: auth: code exchange failed", "err", err)
		a.fail(w, r, http.StatusBadGateway, "Sign-in failed", "The identity provider could not be reached. Try again later.")
		return
	}
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		a.reject(w, r, http.StatusBadGateway, "token response without id_token")
		return
	}
	idt, err := a.verifier.Verify(ctx, rawID)
	if err != nil {
		a.log.Warn("webapp: auth: ID token rejected", "err", err)
		a.fail(w, r, http.StatusUnauthorized, "Sign-in failed", "The identity provider's answer could not be verified.")
		return
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		a.reject(w, r, http.StatusUnauthorized, "nonce mismatch")
		return
	}
	if idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			a.reject(w, r, http.StatusUnauthorized, "at_hash mismatch")
			return
		}
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		a.log.Error("webapp: auth: decoding ID token claims", "err", err)
		a.fail(w, r, http.StatusUnauthorized, "Sign-in failed", "The identity provider's answer could not be read.")
		return
	}
	if a.provider.UserInfoEndpoint() != "" {
		u, err := a.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			a.log.Error("webapp: auth: user info request failed", "err", err)
			a.fail(w, r, http.StatusBadGateway, "Sign-in failed", "The identity provider could not be reached. Try again later.")
			return
		}
		if claims, err = oidcclaims.MergeUserInfo(claims, u); err != nil {
			a.log.Warn("webapp: auth: user info refused", "err", err)
			a.fail(w, r, http.StatusUnauthorized, "Sign-in failed", "The identity provider's answer could not be verified.")
			return
		}
	}

	if a.cfg.EndPrevious != nil {
		if err := a.cfg.EndPrevious(w, r); err != nil {
			a.log.Error("webapp: auth: ending the previous login", "err", err)
			a.fail(w, r, http.StatusInternalServerError, "Sign-in failed", "The session already open in this browser could not be ended. Try again later.")
			return
		}
	}
	sess, err := a.replaceSession(w, r)
	if err != nil {
		a.log.Error("webapp: auth: replacing the session", "err", err)
		a.fail(w, r, http.StatusInternalServerError, "Sign-in failed", "The session could not be started. Try again later.")
		return
	}
	lr := r.WithContext(context.WithValue(r.Context(), loginContextKey{}, &loginInfo{session: sess, rawIDToken: rawID}))
	if err := a.cfg.OnLogin(w, lr, idt, claims); err != nil {
		a.log.Error("webapp: auth: OnLogin failed", a.subject(idt.Subject), "err", err)
		a.dropSession(w, r, sess)
		a.fail(w, r, http.StatusInternalServerError, "Sign-in failed", "Your account could not be loaded into this application.")
		return
	}
	if err := a.cfg.Sessions.Save(lr, w, sess); err != nil {
		a.log.Error("webapp: auth: saving the session", a.subject(idt.Subject), "err", err)
		a.dropSession(w, r, sess)
		a.fail(w, r, http.StatusInternalServerError, "Sign-in failed",
			"Your session could not be saved: the account data may be too large for a session cookie. Contact the administrator.")
		return
	}
	a.log.Info("webapp: auth: signed in", a.subject(idt.Subject))
	target, _ := middleware.SafeReturnPath(returnTo)
	http.Redirect(w, r, target, http.StatusFound)
}

// replaceSession returns the request's main session emptied, with a new
// identity: a server-side record is deleted and will be re-created under a
// new id, and a new SessionKeyValue is set. The session object is the one
// gorilla's registry hands out for this request, so the app's own
// Sessions.Get(r, name) during OnLogin returns it too.
func (a *Auth) replaceSession(w http.ResponseWriter, r *http.Request) (*sessions.Session, error) {
	sess, err := a.cfg.Sessions.Get(r, a.cfg.SessionName)
	if sess == nil {
		return nil, fmt.Errorf("webapp: auth: session store returned no session: %w", err)
	}
	// A decode error (old keys, tampering) means nobody was logged in; the
	// empty session replaces it either way.
	if sess.ID != "" && !sess.IsNew && err == nil {
		old := *sess
		opts := *sess.Options
		opts.MaxAge = -1
		old.Options = &opts
		if err := a.cfg.Sessions.Save(r, w, &old); err != nil {
			return nil, fmt.Errorf("webapp: auth: deleting the pre-login session: %w", err)
		}
	}
	clear(sess.Values)
	sess.ID = ""
	sess.IsNew = true
	sess.Values[SessionKeyValue] = randomString()
	return sess, nil
}

// dropSession expires the main session cookie after a failed login, so the
// browser is left logged out rather than half logged in.
func (a *Auth) dropSession(w http.ResponseWriter, r *http.Request, sess *sessions.Session) {
	clear(sess.Values)
	opts := *sess.Options
	opts.MaxAge = -1
	sess.Options = &opts
	if err := a.cfg.Sessions.Save(r, w, sess); err != nil {
		a.log.Error("webapp: auth: expiring the session after a failed login", "err", err)
	}
}

// EndSessionURL returns the provider's end-session URL (RP-Initiated
// Logout) with client_id, id_token_hint when given, and
// post_logout_redirect_uri when given, which must be registered at the
// provider. It returns "" when the provider publishes no
// end_session_endpoint. The hint puts the ID token into a browser URL; leave
// it empty when the provider can tell the session from its own cookie.
func (a *Auth) EndSessionURL(idTokenHint, postLogoutRedirect string) string {
	if a.endSession == "" {
		return ""
	}
	u, err := url.Parse(a.endSession)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("client_id", a.cfg.ClientID)
	if idTokenHint != "" {
		q.Set("id_token_hint", idTokenHint)
	}
	if postLogoutRedirect != "" {
		q.Set("post_logout_redirect_uri", postLogoutRedirect)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

type loginContextKey struct{}

type loginInfo struct {
	session    *sessions.Session
	rawIDToken string
}

// LoginSession returns, during OnLogin, the fresh main session that Auth
// saves after OnLogin returns; nil outside OnLogin.
func LoginSession(r *http.Request) *sessions.Session {
	if li, ok := r.Context().Value(loginContextKey{}).(*loginInfo); ok {
		return li.session
	}
	return nil
}

// RawIDToken returns, during OnLogin, the verified ID token as received;
// "" outside OnLogin. An app that wants to pass it as id_token_hint at
// logout keeps it server-side: it is a bearer credential and large.
func RawIDToken(r *http.Request) string {
	if li, ok := r.Context().Value(loginContextKey{}).(*loginInfo); ok {
		return li.rawIDToken
	}
	return ""
}

// reject logs why a callback was refused and renders the generic failure.
func (a *Auth) reject(w http.ResponseWriter, r *http.Request, status int, reason string) {
	a.log.Warn("webapp: auth: login callback rejected", "reason", reason)
	a.fail(w, r, status, "Sign-in failed", "The sign-in could not be completed. Start again from the sign-in page.")
}

func (a *Auth) fail(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
	a.cfg.ErrorPage(w, r, status, title, detail)
}

// plainErrorPage is the default ErrorPage: plain text.
func plainErrorPage(w http.ResponseWriter, _ *http.Request, status int, title, detail string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "%s\n\n%s\n", title, detail)
}

func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// randomString returns 32 random bytes, base64url-encoded.
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// subject is the log attribute that names sub: its hash under
// AuthConfig.RedactSubject as "viewer", or an empty attribute (which a
// handler leaves out) without one.
func (a *Auth) subject(sub string) slog.Attr {
	if a.cfg.RedactSubject == nil {
		return slog.Attr{}
	}
	return slog.String("viewer", a.cfg.RedactSubject(sub))
}
