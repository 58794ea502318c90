package devidp

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/embedkit/embedkit/embedkit"
)

// Lifetimes of what the provider issues.
const (
	// CodeTTL is how long an authorization code may be redeemed.
	CodeTTL = 60 * time.Second
	// TokenTTL is the lifetime of ID tokens and access tokens.
	TokenTTL = time.Hour
	// LogoutTokenTTL is the lifetime of back-channel logout tokens.
	LogoutTokenTTL = 2 * time.Minute
	// SessionTTL is how long the provider remembers a sign-in for logout.
	SessionTTL = 24 * time.Hour
	// BackChannelTimeout bounds each back-channel logout request.
	BackChannelTimeout = 2 * time.Second
)

// BackChannelLogoutEvent is the event name carried by logout tokens.
const BackChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

// Client is a relying party registered with the provider.
type Client struct {
	// ID is the client_id. Required and unique.
	ID string
	// Secret is the client secret, used with client_secret_basic or
	// client_secret_post. Required.
	Secret string
	// RedirectURIs are the exact redirect_uri values the client may use.
	// At least one is required.
	RedirectURIs []string
	// PostLogoutRedirectURIs are the exact post_logout_redirect_uri values
	// /logout may redirect to for this client.
	PostLogoutRedirectURIs []string
	// BackChannelLogoutURI, when set, receives a logout_token POST when a
	// user who signed in to this client signs out at the provider. It must
	// be an http or https URL on a loopback host.
	BackChannelLogoutURI string
	// BackChannelSIDOnly makes the logout tokens sent to this client carry
	// the sid and no sub, as Back-Channel Logout 1.0 section 2.4 allows (a
	// token must hold one of the two): a relying party's test can see
	// whether a logout naming only the provider session ends anything.
	BackChannelSIDOnly bool
}

// User is an account of the provider. Its claims go into ID tokens and
// userinfo responses.
type User struct {
	// Username is what the user types on the sign-in page. Required and
	// unique.
	Username string
	// Password is the development password. Required.
	Password string
	// Subject is the "sub" claim. Empty means Username.
	Subject string
	// Name is the "name" claim.
	Name string
	// Email is the "email" claim; it is always reported verified.
	Email string
	// Groups is the "groups" claim.
	Groups []string
	// Region is the custom "region" claim.
	Region string
	// Tenant is the custom "tenant" claim.
	Tenant string
	// Locale is the "locale" claim, a BCP-47 tag.
	Locale string
	// ZoneInfo is the "zoneinfo" claim, an IANA time zone name.
	ZoneInfo string
	// CreatorMode is the custom "creator_mode" claim.
	CreatorMode bool
}

// DemoUsers returns the development demo accounts. Their passwords are
// fixed and public (the README lists them): development only.
//
//   - ana / ana-dev-pass: sales, EMEA, tenant northwind, de-DE, Europe/Berlin.
//   - ben / ben-dev-pass: sales, AMER, tenant northwind, en-US, America/New_York.
//   - chloe / chloe-dev-pass: analysts, APAC, tenant contoso-labs, fr-FR,
//     Asia/Tokyo, creator mode.
//
// Each call returns fresh copies that the caller may change.
func DemoUsers() []User {
	return []User{
		{
			Username: "ana", Password: "ana-dev-pass", Subject: "ana",
			Name: "Ana Lima", Email: "ana@northwind.test",
			Groups: []string{"sales", "emea"}, Region: "EMEA", Tenant: "northwind",
			Locale: "de-DE", ZoneInfo: "Europe/Berlin",
		},
		{
			Username: "ben", Password: "ben-dev-pass", Subject: "ben",
			Name: "Ben Okafor", Email: "ben@northwind.test",
			Groups: []string{"sales", "amer"}, Region: "AMER", Tenant: "northwind",
			Locale: "en-US", ZoneInfo: "America/New_York",
		},
		{
			Username: "chloe", Password: "chloe-dev-pass", Subject: "chloe",
			Name: "Chloé Martin", Email: "chloe@contoso-labs.test",
			Groups: []string{"analysts", "apac"}, Region: "APAC", Tenant: "contoso-labs",
			Locale: "fr-FR", ZoneInfo: "Asia/Tokyo", CreatorMode: true,
		},
	}
}

// Config configures a Provider.
type Config struct {
	// Issuer is the provider's absolute http or https URL, exactly as
	// relying parties are configured with it. Its path, if any, is the
	// prefix under which ServeHTTP answers.
	Issuer string
	// Clients are the registered relying parties. At least one is required.
	Clients []Client
	// Users are the accounts. Empty means DemoUsers().
	Users []User
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
	// Logger receives the provider's log lines. Nil means slog.Default().
	// Codes, tokens, passwords and cookies are never logged.
	Logger *slog.Logger
	// HTTPClient sends back-channel logout requests. Nil means a client
	// that does not follow redirects. Each request is bounded by
	// BackChannelTimeout either way.
	HTTPClient *http.Client
	// ProfileInUserInfo keeps the profile claims (name, email, groups,
	// locale, zoneinfo and the custom ones) out of the ID token, which
	// then carries only sub and the protocol claims; the userinfo endpoint
	// returns them. OpenID Connect Core 1.0, 5.4 allows this, and many
	// providers do it by default: it lets a relying party's tests see
	// whether it reads userinfo.
	ProfileInUserInfo bool
	// SingleSignOn makes /authorize answer a browser that still holds a
	// live sign-in at the provider with a code at once, for that sign-in
	// and its sid, as most providers do: a user who signed out of a
	// client alone and signs in again gets the same sid. Without it the
	// sign-in page always asks, and every sign-in has a sid of its own.
	SingleSignOn bool
}

// Provider is the development OpenID Connect provider. It is an
// http.Handler, safe for concurrent use.
type Provider struct {
	issuer   string
	basePath string
	clients  map[string]*Client
	users    map[string]*User
	now      func() time.Time
	log      *slog.Logger
	hc       *http.Client
	// profileInUserInfo: see Config.ProfileInUserInfo.
	profileInUserInfo bool
	// sso: see Config.SingleSignOn.
	sso bool

	key    *rsa.PrivateKey
	keyID  string
	signer jose.Signer // typ JWT: ID tokens
	// logoutSigner signs back-channel logout tokens, typ logout+jwt.
	logoutSigner jose.Signer
	jwks         jose.JSONWebKeySet

	mu       sync.Mutex
	codes    map[string]*authCode
	tokens   map[string]*accessGrant
	sessions map[string]*idpSession
	browsers map[string]string // browser cookie secret -> session id
}

type authCode struct {
	clientID    string
	redirectURI string
	nonce       string
	challenge   string
	scope       string
	user        *User
	sid         string
	authTime    time.Time
	expires     time.Time
	used        bool
	issued      []string // access tokens issued from this code
}

type accessGrant struct {
	user     *User
	clientID string
	sid      string
	expires  time.Time
}

type idpSession struct {
	id       string
	user     *User
	authTime time.Time
	clients  map[string]bool
}

// New checks cfg, generates the signing key and returns the provider.
func New(cfg Config) (*Provider, error) {
	iss, err := url.Parse(cfg.Issuer)
	if err != nil || (iss.Scheme != "http" && iss.Scheme != "https") || iss.Host == "" ||
		iss.RawQuery != "" || iss.Fragment != "" || iss.User != nil {
		return nil, fmt.Errorf("devidp: issuer %q must be an absolute http or https URL without query or fragment", cfg.Issuer)
	}
	p := &Provider{
		issuer:   cfg.Issuer,
		basePath: strings.TrimSuffix(iss.Path, "/"),
		clients:  map[string]*Client{},
		users:    map[string]*User{},
		now:      cfg.Now,
		log:      cfg.Logger,
		hc:       cfg.HTTPClient,
		codes:    map[string]*authCode{},

		profileInUserInfo: cfg.ProfileInUserInfo,
		sso:               cfg.SingleSignOn,
		tokens:            map[string]*accessGrant{},
		sessions:          map[string]*idpSession{},
		browsers:          map[string]string{},
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.hc == nil {
		p.hc = &http.Client{
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if len(cfg.Clients) == 0 {
		return nil, errors.New("devidp: at least one client is required")
	}
	for i := range cfg.Clients {
		c := cfg.Clients[i]
		c.RedirectURIs = slices.Clone(c.RedirectURIs)
		c.PostLogoutRedirectURIs = slices.Clone(c.PostLogoutRedirectURIs)
		if err := checkClient(&c); err != nil {
			return nil, err
		}
		if _, dup := p.clients[c.ID]; dup {
			return nil, fmt.Errorf("devidp: client %q is configured twice", c.ID)
		}
		p.clients[c.ID] = &c
	}
	users := cfg.Users
	if len(users) == 0 {
		users = DemoUsers()
	}
	for i := range users {
		u := users[i]
		u.Groups = slices.Clone(u.Groups)
		if u.Username == "" || u.Password == "" {
			return nil, fmt.Errorf("devidp: user %d needs a username and a password", i)
		}
		if u.Subject == "" {
			u.Subject = u.Username
		}
		if _, dup := p.users[u.Username]; dup {
			return nil, fmt.Errorf("devidp: user %q is configured twice", u.Username)
		}
		p.users[u.Username] = &u
	}
	if err := p.initKey(); err != nil {
		return nil, err
	}
	p.log.Warn("devidp: development OIDC provider started, not for production",
		"issuer", p.issuer, "clients", len(p.clients), "users", len(p.users), "kid", p.keyID)
	return p, nil
}

func checkClient(c *Client) error {
	if c.ID == "" || c.Secret == "" {
		return errors.New("devidp: each client needs an ID and a secret")
	}
	if len(c.RedirectURIs) == 0 {
		return fmt.Errorf("devidp: client %q needs at least one redirect URI", c.ID)
	}
	for _, list := range [][]string{c.RedirectURIs, c.PostLogoutRedirectURIs} {
		for _, raw := range list {
			u, err := url.Parse(raw)
			if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
				return fmt.Errorf("devidp: client %q: %q is not an absolute URL without fragment", c.ID, raw)
			}
		}
	}
	if c.BackChannelLogoutURI != "" {
		u, err := url.Parse(c.BackChannelLogoutURI)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !embedkit.IsLoopbackHost(u.Hostname()) {
			return fmt.Errorf("devidp: client %q: back-channel logout URI %q must be an http or https URL on a loopback host", c.ID, c.BackChannelLogoutURI)
		}
	}
	return nil
}

func (p *Provider) initKey() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("devidp: generating signing key: %w", err)
	}
	pub := jose.JSONWebKey{Key: &key.PublicKey, Algorithm: string(jose.RS256), Use: "sig"}
	thumb, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return fmt.Errorf("devidp: key thumbprint: %w", err)
	}
	p.key = key
	p.keyID = base64.RawURLEncoding.EncodeToString(thumb)[:16]
	pub.KeyID = p.keyID
	p.jwks = jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}}
	sk := jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: p.keyID}}
	if p.signer, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("JWT")); err != nil {
		return fmt.Errorf("devidp: creating signer: %w", err)
	}
	if p.logoutSigner, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("logout+jwt")); err != nil {
		return fmt.Errorf("devidp: creating signer: %w", err)
	}
	return nil
}

// Issuer returns the issuer URL the provider was configured with.
func (p *Provider) Issuer() string { return p.issuer }

// KeyID returns the key id ("kid") of the signing key published in the JWKS.
func (p *Provider) KeyID() string { return p.keyID }

func (p *Provider) endpoint(path string) string {
	return strings.TrimSuffix(p.issuer, "/") + path
}

// ServeHTTP routes the provider's endpoints, relative to the issuer's path.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, p.basePath)
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch path {
	case "/.well-known/openid-configuration":
		p.handleDiscovery(w, r)
	case "/jwks":
		p.handleJWKS(w, r)
	case "/authorize":
		p.handleAuthorize(w, r)
	case "/token":
		p.handleToken(w, r)
	case "/userinfo":
		p.handleUserinfo(w, r)
	case "/logout":
		p.handleLogout(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (p *Provider) handleDiscovery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.issuer,
		"authorization_endpoint":                p.endpoint("/authorize"),
		"token_endpoint":                        p.endpoint("/token"),
		"userinfo_endpoint":                     p.endpoint("/userinfo"),
		"jwks_uri":                              p.endpoint("/jwks"),
		"end_session_endpoint":                  p.endpoint("/logout"),
		"response_types_supported":              []string{"code"},
		"response_modes_supported":              []string{"query"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "groups"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"code_challenge_methods_supported":      []string{"S256"},
		"claims_supported": []string{
			"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "sid", "at_hash",
			"name", "preferred_username", "email", "email_verified", "locale", "zoneinfo",
			"groups", "region", "tenant", "creator_mode",
		},
		"backchannel_logout_supported":         true,
		"backchannel_logout_session_supported": true,
	})
}

func (p *Provider) handleJWKS(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	writeJSON(w, http.StatusOK, p.jwks)
}

// Listen opens a TCP listener for the provider. Unless allowRemote is set
// ("forced"), it refuses any address that is not a loopback address or
// "localhost": an empty host, 0.0.0.0 and :: all listen on every interface.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("devidp: listen address %q: %w", addr, err)
	}
	if !allowRemote && !embedkit.IsLoopbackHost(host) {
		return nil, fmt.Errorf("devidp: refusing to listen on %q: the development provider only listens on loopback addresses unless forced", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("devidp: listen: %w", err)
	}
	if !embedkit.IsLoopbackHost(host) {
		slog.Default().Warn("devidp: development OIDC provider forced onto a non-loopback address, not for production", "addr", ln.Addr().String())
	}
	return ln, nil
}

// randomToken returns 32 random bytes, base64url-encoded.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashString is SHA-256 of s, used to compare secrets of different lengths
// in constant time.
func hashString(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
