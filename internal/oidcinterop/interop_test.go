package oidcinterop_test

import (
	"context"
	"crypto/rand"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	zstorage "github.com/zitadel/oidc/v3/example/server/storage"
	zcrypto "github.com/zitadel/oidc/v3/pkg/crypto"
	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/oauth2"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/devidp"
	"github.com/embedkit/embedkit/middleware"
)

const (
	clientID     = "host"
	clientSecret = "host-dev-secret"
)

// provider is an OpenID provider under test, on a loopback server.
type provider struct {
	issuer string
	// subject is the sub of the user signIn signs in.
	subject string
	// signIn answers the authorization request at authURL in browser b
	// (a sign-in form, or nothing with a live sign-in) and returns the
	// redirect to the host's callback.
	signIn func(t *testing.T, b *browser, authURL string) *url.URL
	// endSession ends the provider session sid, whose sign-in b holds, so
	// that the host is sent a back-channel logout token naming sid and no
	// sub.
	endSession func(t *testing.T, b *browser, h *host, sid string)
	// logoutToken is a logout token of the provider, signed with its key,
	// that names sid and no sub.
	logoutToken func(t *testing.T, sid string) string
}

// downList is a list of ended logins whose writes can be made to fail.
type downList struct {
	*gorillasession.MemoryEndedLogins
	down atomic.Bool
}

func (l *downList) EndLoginsOfSID(ctx context.Context, sid string) error {
	if l.down.Load() {
		return errors.New("connection refused")
	}
	return l.MemoryEndedLogins.EndLoginsOfSID(ctx, sid)
}

// host is a host app built from the kit's pieces with their defaults:
// oidcclaims.Mapping{}, gorillasession.Identity with a MemoryEndedLogins,
// the Kit over an emulated platform, and back-channel logout through
// oidcclaims.EndingLogins.
type host struct {
	srv      *httptest.Server
	url      string
	platform *embedkittest.Platform
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
	identity *gorillasession.Identity
	list     *downList

	mu          sync.Mutex
	pending     map[string]pendingLogin // by state
	lastSID     string
	backChannel []int // the status of each back-channel logout answer
}

type pendingLogin struct{ nonce, verifier string }

// newHost returns a host on srv (not started yet), for the provider at
// issuer, and starts it.
func newHost(t *testing.T, srv *httptest.Server, issuer string) *host {
	t.Helper()
	h := &host{srv: srv, url: "http://" + srv.Listener.Addr().String(), platform: embedkittest.NewPlatform(t), pending: map[string]pendingLogin{}}
	ctx := oidc.ClientContext(t.Context(), http.DefaultClient)
	p, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		t.Fatalf("discovery of %s: %v", issuer, err)
	}
	h.verifier = p.Verifier(&oidc.Config{ClientID: clientID})
	h.oauth = &oauth2.Config{
		ClientID: clientID, ClientSecret: clientSecret, Endpoint: p.Endpoint(),
		RedirectURL: h.url + "/callback", Scopes: []string{oidc.ScopeOpenID, "profile", "email"},
	}
	store := gorillasession.SecureCookieStore([]byte("0123456789abcdef0123456789abcdef"))
	store.Options.Secure = false // loopback http
	h.identity = gorillasession.New(store, "host-session")
	h.identity.Logger = slog.New(slog.DiscardHandler)
	h.list = &downList{MemoryEndedLogins: gorillasession.NewMemoryEndedLogins(gorillasession.DefaultMaxAge * time.Second)}
	h.identity.EndedLogins = h.list
	cfg := h.platform.KitConfig()
	cfg.Identity, cfg.Store = h.identity, memstore.New()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", h.login)
	mux.HandleFunc("GET /callback", h.callback)
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		if _, err := h.identity.Viewer(r); err != nil {
			http.Error(w, "signed out", http.StatusUnauthorized)
		}
	})
	mux.Handle("GET "+middleware.DefaultFramePrefix, kit.FrameHandler())
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A sign-out at the host alone: the provider keeps its sign-in.
		if err := h.identity.Clear(w, r); err != nil {
			t.Errorf("Clear: %v", err)
		}
		w.WriteHeader(http.StatusNoContent)
	})))
	bcl := oidcclaims.BackChannelLogout(h.verifier, oidcclaims.EndingLogins(h.list, kit), oidcclaims.WithLogger(slog.New(slog.DiscardHandler)))
	mux.HandleFunc("POST /backchannel", func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		bcl.ServeHTTP(rec, r)
		h.mu.Lock()
		h.backChannel = append(h.backChannel, rec.Code)
		h.mu.Unlock()
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return h
}

func (h *host) login(w http.ResponseWriter, r *http.Request) {
	state, l := rand.Text(), pendingLogin{nonce: rand.Text(), verifier: oauth2.GenerateVerifier()}
	h.mu.Lock()
	h.pending[state] = l
	h.mu.Unlock()
	http.Redirect(w, r, h.oauth.AuthCodeURL(state, oidc.Nonce(l.nonce), oauth2.S256ChallengeOption(l.verifier)), http.StatusFound)
}

func (h *host) callback(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	l, ok := h.pending[r.URL.Query().Get("state")]
	delete(h.pending, r.URL.Query().Get("state"))
	h.mu.Unlock()
	if !ok {
		http.Error(w, "unknown state", http.StatusBadRequest)
		return
	}
	ctx := oidc.ClientContext(r.Context(), http.DefaultClient)
	tok, err := h.oauth.Exchange(ctx, r.URL.Query().Get("code"), oauth2.VerifierOption(l.verifier))
	if err != nil {
		http.Error(w, "exchange: "+err.Error(), http.StatusBadGateway)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := h.verifier.Verify(ctx, raw)
	if err != nil || idt.Nonce != l.nonce {
		http.Error(w, "ID token refused", http.StatusBadRequest)
		return
	}
	v, err := oidcclaims.Mapping{}.FromIDToken(idt)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	h.lastSID = v.ProviderSID
	h.mu.Unlock()
	if err := h.identity.Save(w, r, v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *host) sid() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastSID
}

// lastBackChannel is the status of the host's last back-channel logout
// answer, or 0.
func (h *host) lastBackChannel() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.backChannel) == 0 {
		return 0
	}
	return h.backChannel[len(h.backChannel)-1]
}

// embeds counts subject's embed sessions at the platform.
func (h *host) embeds(subject string) (live, revoked int) {
	for _, s := range h.platform.Emulator().Sessions() {
		switch {
		case s.ExternalID != strings.ToLower(subject):
		case s.State == "revoked":
			revoked++
		default:
			live++
		}
	}
	return live, revoked
}

// browser is a cookie jar that follows no redirects by itself.
type browser struct {
	c *http.Client
}

func newBrowser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{c: &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(t *testing.T, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b2, _ := io.ReadAll(resp.Body)
	return resp, string(b2)
}

// location is resp's redirect, resolved against its request.
func location(t *testing.T, resp *http.Response) *url.URL {
	t.Helper()
	if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("%s %s: %d, want a redirect", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode)
	}
	u, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// signIn signs b in at h through p, and returns the sid of the login.
func signIn(t *testing.T, p *provider, h *host, b *browser) string {
	t.Helper()
	resp, _ := b.do(t, http.MethodGet, h.url+"/login", nil)
	cb := p.signIn(t, b, location(t, resp).String())
	if !strings.HasPrefix(cb.String(), h.url+"/callback?") {
		t.Fatalf("the provider sent the browser to %s, not the host's callback", cb.Redacted())
	}
	if resp, body := b.do(t, http.MethodGet, cb.String(), nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("callback: %d %s", resp.StatusCode, body)
	}
	return h.sid()
}

// postLogout posts a logout token to h's back-channel endpoint, as a
// provider does, and returns the answer's status.
func postLogout(t *testing.T, h *host, token string) int {
	t.Helper()
	resp, err := http.PostForm(h.url+"/backchannel", url.Values{"logout_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func signedIn(t *testing.T, h *host, b *browser) bool {
	t.Helper()
	resp, _ := b.do(t, http.MethodGet, h.url+"/me", nil)
	return resp.StatusCode == http.StatusOK
}

func mint(t *testing.T, h *host, b *browser) {
	t.Helper()
	if resp, _ := b.do(t, http.MethodGet, h.url+middleware.DefaultFramePrefix+"sales", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("frame: %d, want 303 to the platform", resp.StatusCode)
	}
}

// TestOneModelOfALogin runs the same story against each provider: sign in
// and open a dashboard; sign out of the host alone; sign in again, in the
// same provider session (same sid), which must work; open a dashboard; a
// sid-only logout token while the host's list of ended logins is down is
// answered 400, never 200; then the provider ends its session with a
// back-channel logout token that names only the sid, which the host
// answers 200, signing the browser out and revoking every embed session
// of the provider session.
func TestOneModelOfALogin(t *testing.T) {
	for name, start := range map[string]func(t *testing.T) (*provider, *host){
		"devidp":          startDevIdP,
		"zitadel/oidc op": startZitadel,
	} {
		t.Run(name, func(t *testing.T) {
			p, h := start(t)
			b := newBrowser()
			sid := signIn(t, p, h, b)
			if sid == "" {
				t.Fatal("the ID token carried no sid: the provider does not exercise the model")
			}
			mint(t, h, b)
			if resp, _ := b.do(t, http.MethodPost, h.url+"/logout", url.Values{}); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("host logout: %d", resp.StatusCode)
			}
			if signedIn(t, h, b) {
				t.Fatal("signed in after the host's logout")
			}

			if again := signIn(t, p, h, b); again != sid {
				t.Fatalf("second sign-in: sid %q, want the provider session's %q (the case under test)", again, sid)
			}
			if !signedIn(t, h, b) {
				t.Fatal("signing in again in the same provider session after a local sign-out is refused")
			}
			mint(t, h, b)
			if live, revoked := h.embeds(p.subject); live != 1 || revoked != 1 {
				t.Fatalf("embed sessions before the back-channel logout: %d live, %d revoked; want 1, 1", live, revoked)
			}

			// A logout the host cannot record is answered 400, so that the
			// provider knows it did not take.
			h.list.down.Store(true)
			if got := postLogout(t, h, p.logoutToken(t, sid)); got != http.StatusBadRequest {
				t.Errorf("a sid-only logout token while the list of ended logins is down: %d, want 400", got)
			}
			h.list.down.Store(false)

			p.endSession(t, b, h, sid)
			if got := h.lastBackChannel(); got != http.StatusOK {
				t.Errorf("the host answered the sid-only logout token %d, want 200", got)
			}
			if signedIn(t, h, b) {
				t.Error("still signed in after a back-channel logout of the provider session")
			}
			if live, revoked := h.embeds(p.subject); live != 0 || revoked != 2 {
				t.Errorf("embed sessions after the back-channel logout: %d live, %d revoked; want 0, 2", live, revoked)
			}
		})
	}
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// startDevIdP runs the demo's development provider with single sign-on
// (a second sign-in keeps the sid) and logout tokens that name the sid
// alone, and a host for it.
func startDevIdP(t *testing.T) (*provider, *host) {
	t.Helper()
	idpSrv, hostSrv := httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	issuer, hostURL := "http://"+idpSrv.Listener.Addr().String(), "http://"+hostSrv.Listener.Addr().String()
	idp, err := devidp.New(devidp.Config{
		Issuer: issuer,
		Clients: []devidp.Client{{
			ID: clientID, Secret: clientSecret,
			RedirectURIs:         []string{hostURL + "/callback"},
			BackChannelLogoutURI: hostURL + "/backchannel",
			BackChannelSIDOnly:   true,
		}},
		SingleSignOn: true,
		Logger:       slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	idpSrv.Config.Handler = idp
	idpSrv.Start()
	t.Cleanup(idpSrv.Close)
	p := &provider{issuer: issuer, subject: "ana"}
	p.signIn = func(t *testing.T, b *browser, authURL string) *url.URL {
		resp, body := b.do(t, http.MethodGet, authURL, nil)
		if resp.StatusCode == http.StatusFound { // a live sign-in
			return location(t, resp)
		}
		form := url.Values{"username": {"ana"}, "password": {"ana-dev-pass"}}
		for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		resp, _ = b.do(t, http.MethodPost, issuer+"/authorize", form)
		return location(t, resp)
	}
	p.endSession = func(t *testing.T, b *browser, _ *host, _ string) {
		// The user signs out at the provider (asked, then confirmed);
		// the provider sends the logout token itself.
		if resp, _ := b.do(t, http.MethodGet, issuer+"/logout", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("provider logout: %d", resp.StatusCode)
		}
		if resp, _ := b.do(t, http.MethodPost, issuer+"/logout", url.Values{"confirm": {"yes"}}); resp.StatusCode != http.StatusOK {
			t.Fatalf("provider logout confirmed: %d", resp.StatusCode)
		}
	}
	p.logoutToken = func(t *testing.T, sid string) string {
		token, err := idp.LogoutToken(clientID, "", sid, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	return p, newHost(t, hostSrv, issuer)
}

// sidStorage is the example storage of zitadel/oidc with provider
// sessions: the op package leaves sessions to its storage, and puts into
// ID tokens what the storage's SetUserinfoFromRequest adds. A user keeps
// one provider session, and its sid, until endSession, as a provider's
// single sign-on would.
type sidStorage struct {
	*zstorage.Storage
	mu   sync.Mutex
	sids map[string]string // user id → sid
}

func (s *sidStorage) SetUserinfoFromRequest(ctx context.Context, info *zoidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, info, req, scopes); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sid, ok := s.sids[req.GetSubject()]
	if !ok {
		sid = rand.Text()
		s.sids[req.GetSubject()] = sid
	}
	info.AppendClaims("sid", sid)
	return nil
}

func (s *sidStorage) endSession(subject string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sids, subject)
}

// startZitadel runs zitadel/oidc's example OpenID provider (the op
// package, its example storage and login page) with provider sessions
// (sidStorage), and a host for it. The op package does not send
// back-channel logout tokens itself (the Zitadel server around it does);
// endSession signs one with the provider's own signing key, with
// zitadel/oidc's LogoutTokenClaims, and posts it to the host as the
// provider would.
func startZitadel(t *testing.T) (*provider, *host) {
	t.Helper()
	idpSrv, hostSrv := httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	issuer, hostURL := "http://"+idpSrv.Listener.Addr().String(), "http://"+hostSrv.Listener.Addr().String()
	st := &sidStorage{
		Storage: zstorage.NewStorageWithClients(zstorage.NewUserStore(issuer), map[string]*zstorage.Client{
			clientID: zstorage.WebClient(clientID, clientSecret, hostURL+"/callback"),
		}),
		sids: map[string]string{},
	}
	// SetupServer makes its logger the process's default (slog.SetDefault)
	// and logs each request there: discarded.
	idpSrv.Config.Handler = exampleop.SetupServer(issuer, st, slog.New(slog.DiscardHandler), false)
	idpSrv.Start()
	t.Cleanup(idpSrv.Close)
	const user = "id1" // the example user store's test-user@<host>
	p := &provider{issuer: issuer, subject: user}
	p.signIn = func(t *testing.T, b *browser, authURL string) *url.URL {
		resp, _ := b.do(t, http.MethodGet, authURL, nil)
		loginPage := location(t, resp)
		id := loginPage.Query().Get("authRequestID")
		if resp, _ := b.do(t, http.MethodGet, loginPage.String(), nil); resp.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("login page %s: %d", loginPage.Path, resp.StatusCode)
		}
		host := strings.Split(strings.TrimPrefix(issuer, "http://"), ":")[0]
		resp, body := b.do(t, http.MethodPost, loginPage.Scheme+"://"+loginPage.Host+"/login/username",
			url.Values{"username": {"test-user@" + host}, "password": {"verysecure"}, "id": {id}})
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("login: %d %s", resp.StatusCode, body)
		}
		resp, _ = b.do(t, http.MethodGet, location(t, resp).String(), nil) // the op's authorize callback
		return location(t, resp)
	}
	p.logoutToken = func(t *testing.T, sid string) string {
		key, err := st.SigningKey(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: key.SignatureAlgorithm(), Key: &jose.JSONWebKey{Key: key.Key(), KeyID: key.ID()}},
			(&jose.SignerOptions{}).WithType("logout+jwt"))
		if err != nil {
			t.Fatal(err)
		}
		claims := zoidc.NewLogoutTokenClaims(issuer, "", zoidc.Audience{clientID}, time.Now().Add(2*time.Minute), rand.Text(), sid, 0)
		token, err := zcrypto.Sign(claims, signer)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	p.endSession = func(t *testing.T, _ *browser, h *host, sid string) {
		st.endSession(user)
		postLogout(t, h, p.logoutToken(t, sid))
	}
	return p, newHost(t, hostSrv, issuer)
}
