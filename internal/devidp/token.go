package devidp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// handleToken is the token endpoint: authorization_code grant only
// (RFC 6749 4.1.3, RFC 7636 4.5).
func (p *Provider) handleToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the request body could not be read")
		return
	}
	form := r.PostForm
	client, basic, ok := p.authenticateClient(r, form)
	if !ok {
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="devidp"`)
		}
		p.log.Info("devidp: token request refused: client authentication failed")
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if form.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code is supported")
		return
	}

	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	code := p.codes[form.Get("code")]
	if code == nil {
		p.log.Info("devidp: token request refused: unknown code", "client", client.ID)
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the authorization code is invalid")
		return
	}
	if code.used {
		// RFC 6749 4.1.2: a code used twice revokes what it issued.
		for _, t := range code.issued {
			delete(p.tokens, t)
		}
		p.log.Warn("devidp: token request refused: code reused; its tokens are revoked", "client", client.ID)
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the authorization code was already used")
		return
	}
	// Any attempt spends the code, so a wrong verifier cannot be retried.
	code.used = true
	var reason string
	switch {
	case code.clientID != client.ID:
		reason = "the authorization code was issued to another client"
	case !now.Before(code.expires):
		reason = "the authorization code has expired"
	case form.Get("redirect_uri") != code.redirectURI:
		reason = "redirect_uri does not match the authorization request"
	case !verifierMatches(form.Get("code_verifier"), code.challenge):
		reason = "code_verifier does not match the code_challenge"
	}
	if reason != "" {
		p.log.Info("devidp: token request refused", "client", client.ID, "reason", reason)
		oauthError(w, http.StatusBadRequest, "invalid_grant", reason)
		return
	}

	access := randomToken()
	p.tokens[access] = &accessGrant{user: code.user, clientID: client.ID, sid: code.sid, expires: now.Add(TokenTTL)}
	code.issued = append(code.issued, access)

	claims := userClaims(code.user)
	if p.profileInUserInfo {
		claims = map[string]any{"sub": code.user.Subject}
	}
	claims["iss"] = p.issuer
	claims["aud"] = client.ID
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(TokenTTL).Unix()
	claims["auth_time"] = code.authTime.Unix()
	claims["sid"] = code.sid
	claims["at_hash"] = atHash(access)
	if code.nonce != "" {
		claims["nonce"] = code.nonce
	}
	idToken, err := sign(p.signer, claims)
	if err != nil {
		p.log.Error("devidp: signing ID token", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the ID token could not be signed")
		return
	}
	p.log.Info("devidp: tokens issued", "client", client.ID, "user", code.user.Username)
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(TokenTTL / time.Second),
		"id_token":     idToken,
		"scope":        code.scope,
	})
}

// authenticateClient checks client_secret_basic or client_secret_post
// credentials. Using both at once is refused (RFC 6749 2.3). basic reports
// whether the Authorization header was used.
func (p *Provider) authenticateClient(r *http.Request, form url.Values) (c *Client, basic, ok bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		if form.Has("client_secret") {
			return nil, true, false
		}
		// RFC 6749 2.3.1: both parts are form-encoded before Basic encoding.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, true, false
		}
		if fid := form.Get("client_id"); fid != "" && fid != id {
			return nil, true, false
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	c = p.clients[id]
	want := noMatchHash[:]
	if c != nil {
		want = hashString(c.Secret)
	}
	match := subtle.ConstantTimeCompare(hashString(secret), want) == 1
	if c == nil || !match || secret == "" {
		return nil, basic, false
	}
	return c, basic, true
}

// verifierMatches reports whether verifier is a valid PKCE code verifier
// (RFC 7636 4.1) whose S256 hash is challenge.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for _, r := range verifier {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' ||
			r == '-' || r == '.' || r == '_' || r == '~') {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// handleUserinfo answers the user's claims for a bearer access token.
func (p *Provider) handleUserinfo(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodGet, http.MethodPost)
		return
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="devidp"`)
		oauthError(w, http.StatusUnauthorized, "invalid_request", "a bearer access token is required")
		return
	}
	now := p.now()
	p.mu.Lock()
	grant := p.tokens[token]
	if grant != nil && !now.Before(grant.expires) {
		grant = nil
	}
	p.mu.Unlock()
	if grant == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="devidp", error="invalid_token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid or expired")
		return
	}
	writeJSON(w, http.StatusOK, userClaims(grant.user))
}

// pruneLocked forgets expired codes, tokens and sessions. p.mu must be held.
func (p *Provider) pruneLocked(now time.Time) {
	for k, c := range p.codes {
		if now.After(c.expires.Add(CodeTTL)) {
			delete(p.codes, k)
		}
	}
	for k, t := range p.tokens {
		if !now.Before(t.expires) {
			delete(p.tokens, k)
		}
	}
	for k, s := range p.sessions {
		if now.Sub(s.authTime) > SessionTTL {
			delete(p.sessions, k)
		}
	}
	for k, sid := range p.browsers {
		if p.sessions[sid] == nil {
			delete(p.browsers, k)
		}
	}
}
