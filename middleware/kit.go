package middleware

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/embedkit/embedkit/embedkit"
)

// Platform is the part of the platform's management API the kit calls.
// *embedkit.Client satisfies it; tests and benchmarks can fake it.
//
// GenerateSession is called at most once per page load and never retried
// by the kit: a retried call may mint twice. RevokeSession of an unknown,
// expired or already revoked id succeeds. Implementations must be safe for
// concurrent use.
type Platform interface {
	GenerateSession(ctx context.Context, req *embedkit.GenerateSessionRequest) (*embedkit.Session, error)
	RevokeSession(ctx context.Context, sessionID string) error
}

// Default paths and limits. Config fields left zero take these values.
const (
	// DefaultFramePrefix is where FrameHandler expects to be mounted.
	DefaultFramePrefix = "/embed/frame/"
	// DefaultSessionPath is where the host script expects SessionHandler
	// unless an iframe names another URL in data-embedkit-session-url.
	DefaultSessionPath = "/embed/session"
	// DefaultRevokeTimeout bounds one logout's revokes, whatever the
	// browser does.
	DefaultRevokeTimeout = 10 * time.Second
	// DefaultRevokeConcurrency is how many revokes a Kit runs at once,
	// across every logout and the retrier: 128, twice the memory store's
	// bound on ids per host session, so one logout's revokes take a single
	// platform round trip while a mass logout opens no more than 128
	// connections for them.
	DefaultRevokeConcurrency = 128
	// DefaultLoginReturnParam is the query parameter of Paths.Login that
	// carries the same-origin path to come back to after login.
	DefaultLoginReturnParam = "next"
)

// DefaultRevokeBackoff is the revoke retry schedule unless
// Config.Revoke.Backoff says otherwise: up to 5 s before the second
// attempt, doubling to at most 10 minutes.
var DefaultRevokeBackoff = embedkit.Backoff{Min: 5 * time.Second, Max: 10 * time.Minute}

// DefaultLocales are the locales the platform ships, in the order the
// kit prefers them when nothing else decides.
var DefaultLocales = []string{
	"en-US", "de-DE", "es-ES", "es-MX", "fr-FR", "it-IT",
	"ja-JP", "nb-NO", "pt-BR", "pt-PT", "sv-SE", "vi-VN",
}

// Config describes a Kit. Platform, Identity, Store, Policy.DeploymentID
// and PlatformURL are required; every other field has a safe default.
//
// A Config is read once by New; changing it afterwards has no effect.
type Config struct {
	// Platform mints and revokes sessions: an *embedkit.Client.
	Platform Platform
	// Identity tells who the viewer of a request is.
	Identity Identity
	// Store keeps the minted session ids per host session, for logout.
	Store SessionStore
	// Policy turns a Viewer into a generate-session request.
	Policy Policy

	// PlatformURL is the platform's base URL, the one iframes load, for
	// example "https://acme.example.com". It must be https, except on a
	// loopback host (localhost, 127.0.0.1, ::1) where http is accepted for
	// development and tests.
	PlatformURL string
	// Targets are the embeds the host offers, by name. Names are what the
	// browser may choose (in a frame path or the JSON endpoint); everything
	// else about a target is set here. Names use a-z, 0-9, '-' and '_'.
	//
	// Targets choose what the host offers and which page a frame opens,
	// not what the viewer may see: a session is for the whole deployment
	// (Policy.DeploymentID), and the embedded page can link and navigate
	// to its other dashboards. What a viewer may see is decided on the
	// platform, by the groups, attributes and security context the Policy
	// sends and the deployment's access rules for them.
	Targets map[string]Target
	// AllowAnyDashboard lets the frame endpoint embed any dashboard whose
	// public id matches PublicIDPattern (path dashboard/{publicId}), with
	// the Policy's defaults, in addition to the registered Targets. Leave
	// it off to embed registered dashboards only. It never opens the
	// dashboard of a RouteScoped target.
	AllowAnyDashboard bool

	// Origins say where the host's pages are and which other origins may
	// use the kit's endpoints.
	Origins OriginOptions
	// Paths say where the kit's endpoints are mounted and where signing in
	// happens.
	Paths PathOptions
	// Locales say which locale and time zone the iframe URL gets.
	Locales LocaleOptions
	// Revoke says how logout revokes, and how failed revokes are retried.
	Revoke RevokeOptions
	// MintLimit bounds how fast one viewer can mint: by default
	// DefaultMintBurst at once, then one each DefaultMintInterval; 429
	// with Retry-After beyond that. Off turns it off.
	MintLimit MintLimitOptions

	// Logger receives one record per mint, revoke and failure. It never
	// receives an API key, token, session id or host session key: those
	// appear at most as embedkit.Redact hashes. Default: discard.
	Logger *slog.Logger
	// LogKey keys the hash that stands for a viewer in log records
	// (embedkit.RedactKeyed of the viewer's store key, Kit.RedactViewer):
	// an unkeyed hash of a subject could be reversed against a list of
	// emails. At least 16 bytes, secret, from a secret store or the
	// environment. Empty: a random key per process, so a viewer's records
	// correlate within one process only; give every instance of the host
	// app the same key to correlate them across instances. The grant and
	// pinned tags of HostSettings.Targets are keyed from it too: with one
	// key, every instance serves the same host script (one cache entry).
	LogKey []byte
	// Metrics counts mints and revokes. Default: none.
	Metrics Metrics
	// Tracer puts a span around each mint and revoke attempt. Default:
	// none.
	Tracer Tracer
	// ErrorHandler answers failed frame loads and JSON requests. It can
	// call FailureReason and ErrorStatus. Default: a plain page (or JSON
	// for SessionHandler) with the status of ErrorStatus and no details.
	ErrorHandler http.Handler
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// OriginOptions are the origin settings of a Config.
type OriginOptions struct {
	// Host is the origin (scheme://host[:port]) of the host pages that
	// hold the iframes. The kit passes it to the platform as the iframe
	// URL's parentOrigin parameter: the only origin the embedded page
	// exchanges messages with, since the frame endpoint sends no
	// referrer. Empty derives it from each request: the origin recorded
	// by WithRequestOrigin, else https when the request came over TLS,
	// and its Host. X-Forwarded-Proto and other X-Forwarded-* headers are
	// ignored, since any client can send them. Behind a proxy that
	// terminates TLS or rewrites Host, set Host (the production setting),
	// or put proxyheaders.Identity.ForwardedOrigin in front of the kit
	// with the proxy's addresses, so that X-Forwarded-Proto is read from
	// that proxy only.
	Host string
	// Trusted are extra origins (scheme://host[:port]) allowed to POST to
	// SessionHandler and Logout, and to frame the frame endpoints, for
	// hosts split across origins. The request's own origin is always
	// allowed. A frame load names its origin only in its Referer
	// (browsers send no Origin on a navigation), so a page of a trusted
	// origin frames the kit with referrerpolicy="origin" (only the
	// origin, no path).
	Trusted []string
	// RequireFetchMetadata refuses frame loads and JSON requests that
	// carry no Sec-Fetch-Site header, as browsers before 2023 (Safari
	// before 16.4) send. Off by default: such requests are judged by their
	// Origin and Referer alone, and a request with neither is let
	// through, as non-browser clients send none.
	RequireFetchMetadata bool
	// InsecureMintOnCrossSiteNavigation makes Kit.FrameURL mint for a
	// page that another site navigated to, as embedkit 0.1.0 did.
	// Browsers send SameSite=Lax cookies with such a navigation, so any
	// site can then spend the viewer's mint limit and, past the store's
	// per-login bound, revoke their open embeds. Off by default: FrameURL
	// answers such a page with the frame endpoint's URL (see FrameURL).
	InsecureMintOnCrossSiteNavigation bool
}

// PathOptions are the path settings of a Config.
type PathOptions struct {
	// Frame is the path FrameHandler is mounted at, with a trailing
	// slash. Default DefaultFramePrefix.
	Frame string
	// Session is the path SessionHandler is mounted at; the host script
	// uses it when an iframe names no data-embedkit-session-url. Default
	// DefaultSessionPath.
	Session string
	// Login, when set, is where the frame endpoint and ServeError send a
	// viewer who is not logged in (303), with the same-origin path of the request in
	// the query parameter LoginReturnParam. Empty answers 401. A load
	// inside an iframe (Sec-Fetch-Dest: iframe) always answers 401
	// through the ErrorHandler instead: sign-in pages refuse to be
	// framed, so the page there should offer to sign in in the top
	// window.
	Login string
	// LoginReturnParam names the return-path parameter of Login. Default
	// DefaultLoginReturnParam.
	LoginReturnParam string
}

// LocaleOptions are the locale and time zone settings of a Config.
type LocaleOptions struct {
	// Supported are the locales a viewer may get, BCP-47 tags. Nil means
	// DefaultLocales (the platform's shipped locales).
	Supported []string
	// Default is used when neither the host, the viewer nor the browser
	// chose a supported locale. Empty leaves the locale out of the iframe
	// URL, so the account default applies.
	Default string
	// TimeZone is an IANA zone name used when neither the host nor the
	// viewer chose one. Empty leaves it to the account default.
	TimeZone string
}

// RevokeOptions are the revocation settings of a Config.
type RevokeOptions struct {
	// Timeout bounds the revokes of one logout. Default
	// DefaultRevokeTimeout.
	Timeout time.Duration
	// Concurrency is how many revokes run at once, across every logout
	// and the retrier of the Kit; revokes that find no free slot before
	// their logout's deadline are queued for the retrier. Default
	// DefaultRevokeConcurrency.
	Concurrency int
	// Backoff is the wait before a failed revoke's next attempt: attempt
	// n waits up to min(Max, Min·2^(n-1)), with full jitter. The Kit sets
	// each queued record's due time with it, whatever the store. A zero
	// Min means DefaultRevokeBackoff.
	Backoff embedkit.Backoff
}

// Kit embeds the platform into a host application: it mints sessions for
// the host's viewers, serves the iframe and JSON endpoints and the host
// script, and revokes at logout. Create one with New; a Kit is safe for
// concurrent use.
type Kit struct {
	// cfg is the Config New was given, normalised: defaults filled in,
	// origins and the default locale in canonical form.
	cfg   Config
	queue RevokeQueue

	platformURL    *url.URL
	platformOrigin string
	embedBase      string // the platform URL of "/embed/", escaped, for iframeURL
	targets        map[string]Target
	byPath         map[string]string     // canonical frame ref -> target name
	hostTargets    map[string]HostTarget // the targets whose frames may move in place
	grantKey       []byte                // the key of their grant and pinned tags (per process)

	locales localeSet // Config.Locales.Supported, parsed

	cop     *http.CrossOriginProtection
	trusted map[string]bool // Config.Origins.Trusted, canonical

	limiter  *mintLimiter // nil when Config.MintLimit.Off
	arrivals *mintLimiter // frame loads marked with ArrivalParam; nil when Config.MintLimit.Off

	revokeSlots chan struct{} // shared by every revoke of the Kit
	poll        time.Duration // how often Run looks at a non-empty queue

	wake    chan struct{}
	kept    keptLogouts // logouts the stores could not record yet
	runMu   sync.Mutex
	flushMu sync.Mutex
	hostJS  *staticFile // the host script, with the kit's settings
}

// minLogKey is the shortest Config.LogKey New accepts, in bytes.
const minLogKey = 16

// RedactViewer returns the fingerprint the Kit logs for s, a viewer's
// store key (Viewer.Key) or subject: embedkit.RedactKeyed under
// Config.LogKey. A host that logs viewers itself calls it, so that its
// records and the kit's name a viewer alike.
func (k *Kit) RedactViewer(s string) string {
	return embedkit.RedactKeyed(k.cfg.LogKey, s)
}

// targetNamePattern is what a target name looks like.
var targetNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// New checks cfg and returns a Kit. Its errors name the field at fault.
func New(cfg Config) (*Kit, error) {
	switch {
	case cfg.Platform == nil:
		return nil, errors.New("middleware: Config.Platform is required (an *embedkit.Client from embedkit.New)")
	case cfg.Identity == nil:
		return nil, errors.New("middleware: Config.Identity is required (an identity source from adapters/, or an IdentityFunc)")
	case cfg.Store == nil:
		return nil, errors.New("middleware: Config.Store is required (use memstore.New() for one instance)")
	}
	if err := cfg.Policy.check(); err != nil {
		return nil, err
	}
	u, err := parsePlatformURL(cfg.PlatformURL)
	if err != nil {
		return nil, err
	}
	k := &Kit{platformURL: u, platformOrigin: u.Scheme + "://" + u.Host, wake: make(chan struct{}, 1)}
	eu := *u
	eu.Path += "/embed/"
	eu.RawPath, eu.RawQuery, eu.Fragment = "", "", ""
	k.embedBase = eu.String()
	if err := cfg.Paths.normalize(); err != nil {
		return nil, err
	}
	if k.locales, err = cfg.Locales.normalize(); err != nil {
		return nil, err
	}
	if err := cfg.Origins.normalize(); err != nil {
		return nil, err
	}
	cfg.Revoke.normalize()
	if err := cfg.MintLimit.normalize(); err != nil {
		return nil, err
	}
	k.limiter = newMintLimiter(cfg.MintLimit)
	k.arrivals = newMintLimiter(MintLimitOptions{Burst: arrivalBurst, Interval: arrivalInterval, Off: cfg.MintLimit.Off})
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case len(cfg.LogKey) == 0:
		cfg.LogKey = make([]byte, 32)
		rand.Read(cfg.LogKey) // never fails (crypto/rand)
	case len(cfg.LogKey) < minLogKey:
		return nil, fmt.Errorf("middleware: Config.LogKey has %d bytes, must have at least %d (or none, for a random key per process)", len(cfg.LogKey), minLogKey)
	default:
		cfg.LogKey = slices.Clone(cfg.LogKey)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NopMetrics{}
	}
	if cfg.Tracer == nil {
		cfg.Tracer = nopTracer{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	k.cfg = cfg
	if err := k.setTargets(cfg.Targets); err != nil {
		return nil, err
	}
	if err := k.setHostTargets(); err != nil {
		return nil, err
	}

	k.cop = http.NewCrossOriginProtection()
	k.trusted = make(map[string]bool, len(cfg.Origins.Trusted))
	for i, o := range cfg.Origins.Trusted {
		if err := k.cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("middleware: Config.Origins.Trusted[%d]: %w", i, err)
		}
		k.trusted[strings.ToLower(o)] = true
	}
	k.cop.SetDenyHandler(http.HandlerFunc(k.denyCrossOrigin))

	k.revokeSlots = make(chan struct{}, cfg.Revoke.Concurrency)
	k.poll = min(cfg.Revoke.Backoff.Min, idlePoll)
	if q, ok := cfg.Store.(RevokeQueue); ok {
		k.queue = q
	} else {
		k.queue = NewMemoryQueue(cfg.Now)
	}
	k.hostJS = renderHostScript(k.HostSettings())
	if u, ok := cfg.Identity.(KitUser); ok {
		u.UseKit(k)
	}
	return k, nil
}

// normalize fills in the default paths and checks them.
func (p *PathOptions) normalize() error {
	p.Frame = cmp.Or(p.Frame, DefaultFramePrefix)
	p.Session = cmp.Or(p.Session, DefaultSessionPath)
	p.LoginReturnParam = cmp.Or(p.LoginReturnParam, DefaultLoginReturnParam)
	if !strings.HasPrefix(p.Frame, "/") || !strings.HasSuffix(p.Frame, "/") {
		return fmt.Errorf("middleware: Config.Paths.Frame %q must start and end with /", p.Frame)
	}
	if !strings.HasPrefix(p.Session, "/") {
		return fmt.Errorf("middleware: Config.Paths.Session %q must start with /", p.Session)
	}
	if p.Login != "" {
		lu, err := url.Parse(p.Login)
		if err != nil || (lu.Scheme != "" && lu.Scheme != "https" && lu.Scheme != "http") || (lu.Scheme == "" && !strings.HasPrefix(lu.Path, "/")) {
			return errors.New("middleware: Config.Paths.Login must be an absolute URL or a path starting with /")
		}
	}
	return nil
}

// normalize fills in the shipped locales, checks every tag, puts Default
// in the form of the supported locale it matches, and checks TimeZone. It
// returns the parsed locales.
func (l *LocaleOptions) normalize() (localeSet, error) {
	if l.Supported == nil {
		l.Supported = DefaultLocales
	}
	if len(l.Supported) == 0 {
		return localeSet{}, errors.New("middleware: Config.Locales.Supported is empty; leave it nil for the platform's shipped locales")
	}
	l.Supported = slices.Clone(l.Supported)
	set, i, err := newLocaleSet(l.Supported)
	if err != nil {
		return localeSet{}, fmt.Errorf("middleware: Config.Locales.Supported[%d] %q is not a BCP-47 tag", i, l.Supported[i])
	}
	if l.Default != "" {
		d, ok := set.match(l.Default)
		if !ok {
			return localeSet{}, fmt.Errorf("middleware: Config.Locales.Default %q is not one of Config.Locales.Supported", l.Default)
		}
		l.Default = d
	}
	if l.TimeZone != "" && !ValidTimeZone(l.TimeZone) {
		return localeSet{}, fmt.Errorf("middleware: Config.Locales.TimeZone %q is not an IANA time zone name", l.TimeZone)
	}
	return set, nil
}

// normalize puts Host in canonical form.
func (o *OriginOptions) normalize() error {
	if o.Host == "" {
		return nil
	}
	h, err := parseHostOrigin(o.Host)
	if err != nil {
		return err
	}
	o.Host = h
	return nil
}

// normalize fills in the revoke defaults.
func (r *RevokeOptions) normalize() {
	if r.Timeout <= 0 {
		r.Timeout = DefaultRevokeTimeout
	}
	if r.Concurrency <= 0 {
		r.Concurrency = DefaultRevokeConcurrency
	}
	if r.Backoff.Min <= 0 {
		r.Backoff = DefaultRevokeBackoff
	}
	r.Backoff.Max = max(r.Backoff.Max, r.Backoff.Min)
}

// parseHostOrigin checks Config.Origins.Host and returns it in canonical
// form (lower-case scheme and host, no trailing slash). The host is a
// plain host[:port], as a browser writes an origin: an ASCII name or
// address and a port of digits, not an empty port, a name outside ASCII
// or an IPv6 zone, which no browser's origin would ever equal.
func parseHostOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" ||
		!plainHostPort(u.Host) || strings.HasSuffix(u.Host, ":") {
		if err == nil && !allBytes(u.Host, func(c byte) bool { return c < utf8.RuneSelf }) {
			return "", errors.New("middleware: Config.Origins.Host must be an origin such as https://app.example.com, its host in ASCII: " +
				"browsers send a name outside ASCII in its xn-- (punycode) form, so write that form")
		}
		return "", errors.New("middleware: Config.Origins.Host must be an origin such as https://app.example.com (scheme and host, no path)")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// parentOrigin is the origin of the host page that embeds the frame r
// loads: Config.Origins.Host, the origin recorded by WithRequestOrigin, or
// the request's own scheme and Host. Empty when the Host is not a plain
// host[:port].
func (k *Kit) parentOrigin(r *http.Request) string {
	if k.cfg.Origins.Host != "" {
		return k.cfg.Origins.Host
	}
	if o, ok := requestOrigin(r.Context()); ok {
		return o
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if !plainHostPort(r.Host) {
		return ""
	}
	return scheme + "://" + strings.ToLower(r.Host)
}

// plainHostPort reports whether h is a plain host[:port]: a name or an
// address (an IPv6 one in brackets) and an optional port, with nothing a
// URL would read as user information, path, query or escape.
func plainHostPort(h string) bool {
	if h == "" {
		return false
	}
	host, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return false
		}
		host, port = h[1:end], h[end+1:]
		if !allBytes(host, func(c byte) bool { return isHexDigit(c) || c == ':' || c == '.' }) {
			return false
		}
	} else if i := strings.IndexByte(h, ':'); i >= 0 {
		host, port = h[:i], h[i:]
	}
	if port != "" && (port[0] != ':' || !allBytes(port[1:], func(c byte) bool { return c >= '0' && c <= '9' })) {
		return false
	}
	return host != "" && (strings.HasPrefix(h, "[") || allBytes(host, func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
	}))
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// allBytes reports whether ok holds for every byte of s.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// parsePlatformURL checks Config.PlatformURL.
func parsePlatformURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("middleware: Config.PlatformURL is required (the platform's base URL, for example https://acme.example.com)")
	}
	// The client's rule, so that a URL embedkit.New accepts is accepted
	// here too.
	u, err := embedkit.ParseBaseURL(s)
	if err != nil {
		return nil, fmt.Errorf("middleware: Config.PlatformURL: %s", strings.TrimPrefix(err.Error(), "embedkit: "))
	}
	return u, nil
}

// setTargets checks and indexes the registered targets.
func (k *Kit) setTargets(targets map[string]Target) error {
	k.targets = make(map[string]Target, len(targets))
	k.byPath = make(map[string]string, len(targets))
	names := make([]string, 0, len(targets))
	for name := range targets {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := targets[name]
		if !targetNamePattern.MatchString(name) {
			return fmt.Errorf("middleware: Config.Targets[%q]: a name uses a-z, 0-9, '-' and '_' (at most 64)", name)
		}
		if err := t.check(); err != nil {
			return fmt.Errorf("middleware: Config.Targets[%q]%w", name, err)
		}
		if name == "dashboard" || ((name == string(KindApp) || name == string(KindChat)) && name != string(t.Kind)) {
			return fmt.Errorf("middleware: Config.Targets[%q]: the name is reserved for the frame path of that kind", name)
		}
		if t.Locale != "" {
			l, ok := k.locales.match(t.Locale)
			if !ok {
				return fmt.Errorf("middleware: Config.Targets[%q].Locale %q is not one of Config.Locales.Supported", name, t.Locale)
			}
			t.Locale = l
		}
		if t.TimeZone != "" && !ValidTimeZone(t.TimeZone) {
			return fmt.Errorf("middleware: Config.Targets[%q].TimeZone %q is not an IANA time zone name", name, t.TimeZone)
		}
		ref := t.canonicalRef()
		if other, dup := k.byPath[ref]; dup {
			return fmt.Errorf("middleware: Config.Targets[%q] and [%q] both embed %s; the frame path %s would be ambiguous", other, name, ref, ref)
		}
		k.byPath[ref] = name
		k.targets[name] = t
	}
	return nil
}

// Target returns the registered target called name.
func (k *Kit) Target(name string) (Target, bool) {
	t, ok := k.targets[name]
	return t, ok
}

// FrameSrc returns the iframe src of a target: FramePrefix followed by ref,
// where ref is a registered target name, "app", "chat" or
// "dashboard/{publicId}". It does not check that ref resolves.
func (k *Kit) FrameSrc(ref string) string {
	return k.cfg.Paths.Frame + ref
}

// PlatformOrigin returns the platform's origin (scheme://host[:port]), the
// value SecurityHeaders needs.
func (k *Kit) PlatformOrigin() string { return k.platformOrigin }

// FramePrefix returns where FrameHandler expects to be mounted
// (Config.Paths.Frame or DefaultFramePrefix).
func (k *Kit) FramePrefix() string { return k.cfg.Paths.Frame }

// SessionPath returns where the host script expects SessionHandler
// (Config.Paths.Session or DefaultSessionPath).
func (k *Kit) SessionPath() string { return k.cfg.Paths.Session }

// resolve finds the target a browser-supplied reference names: a
// registered target name, or a canonical frame path ("app", "chat",
// "dashboard/{publicId}").
//
// A RouteScoped target is not found: only its route (FrameFunc) serves
// it. Its frame path "dashboard/{publicId}" finds the registered target
// before AllowAnyDashboard is consulted, so that cannot open it either.
func (k *Kit) resolve(ref string) (name string, t Target, ok bool) {
	name, t, ok = k.lookup(ref)
	if !ok || t.RouteScoped {
		return "", Target{}, false
	}
	return name, t, true
}

// lookup is resolve without the RouteScoped rule.
func (k *Kit) lookup(ref string) (name string, t Target, ok bool) {
	if n, found := k.byPath[ref]; found {
		return n, k.targets[n], true
	}
	if t, found := k.targets[ref]; found {
		return ref, t, true
	}
	if id, isDash := strings.CutPrefix(ref, "dashboard/"); isDash && k.cfg.AllowAnyDashboard && PublicIDPattern.MatchString(id) {
		return ref, Target{Kind: KindDashboard, PublicID: id}, true
	}
	return "", Target{}, false
}
