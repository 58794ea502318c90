package devidp

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// handleLogout is the end-session endpoint (OpenID Connect RP-Initiated
// Logout 1.0). It ends the sign-in named by id_token_hint's sid, or else
// the one of this browser's cookie, sends back-channel logout tokens to the
// clients that took part in it, and redirects to post_logout_redirect_uri
// when that is registered for the client.
func (p *Provider) handleLogout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodGet, http.MethodPost)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		p.renderMessage(w, http.StatusBadRequest, "Bad request", "The sign-out request could not be read.")
		return
	}
	hint := r.Form.Get("id_token_hint")
	clientID := r.Form.Get("client_id")
	postLogout := r.Form.Get("post_logout_redirect_uri")

	var claims *hintClaims
	if hint != "" {
		c, err := p.parseOwnToken(hint)
		if err != nil {
			p.log.Info("devidp: logout refused: invalid id_token_hint", "err", err)
			p.renderMessage(w, http.StatusBadRequest, "Invalid sign-out request", "The id_token_hint was not issued by this provider.")
			return
		}
		claims = c
		switch {
		case clientID == "" && len(c.Audience) == 1:
			clientID = c.Audience[0]
		case clientID != "" && !slices.Contains(c.Audience, clientID):
			p.renderMessage(w, http.StatusBadRequest, "Invalid sign-out request", "The client_id does not match the id_token_hint.")
			return
		}
	}
	var client *Client
	if clientID != "" {
		if client = p.clients[clientID]; client == nil {
			p.renderMessage(w, http.StatusBadRequest, "Invalid sign-out request", "Unknown client_id.")
			return
		}
	}
	if postLogout != "" && (client == nil || !slices.Contains(client.PostLogoutRedirectURIs, postLogout)) {
		p.log.Info("devidp: logout refused: post_logout_redirect_uri not registered", "client", clientID)
		p.renderMessage(w, http.StatusBadRequest, "Invalid sign-out request", "The post_logout_redirect_uri is not registered for this client.")
		return
	}

	now := p.now()
	p.mu.Lock()
	var sess *idpSession
	if claims != nil && claims.SID != "" {
		sess = p.sessions[claims.SID]
		if sess != nil && sess.user.Subject != claims.Subject {
			sess = nil
		}
	}
	var browser string
	if ck, err := r.Cookie(browserCookie); err == nil {
		browser = ck.Value
		if sess == nil && claims == nil {
			sess = p.sessions[p.browsers[browser]]
		}
		if sid, ok := p.browsers[browser]; ok && (sess == nil || sid == sess.id) {
			delete(p.browsers, browser)
		}
	}
	var notify []*Client
	if sess != nil {
		delete(p.sessions, sess.id)
		for t, g := range p.tokens {
			if g.sid == sess.id {
				delete(p.tokens, t)
			}
		}
		for id := range sess.clients {
			if c := p.clients[id]; c != nil && c.BackChannelLogoutURI != "" {
				notify = append(notify, c)
			}
		}
	}
	p.mu.Unlock()

	if browser != "" {
		http.SetCookie(w, &http.Cookie{
			Name: browserCookie, Value: "", Path: p.basePath + "/", MaxAge: -1,
			HttpOnly: true, Secure: strings.HasPrefix(p.issuer, "https://"), SameSite: http.SameSiteLaxMode,
		})
	}
	if sess != nil {
		p.log.Info("devidp: signed out", "user", sess.user.Username, "backchannel_clients", len(notify))
		p.sendBackChannel(context.WithoutCancel(r.Context()), sess, notify, now)
	}
	if postLogout != "" {
		u, _ := url.Parse(postLogout) // parsed when the client was registered
		if state := r.Form.Get("state"); state != "" {
			q := u.Query()
			q.Set("state", state)
			u.RawQuery = q.Encode()
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, u.String(), http.StatusFound)
		return
	}
	p.renderMessage(w, http.StatusOK, "Signed out", "You are signed out of the development identity provider.")
}

// sendBackChannel POSTs a logout token to each client, concurrently, each
// bounded by BackChannelTimeout. Failures are logged and otherwise ignored:
// back-channel logout is best-effort.
func (p *Provider) sendBackChannel(ctx context.Context, sess *idpSession, clients []*Client, now time.Time) {
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			if err := p.postLogoutToken(ctx, c, sess, now); err != nil {
				p.log.Warn("devidp: back-channel logout failed", "client", c.ID, "err", err)
			}
		})
	}
	wg.Wait()
}

func (p *Provider) postLogoutToken(ctx context.Context, c *Client, sess *idpSession, now time.Time) error {
	token, err := p.LogoutToken(c.ID, sess.user.Subject, sess.id, now)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, BackChannelTimeout)
	defer cancel()
	body := url.Values{"logout_token": {token}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BackChannelLogoutURI, strings.NewReader(body))
	if err != nil {
		return &backChannelError{err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.hc.Do(req)
	if err != nil {
		return &backChannelError{err: err}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		return &backChannelError{status: resp.StatusCode}
	}
	return nil
}

type backChannelError struct {
	status int
	err    error
}

func (e *backChannelError) Error() string {
	if e.err != nil {
		return "devidp: back-channel logout request: " + e.err.Error()
	}
	return "devidp: back-channel logout answered " + http.StatusText(e.status)
}

func (e *backChannelError) Unwrap() error { return e.err }

// LogoutToken signs a back-channel logout token (OpenID Connect
// Back-Channel Logout 1.0, section 2.4) for the given client, subject and
// provider session id, issued at now: header typ logout+jwt; claims iss,
// aud, iat, exp, jti, sub, sid and the back-channel logout event; no nonce.
// The provider sends these itself at /logout; LogoutToken is exported so
// that tests of a relying party's back-channel endpoint can make valid ones.
func (p *Provider) LogoutToken(clientID, subject, sid string, now time.Time) (string, error) {
	return sign(p.logoutSigner, map[string]any{
		"iss":    p.issuer,
		"aud":    clientID,
		"iat":    now.Unix(),
		"exp":    now.Add(LogoutTokenTTL).Unix(),
		"jti":    randomToken(),
		"sub":    subject,
		"sid":    sid,
		"events": map[string]any{BackChannelLogoutEvent: map[string]any{}},
	})
}
