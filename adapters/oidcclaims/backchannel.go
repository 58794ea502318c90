package oidcclaims

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/middleware"
)

// BackChannelLogoutEvent is the member of a logout token's events claim
// that makes it a back-channel logout token.
const BackChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

// Defaults of the back-channel logout handler.
const (
	DefaultMaxBodyBytes    = 16 << 10
	DefaultReplayCacheSize = 10000
	// DefaultClockSkew is how far ahead of the handler's clock a logout
	// token's iat may be: the leeway go-oidc allows for nbf.
	DefaultClockSkew = 5 * time.Minute
)

// SubjectRevoker ends every session of a subject: the host session and the
// embed sessions minted for it. The middleware Kit satisfies it (its embed
// sessions); an app whose login sessions live in cookies also ends them
// in its middleware.EndedLogins: EndingLogins does both.
type SubjectRevoker interface {
	RevokeSubject(ctx context.Context, subject string) error
}

// ProviderSessionRevoker is an optional capability of a SubjectRevoker:
// ending every login made in one session of the provider, named by its
// session id (the "sid" claim, which Mapping puts in
// Viewer.ProviderSID). Back-channel logout uses it for tokens that carry
// a sid but no sub. The middleware Kit satisfies it for the embed
// sessions (Kit.RevokeProviderSession); EndingLogins adds the host's
// logins.
//
// A sid is not a login's key: one provider session may hold several
// logins at the host (a sign-out at the host alone, then a sign-in
// again), so a revoker that looked the sid up as a Viewer.SessionKey
// would end nothing, and the provider would hear that it worked.
type ProviderSessionRevoker interface {
	RevokeProviderSession(ctx context.Context, sid string) error
}

// EndingLogins returns the revoker for BackChannelLogout in an app whose
// login sessions live in cookies (gorillasession.Identity with its
// EndedLogins): a logout by subject ends the subject's logins in list
// (EndLoginsOf) and then calls embeds.RevokeSubject; a logout by sid ends
// the logins of that provider session (EndLoginsOfSID) and then calls
// embeds.RevokeProviderSession, which embeds must implement (the Kit
// does). Both run even when one fails, and the error joins both, so the
// handler answers 400 and the provider can send the token again: a
// logout that could not end what it names never answers 200.
//
// EndingLogins panics when list or embeds is nil.
func EndingLogins(list middleware.EndedLogins, embeds SubjectRevoker) interface {
	SubjectRevoker
	ProviderSessionRevoker
} {
	if list == nil || embeds == nil {
		panic("oidcclaims: EndingLogins needs a list of ended logins and a revoker of embed sessions")
	}
	return endingLogins{list: list, embeds: embeds}
}

type endingLogins struct {
	list   middleware.EndedLogins
	embeds SubjectRevoker
}

func (e endingLogins) RevokeSubject(ctx context.Context, subject string) error {
	errHost := e.list.EndLoginsOf(ctx, subject)
	errEmbed := e.embeds.RevokeSubject(ctx, subject)
	return errors.Join(errHost, errEmbed)
}

func (e endingLogins) RevokeProviderSession(ctx context.Context, sid string) error {
	errHost := e.list.EndLoginsOfSID(ctx, sid)
	var errEmbed error
	if pr, ok := e.embeds.(ProviderSessionRevoker); ok {
		errEmbed = pr.RevokeProviderSession(ctx, sid)
	} else {
		errEmbed = fmt.Errorf("oidcclaims: EndingLogins: the embed revoker (%T) cannot end a provider session's embed sessions: it does not implement ProviderSessionRevoker", e.embeds)
	}
	return errors.Join(errHost, errEmbed)
}

// LogoutOption configures BackChannelLogout.
type LogoutOption func(*logoutConfig)

type logoutConfig struct {
	now       func() time.Time
	logger    *slog.Logger
	maxBody   int64
	cacheSize int
	skew      time.Duration
}

// WithClock sets the clock of the replay cache and of the iat check. Use the
// same clock as the verifier's oidc.Config.Now, which checks expiry.
func WithClock(now func() time.Time) LogoutOption {
	return func(c *logoutConfig) { c.now = now }
}

// WithLogger sets where rejected tokens and failed revokes are logged. The
// log never holds the token; a token id appears only as a short hash.
func WithLogger(l *slog.Logger) LogoutOption {
	return func(c *logoutConfig) { c.logger = l }
}

// WithMaxBodyBytes bounds the request body (default DefaultMaxBodyBytes).
func WithMaxBodyBytes(n int64) LogoutOption {
	return func(c *logoutConfig) { c.maxBody = n }
}

// WithReplayCacheSize bounds how many token ids are remembered (default
// DefaultReplayCacheSize). When full, expired ids go first, then the id
// whose token expires soonest.
func WithReplayCacheSize(n int) LogoutOption {
	return func(c *logoutConfig) { c.cacheSize = n }
}

// WithClockSkew sets how far in the future a logout token's iat may be
// (default DefaultClockSkew), for a provider whose clock runs ahead. A
// negative d means the default.
func WithClockSkew(d time.Duration) LogoutOption {
	return func(c *logoutConfig) { c.skew = d }
}

// BackChannelLogout returns the handler of an OpenID Connect Back-Channel
// Logout 1.0 endpoint (register its URL as the client's
// backchannel_logout_uri).
//
// It accepts a POST whose form holds logout_token, and checks that the
// token:
//
//   - has the JOSE header typ "logout+jwt" (or "application/logout+jwt",
//     compared without regard to case);
//   - is signed by the issuer, for this client, and not expired (verifier,
//     which the host builds with its ClientID; it also rejects tokens
//     without jti or exp);
//   - has an iat claim at most the clock skew (WithClockSkew) in the
//     future, an events claim whose BackChannelLogoutEvent member is a JSON
//     object, no nonce claim, and a sub or sid claim;
//   - was not accepted before (its jti is remembered until it expires).
//
// An old iat is accepted as long as the token has not expired: exp, not
// iat, bounds a token's life, and the replay check covers it until then.
//
// For a token with sub, revoker.RevokeSubject(sub) ends all of the
// subject's sessions, also when a sid narrows the logout to one session: the
// kit errs on the side of ending more. A token with only sid needs revoker
// to implement ProviderSessionRevoker, whose RevokeProviderSession(sid)
// ends every login made in that provider session; without it the token
// is refused with 400, never answered 200 for a logout that ended
// nothing.
//
// It answers 200 with Cache-Control: no-store when the sessions are ended,
// 405 for other methods, and 400 for every rejected token and for a failed
// revoke (as the specification asks); a token whose revoke failed can be
// sent again. Error bodies are a fixed JSON object that holds nothing of
// the token.
//
// The handler is open to anyone, so a forged token must not cost an
// outbound request. A verifier from Provider.Verifier uses go-oidc's
// RemoteKeySet, which fetches the provider's keys again for every token its
// cached keys do not verify: one fetch per forged POST. Build the verifier
// on a KeySet instead, which fetches at most once per
// DefaultKeyRefreshInterval (see the package documentation).
//
// BackChannelLogout panics when verifier or revoker is nil.
func BackChannelLogout(verifier *oidc.IDTokenVerifier, revoker SubjectRevoker, opts ...LogoutOption) http.Handler {
	if verifier == nil || revoker == nil {
		panic("oidcclaims: BackChannelLogout needs a verifier and a revoker")
	}
	cfg := logoutConfig{
		now:       time.Now,
		logger:    slog.Default(),
		maxBody:   DefaultMaxBodyBytes,
		cacheSize: DefaultReplayCacheSize,
		skew:      DefaultClockSkew,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cacheSize < 1 {
		cfg.cacheSize = 1
	}
	if cfg.maxBody < 1 {
		cfg.maxBody = DefaultMaxBodyBytes
	}
	if cfg.skew < 0 {
		cfg.skew = DefaultClockSkew
	}
	return &backChannel{
		verifier: verifier,
		revoker:  revoker,
		cfg:      cfg,
		seen:     newReplayCache(cfg.cacheSize, cfg.now),
	}
}

type backChannel struct {
	verifier *oidc.IDTokenVerifier
	revoker  SubjectRevoker
	cfg      logoutConfig
	seen     *replayCache
}

// errBadToken marks a rejected logout token; its text goes to the log only.
var errBadToken = errors.New("oidcclaims: invalid logout token")

func (h *backChannel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.cfg.maxBody)
	if err := r.ParseForm(); err != nil {
		h.reject(w, r, fmt.Errorf("%w: reading form: %w", errBadToken, err))
		return
	}
	raw := r.PostForm.Get("logout_token")
	if raw == "" {
		h.reject(w, r, fmt.Errorf("%w: no logout_token in the form", errBadToken))
		return
	}
	tok, err := h.verify(r.Context(), raw)
	if err != nil {
		h.reject(w, r, err)
		return
	}
	key := tok.Issuer + "\x00" + tok.TokenID
	if !h.seen.add(key, tok.Expiry) {
		h.reject(w, r, fmt.Errorf("%w: token id %s was already used", errBadToken, shortHash(tok.TokenID)))
		return
	}
	// The revoke runs to completion even if the provider hangs up.
	ctx := context.WithoutCancel(r.Context())
	if tok.Subject != "" {
		err = h.revoker.RevokeSubject(ctx, tok.Subject)
	} else if pr, ok := h.revoker.(ProviderSessionRevoker); ok {
		err = pr.RevokeProviderSession(ctx, tok.SessionID)
	} else {
		err = fmt.Errorf("%w: token has sid but no sub, and the revoker cannot end a provider session's logins (it does not implement ProviderSessionRevoker)", errBadToken)
	}
	if err != nil {
		h.seen.remove(key)
		h.reject(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// verify runs every check of the logout token and returns it.
func (h *backChannel) verify(ctx context.Context, raw string) (*oidc.LogoutToken, error) {
	if err := checkLogoutTyp(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadToken, err)
	}
	tok, err := h.verifier.VerifyLogout(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadToken, err)
	}
	var claims struct {
		IssuedAt json.RawMessage            `json:"iat"`
		Events   map[string]json.RawMessage `json:"events"`
	}
	if err := tok.Claims(&claims); err != nil {
		return nil, fmt.Errorf("%w: claims: %w", errBadToken, err)
	}
	if len(claims.IssuedAt) == 0 || string(claims.IssuedAt) == "null" {
		return nil, fmt.Errorf("%w: no iat claim", errBadToken)
	}
	// A future iat means a token minted ahead of its use, or a broken
	// clock; only the skew is tolerated. exp bounds old tokens (see
	// BackChannelLogout).
	if limit := h.cfg.now().Add(h.cfg.skew); tok.IssuedAt.After(limit) {
		return nil, fmt.Errorf("%w: iat %s is more than %s ahead of the clock", errBadToken,
			tok.IssuedAt.UTC().Format(time.RFC3339), h.cfg.skew)
	}
	ev := strings.TrimSpace(string(claims.Events[BackChannelLogoutEvent]))
	if !strings.HasPrefix(ev, "{") {
		return nil, fmt.Errorf("%w: events claim: member %s is not a JSON object", errBadToken, BackChannelLogoutEvent)
	}
	return tok, nil
}

// checkLogoutTyp checks the JOSE header of a compact JWS: typ must name the
// logout+jwt media type. A JSON-serialised JWS is refused.
func checkLogoutTyp(raw string) error {
	first, _, ok := strings.Cut(raw, ".")
	if !ok {
		return errors.New("not a compact JWS")
	}
	b, err := base64.RawURLEncoding.DecodeString(first)
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	var hdr struct {
		Typ *string `json:"typ"`
	}
	if err := json.Unmarshal(b, &hdr); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if hdr.Typ == nil {
		return errors.New(`header: no typ; want "logout+jwt"`)
	}
	typ := strings.ToLower(*hdr.Typ)
	if typ != "logout+jwt" && typ != "application/logout+jwt" {
		return fmt.Errorf(`header: typ %q; want "logout+jwt"`, *hdr.Typ)
	}
	return nil
}

func (h *backChannel) reject(w http.ResponseWriter, r *http.Request, err error) {
	level := slog.LevelWarn
	if !errors.Is(err, errBadToken) {
		level = slog.LevelError
	}
	h.cfg.logger.LogAttrs(r.Context(), level, "oidcclaims: back-channel logout refused", slog.String("error", err.Error()))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"error":"invalid_request"}`+"\n")
}

// shortHash identifies a secret-ish value in logs without revealing it.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
