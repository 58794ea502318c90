package devidp

import (
	"crypto/subtle"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// browserCookie names the cookie that ties a browser to its sign-in at the
// provider, so /logout can end it without an id_token_hint.
const browserCookie = "devidp_session"

// authParams are the parameters the sign-in form carries from the
// authorization request to its POST.
var authParams = []string{
	"client_id", "redirect_uri", "response_type", "scope", "state", "nonce",
	"code_challenge", "code_challenge_method",
}

type authRequest struct {
	client      *Client
	redirectURI string
	scope       string
	state       string
	nonce       string
	challenge   string
}

// authError is a rejected authorization request. When redirect is false
// the client or redirect URI could not be trusted, so the error is shown to
// the user instead of being sent back to the client.
type authError struct {
	redirect    bool
	code        string
	description string
}

// parseAuthRequest validates the parameters of an authorization request
// (RFC 6749 4.1.1, RFC 7636 4.3, OIDC Core 3.1.2.1).
func (p *Provider) parseAuthRequest(v url.Values) (*authRequest, *authError) {
	c := p.clients[v.Get("client_id")]
	if c == nil {
		return nil, &authError{code: "invalid_client", description: "unknown client_id"}
	}
	redirectURI := v.Get("redirect_uri")
	if !slices.Contains(c.RedirectURIs, redirectURI) {
		return nil, &authError{code: "invalid_request", description: "redirect_uri is not registered for this client"}
	}
	req := &authRequest{
		client:      c,
		redirectURI: redirectURI,
		scope:       v.Get("scope"),
		state:       v.Get("state"),
		nonce:       v.Get("nonce"),
		challenge:   v.Get("code_challenge"),
	}
	switch {
	case v.Get("response_type") != "code":
		return req, &authError{redirect: true, code: "unsupported_response_type", description: "only response_type=code is supported"}
	case !slices.Contains(strings.Fields(req.scope), "openid"):
		return req, &authError{redirect: true, code: "invalid_scope", description: "scope must include openid"}
	case req.challenge == "":
		return req, &authError{redirect: true, code: "invalid_request", description: "code_challenge is required (PKCE)"}
	case v.Get("code_challenge_method") != "S256":
		return req, &authError{redirect: true, code: "invalid_request", description: "code_challenge_method must be S256"}
	case !validChallenge(req.challenge):
		return req, &authError{redirect: true, code: "invalid_request", description: "code_challenge must be 43 base64url characters"}
	}
	return req, nil
}

// validChallenge reports whether s looks like an S256 challenge: the
// unpadded base64url encoding of 32 bytes.
func validChallenge(s string) bool {
	if len(s) != 43 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (p *Provider) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		p.showSignIn(w, r)
	case http.MethodPost:
		p.signIn(w, r)
	default:
		methodNotAllowed(w, http.MethodGet, http.MethodPost)
	}
}

func (p *Provider) showSignIn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req, aerr := p.parseAuthRequest(q)
	if aerr != nil {
		p.rejectAuth(w, r, req, aerr)
		return
	}
	if p.sso && p.continueSignIn(w, r, req) {
		return
	}
	p.renderSignIn(w, http.StatusOK, q, "", "")
}

// continueSignIn answers req with a code for the live sign-in the
// browser's cookie names, when there is one (Config.SingleSignOn): the
// same sid as before, the client added to the sign-in's clients (it is
// sent a logout token when the sign-in ends). It reports whether it
// answered.
func (p *Provider) continueSignIn(w http.ResponseWriter, r *http.Request, req *authRequest) bool {
	ck, err := r.Cookie(browserCookie)
	if err != nil || ck.Value == "" {
		return false
	}
	now := p.now()
	code := randomToken()
	p.mu.Lock()
	p.pruneLocked(now)
	sess := p.sessions[p.browsers[ck.Value]]
	if sess == nil {
		p.mu.Unlock()
		return false
	}
	sess.clients[req.client.ID] = true
	p.codes[code] = &authCode{
		clientID:    req.client.ID,
		redirectURI: req.redirectURI,
		nonce:       req.nonce,
		challenge:   req.challenge,
		scope:       req.scope,
		user:        sess.user,
		sid:         sess.id,
		authTime:    sess.authTime,
		expires:     now.Add(CodeTTL),
	}
	user := sess.user.Username
	p.mu.Unlock()
	p.log.Info("devidp: signed in again in a live sign-in (single sign-on)", "user", user, "client", req.client.ID)
	p.redirectToClient(w, r, req.redirectURI, url.Values{"code": {code}}, req.state)
	return true
}

func (p *Provider) signIn(w http.ResponseWriter, r *http.Request) {
	if err := http.NewCrossOriginProtection().Check(r); err != nil {
		p.renderMessage(w, http.StatusForbidden, "Cross-origin sign-in refused", "The sign-in form must be submitted from this provider's own page.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		p.renderMessage(w, http.StatusBadRequest, "Bad request", "The sign-in form could not be read.")
		return
	}
	form := r.PostForm
	req, aerr := p.parseAuthRequest(form)
	if aerr != nil {
		p.rejectAuth(w, r, req, aerr)
		return
	}
	username := form.Get("username")
	u := p.checkPassword(username, form.Get("password"))
	if u == nil {
		if _, known := p.users[username]; known {
			p.log.Info("devidp: sign-in refused: wrong password", "user", username, "client", req.client.ID)
		} else {
			p.log.Info("devidp: sign-in refused: unknown user", "client", req.client.ID)
		}
		p.renderSignIn(w, http.StatusUnauthorized, form, username, "Wrong user name or password.")
		return
	}

	now := p.now()
	sid := randomToken()
	browser := randomToken()
	code := randomToken()
	p.mu.Lock()
	p.pruneLocked(now)
	p.sessions[sid] = &idpSession{id: sid, user: u, authTime: now, clients: map[string]bool{req.client.ID: true}}
	p.browsers[browser] = sid
	p.codes[code] = &authCode{
		clientID:    req.client.ID,
		redirectURI: req.redirectURI,
		nonce:       req.nonce,
		challenge:   req.challenge,
		scope:       req.scope,
		user:        u,
		sid:         sid,
		authTime:    now,
		expires:     now.Add(CodeTTL),
	}
	p.mu.Unlock()

	http.SetCookie(w, &http.Cookie{
		Name:     browserCookie,
		Value:    browser,
		Path:     p.basePath + "/",
		MaxAge:   int(SessionTTL / time.Second),
		HttpOnly: true,
		Secure:   strings.HasPrefix(p.issuer, "https://"),
		SameSite: http.SameSiteLaxMode,
	})
	p.log.Info("devidp: signed in", "user", u.Username, "client", req.client.ID)
	p.redirectToClient(w, r, req.redirectURI, url.Values{"code": {code}}, req.state)
}

// checkPassword returns the user whose credentials these are, or nil. The
// comparison takes the same time whether the password is right, wrong or
// the user unknown.
func (p *Provider) checkPassword(username, password string) *User {
	u, known := p.users[username]
	want := noMatchHash[:]
	if known {
		want = hashString(u.Password)
	}
	match := subtle.ConstantTimeCompare(hashString(password), want) == 1
	if !known || !match {
		return nil
	}
	return u
}

// noMatchHash is compared against when the user name or client is
// unknown, so that the comparison still runs.
var noMatchHash = [32]byte{}

// rejectAuth answers an invalid authorization request: to the client when
// its redirect URI is trusted, to the user otherwise.
func (p *Provider) rejectAuth(w http.ResponseWriter, r *http.Request, req *authRequest, aerr *authError) {
	p.log.Info("devidp: authorization request refused", "error", aerr.code, "reason", aerr.description)
	if !aerr.redirect || req == nil {
		p.renderMessage(w, http.StatusBadRequest, "Invalid sign-in request", aerr.description+".")
		return
	}
	p.redirectToClient(w, r, req.redirectURI, url.Values{
		"error":             {aerr.code},
		"error_description": {aerr.description},
	}, req.state)
}

// redirectToClient sends the browser to the client's redirect URI with the
// given parameters, state and iss (RFC 9207) added to its query.
func (p *Provider) redirectToClient(w http.ResponseWriter, r *http.Request, redirectURI string, params url.Values, state string) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		// Registered URIs were parsed in New; this cannot happen.
		p.renderMessage(w, http.StatusInternalServerError, "Invalid redirect URI", "The client's redirect URI could not be parsed.")
		return
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", p.issuer)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

type signInPage struct {
	Action    string
	Hidden    map[string]string
	Username  string
	Error     string
	DemoUsers []string
}

func (p *Provider) renderSignIn(w http.ResponseWriter, status int, params url.Values, username, errMsg string) {
	hidden := map[string]string{}
	for _, k := range authParams {
		if v := params.Get(k); v != "" {
			hidden[k] = v
		}
	}
	names := slices.Sorted(maps.Keys(p.users))
	p.render(w, status, "signin", signInPage{
		Action:    p.basePath + "/authorize",
		Hidden:    hidden,
		Username:  username,
		Error:     errMsg,
		DemoUsers: names,
	})
}

type confirmLogoutPage struct {
	Action string
	User   string
	Hidden map[string]string
}

// renderConfirmLogout asks the user whether to sign out of the provider:
// a form that POSTs confirm=yes and the request's client_id,
// post_logout_redirect_uri and state back to /logout.
func (p *Provider) renderConfirmLogout(w http.ResponseWriter, user, clientID, postLogout, state string) {
	hidden := map[string]string{"confirm": "yes"}
	for k, v := range map[string]string{"client_id": clientID, "post_logout_redirect_uri": postLogout, "state": state} {
		if v != "" {
			hidden[k] = v
		}
	}
	p.render(w, http.StatusOK, "confirmlogout", confirmLogoutPage{Action: p.basePath + "/logout", User: user, Hidden: hidden})
}

type messagePage struct {
	Title  string
	Detail string
}

func (p *Provider) renderMessage(w http.ResponseWriter, status int, title, detail string) {
	p.render(w, status, "message", messagePage{Title: title, Detail: detail})
}

func (p *Provider) render(w http.ResponseWriter, status int, name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		p.log.Error("devidp: rendering page", "page", name, "err", err)
	}
}

var pages = template.Must(template.New("pages").Parse(`
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.}} · Development identity provider</title>
<style>
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330}
.banner{background:#b3261e;color:#fff;text-align:center;padding:.6rem 1rem;font-weight:600;letter-spacing:.01em}
main{max-width:22rem;margin:3rem auto;background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:2rem}
h1{font-size:1.3rem;margin:0 0 1.2rem}
label{display:block;font-size:.9rem;margin:.9rem 0 .3rem;color:#3c4456}
input[type=text],input[type=password]{box-sizing:border-box;width:100%;padding:.55rem .65rem;border:1px solid #c4c9d4;border-radius:5px;font-size:1rem}
button{margin-top:1.4rem;width:100%;padding:.65rem;border:0;border-radius:5px;background:#2d5bd7;color:#fff;font-size:1rem;cursor:pointer}
.error{background:#fdecea;color:#8c1d18;border-radius:5px;padding:.5rem .7rem;margin-bottom:.5rem}
.hint{margin-top:1.4rem;font-size:.82rem;color:#5d6577}
</style>
</head>
<body>
<div class="banner" role="alert">Development sign-in — not for production</div>
{{end}}

{{define "signin"}}{{template "head" "Sign in"}}
<main>
<h1>Sign in</h1>
{{with .Error}}<p class="error" role="alert">{{.}}</p>{{end}}
<form method="post" action="{{.Action}}" autocomplete="off">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<label for="username">User name</label>
<input type="text" id="username" name="username" value="{{.Username}}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" required>
<button type="submit">Sign in</button>
</form>
<p class="hint">Development accounts: {{range $i, $n := .DemoUsers}}{{if $i}}, {{end}}<code>{{$n}}</code>{{end}}. Their passwords are listed in the README.</p>
</main>
</body>
</html>
{{end}}

{{define "confirmlogout"}}{{template "head" "Sign out?"}}
<main>
<h1>Sign out?</h1>
<p>Sign <strong>{{.User}}</strong> out of the development identity provider?</p>
<form method="post" action="{{.Action}}">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<button type="submit">Sign out</button>
</form>
<p class="hint">If you did not ask to sign out, close this page: nothing has changed.</p>
</main>
</body>
</html>
{{end}}

{{define "message"}}{{template "head" .Title}}
<main>
<h1>{{.Title}}</h1>
<p>{{.Detail}}</p>
</main>
</body>
</html>
{{end}}
`))
