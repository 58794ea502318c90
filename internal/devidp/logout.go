package devidp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// handleLogout is the end-session endpoint (OpenID Connect RP-Initiated
// Logout 1.0), by GET or POST. It acts on a request only when the request
// proves it comes from a relying party or from the user:
//
//   - With a valid id_token_hint (see parseHint) whose sid names a sign-in
//     that is still live, it ends that sign-in at once: the hint is a
//     bearer credential only the relying party holds, so a cross-site
//     request cannot forge it.
//   - Otherwise, when this browser's cookie names a live sign-in, it ends
//     nothing and shows a confirmation page (the specification's "MUST ask
//     the End-User" case) whose form POSTs back here with confirm=yes; that
//     POST must come from the provider's own page (http.CrossOriginProtection:
//     Sec-Fetch-Site, else Origin against Host), and then ends the browser's
//     sign-in.
//   - With nothing to end it only clears a stale cookie.
//
// An id_token_hint that fails validation, a client_id the hint was not
// issued to, an unknown client_id and a post_logout_redirect_uri not
// registered for the client are answered 400 without ending anything.
// Once done it redirects to post_logout_redirect_uri (with state) when
// given, or shows a signed-out page. Ending a sign-in revokes its access
// tokens and sends back-channel logout tokens to the clients that took
// part in it.
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
	state := r.Form.Get("state")
	confirmed := r.Method == http.MethodPost && r.PostForm.Get("confirm") == "yes"

	var claims *hintClaims
	if hint != "" {
		c, err := p.parseHint(hint, clientID)
		if err != nil {
			p.log.Info("devidp: logout refused: invalid id_token_hint", "err", err)
			p.renderMessage(w, http.StatusBadRequest, "Invalid sign-out request", "The id_token_hint was not issued by this provider to this client.")
			return
		}
		claims, clientID = c, c.client
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
	if confirmed {
		if err := http.NewCrossOriginProtection().Check(r); err != nil {
			p.log.Info("devidp: logout refused: cross-origin confirmation")
			p.renderMessage(w, http.StatusForbidden, "Cross-origin sign-out refused", "The sign-out must be confirmed on this provider's own page.")
			return
		}
	}

	now := p.now()
	p.mu.Lock()
	p.pruneLocked(now)
	var hinted, own *idpSession
	if claims != nil {
		if s := p.sessions[claims.SID]; s != nil && claims.SID != "" && s.user.Subject == claims.Subject && s.clients[clientID] {
			hinted = s
		}
	}
	var browser string
	if ck, err := r.Cookie(browserCookie); err == nil && ck.Value != "" {
		browser = ck.Value
		own = p.sessions[p.browsers[browser]]
	}
	sess := hinted
	if sess == nil && own != nil {
		if !confirmed {
			user := own.user.Username
			p.mu.Unlock()
			p.log.Info("devidp: sign-out asks for confirmation", "hint", claims != nil)
			p.renderConfirmLogout(w, user, clientID, postLogout, state)
			return
		}
		sess = own
	}
	// The cookie goes when it names the ended sign-in or none at all; a
	// cookie of another live sign-in stays.
	clearCookie := browser != "" && (own == nil || own == sess)
	if clearCookie {
		delete(p.browsers, browser)
	}
	var notify []*Client
	if sess != nil {
		delete(p.sessions, sess.id)
		for t, g := range p.tokens {
			if g.sid == sess.id {
				delete(p.tokens, t)
			}
		}
		for b, sid := range p.browsers {
			if sid == sess.id {
				delete(p.browsers, b)
			}
		}
		for id := range sess.clients {
			if c := p.clients[id]; c != nil && c.BackChannelLogoutURI != "" {
				notify = append(notify, c)
			}
		}
	}
	p.mu.Unlock()

	if clearCookie {
		http.SetCookie(w, &http.Cookie{
			Name: browserCookie, Value: "", Path: p.basePath + "/", MaxAge: -1,
			HttpOnly: true, Secure: strings.HasPrefix(p.issuer, "https://"), SameSite: http.SameSiteLaxMode,
		})
	}
	if sess != nil {
		via := "id_token_hint"
		if sess != hinted {
			via = "confirmation"
		}
		p.log.Info("devidp: signed out", "user", sess.user.Username, "via", via, "backchannel_clients", len(notify))
		p.sendBackChannel(context.WithoutCancel(r.Context()), sess, notify, now)
	}
	if postLogout != "" {
		u, _ := url.Parse(postLogout) // parsed when the client was registered
		if state != "" {
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
	subject := sess.user.Subject
	if c.BackChannelSIDOnly {
		subject = ""
	}
	token, err := p.LogoutToken(c.ID, subject, sess.id, now)
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
// An empty subject or sid leaves that claim out (the specification wants
// at least one; a token with neither is refused here). The provider sends
// these itself at /logout; LogoutToken is exported so that tests of a
// relying party's back-channel endpoint can make valid ones.
func (p *Provider) LogoutToken(clientID, subject, sid string, now time.Time) (string, error) {
	if subject == "" && sid == "" {
		return "", errors.New("devidp: LogoutToken: a logout token needs a sub or a sid")
	}
	claims := map[string]any{
		"iss":    p.issuer,
		"aud":    clientID,
		"iat":    now.Unix(),
		"exp":    now.Add(LogoutTokenTTL).Unix(),
		"jti":    randomToken(),
		"events": map[string]any{BackChannelLogoutEvent: map[string]any{}},
	}
	if subject != "" {
		claims["sub"] = subject
	}
	if sid != "" {
		claims["sid"] = sid
	}
	return sign(p.logoutSigner, claims)
}
