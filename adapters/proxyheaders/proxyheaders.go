package proxyheaders

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/textproto"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/embedkit/embedkit/middleware"
)

// Default header names, as sent by common authenticating proxies.
const (
	DefaultUserHeader        = "X-Forwarded-User"
	DefaultEmailHeader       = "X-Forwarded-Email"
	DefaultGroupsHeader      = "X-Forwarded-Groups"
	DefaultDisplayNameHeader = "X-Forwarded-Preferred-Username"
)

// Default size limits of header values, in bytes.
const (
	DefaultMaxValueBytes  = 512
	DefaultMaxGroupsBytes = 8 << 10
)

// Config configures an Identity.
type Config struct {
	// TrustedProxies are the addresses of the proxies that authenticate
	// users and set the headers. Required. Prefixes that together hold
	// every IPv4 address or every IPv6 address are refused, whether one
	// prefix (0.0.0.0/0, ::/0, ::ffff:0.0.0.0/96) or several
	// (0.0.0.0/1 and 128.0.0.0/1); broad prefixes that leave addresses
	// out are accepted, so list only the proxies' own addresses.
	// IPv4-mapped prefixes (::ffff:10.0.0.0/104) are read as the IPv4
	// prefixes they name; remote addresses are matched unmapped, so a
	// shorter IPv6 prefix (::/8) trusts no IPv4 client.
	TrustedProxies []netip.Prefix

	// Header names; empty means the default. DisplayNameHeader "-" turns
	// the display name off.
	UserHeader        string
	EmailHeader       string
	GroupsHeader      string
	DisplayNameHeader string

	// MaxValueBytes bounds the user, email and display name values
	// (default DefaultMaxValueBytes); MaxGroupsBytes bounds the groups value
	// (default DefaultMaxGroupsBytes).
	MaxValueBytes  int
	MaxGroupsBytes int

	// Logger receives the one warning about identity headers from an
	// untrusted address (default slog.Default()).
	Logger *slog.Logger
}

// Identity reads the viewer from the headers of a trusted proxy. It is safe
// for concurrent use.
type Identity struct {
	trusted   []netip.Prefix
	user      string
	email     string
	groups    string
	display   string
	maxValue  int
	maxGroups int
	logger    *slog.Logger
	warnOnce  sync.Once

	protoWarnOnce sync.Once // for ForwardedOrigin
}

var _ middleware.Identity = (*Identity)(nil)

// New returns an Identity for cfg. It fails when no trusted proxy is
// configured or the trusted prefixes together hold every IPv4 or every
// IPv6 address.
func New(cfg Config) (*Identity, error) {
	if len(cfg.TrustedProxies) == 0 {
		return nil, errors.New("proxyheaders: no trusted proxies configured; headers from anyone else must be ignored")
	}
	id := &Identity{
		user:      headerName(cfg.UserHeader, DefaultUserHeader),
		email:     headerName(cfg.EmailHeader, DefaultEmailHeader),
		groups:    headerName(cfg.GroupsHeader, DefaultGroupsHeader),
		display:   headerName(cfg.DisplayNameHeader, DefaultDisplayNameHeader),
		maxValue:  cfg.MaxValueBytes,
		maxGroups: cfg.MaxGroupsBytes,
		logger:    cfg.Logger,
	}
	if cfg.DisplayNameHeader == "-" {
		id.display = ""
	}
	for i, p := range cfg.TrustedProxies {
		if !p.IsValid() {
			return nil, fmt.Errorf("proxyheaders: trusted proxy %d: invalid prefix", i+1)
		}
		n := normalizePrefix(p)
		if n.Bits() == 0 {
			return nil, fmt.Errorf("proxyheaders: trusted proxy %d: %s trusts every address", i+1, p)
		}
		id.trusted = append(id.trusted, n)
	}
	if all4, all6 := trustsEveryone(id.trusted); all4 || all6 {
		var every []string
		if all4 {
			every = append(every, "every IPv4 address")
		}
		if all6 {
			every = append(every, "every IPv6 address")
		}
		return nil, fmt.Errorf("proxyheaders: trusted proxies %v together trust %s; list only the proxies' own addresses",
			cfg.TrustedProxies, strings.Join(every, " and "))
	}
	for _, h := range []string{id.user, id.email, id.groups, id.display} {
		if h != "" && !validHeaderName(h) {
			return nil, fmt.Errorf("proxyheaders: invalid header name %q", h)
		}
	}
	if id.maxValue <= 0 {
		id.maxValue = DefaultMaxValueBytes
	}
	if id.maxGroups <= 0 {
		id.maxGroups = DefaultMaxGroupsBytes
	}
	if id.logger == nil {
		id.logger = slog.Default()
	}
	return id, nil
}

func headerName(name, def string) string {
	if name == "" {
		return def
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

func validHeaderName(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return h != ""
}

// Viewer returns the viewer named by the proxy's headers.
//
// Requests whose RemoteAddr is not in a trusted prefix get ErrNoViewer
// whatever their headers say; the first such request that carries identity
// headers logs one warning (header names and address, never values). From
// a trusted proxy, a missing or empty user header is ErrNoViewer; a value
// that is repeated, oversized, not UTF-8 or holds control characters is an
// error naming the header.
//
// Headers carry no login session, so the Viewer's SessionKey is empty and
// logout revokes every session of the subject.
func (id *Identity) Viewer(r *http.Request) (*middleware.Viewer, error) {
	addr, ok := remoteAddr(r.RemoteAddr)
	if !ok || !id.isTrusted(addr) {
		id.warnUntrusted(r, addr, ok)
		return nil, middleware.ErrNoViewer
	}
	sub, err := id.value(r, id.user, id.maxValue)
	if err != nil {
		return nil, err
	}
	if sub == "" {
		return nil, middleware.ErrNoViewer
	}
	v := &middleware.Viewer{Subject: sub}
	if v.Email, err = id.value(r, id.email, id.maxValue); err != nil {
		return nil, err
	}
	if id.display != "" {
		if v.DisplayName, err = id.value(r, id.display, id.maxValue); err != nil {
			return nil, err
		}
	}
	groups, err := id.value(r, id.groups, id.maxGroups)
	if err != nil {
		return nil, err
	}
	v.Groups = splitGroups(groups)
	return v, nil
}

// value returns the trimmed value of header h, checking it.
func (id *Identity) value(r *http.Request, h string, limit int) (string, error) {
	vals := r.Header.Values(h)
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", fmt.Errorf("proxyheaders: header %s: sent %d times; the proxy must set it once, replacing what the client sent", h, len(vals))
	}
	s := vals[0]
	if len(s) > limit {
		return "", fmt.Errorf("proxyheaders: header %s: value is %d bytes, over the %d-byte limit", h, len(s), limit)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("proxyheaders: header %s: value is not valid UTF-8", h)
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return "", fmt.Errorf("proxyheaders: header %s: value holds a control character", h)
		}
	}
	return strings.TrimSpace(s), nil
}

func (id *Identity) isTrusted(a netip.Addr) bool {
	for _, p := range id.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// warnUntrusted logs, once per Identity, that identity headers came from an
// address that is not a trusted proxy.
func (id *Identity) warnUntrusted(r *http.Request, addr netip.Addr, parsed bool) {
	var present []string
	for _, h := range []string{id.user, id.email, id.groups, id.display} {
		if h != "" && len(r.Header.Values(h)) > 0 {
			present = append(present, h)
		}
	}
	if len(present) == 0 {
		return
	}
	id.warnOnce.Do(func() {
		from := "unparsable address"
		if parsed {
			from = addr.String()
		}
		id.logger.LogAttrs(r.Context(), slog.LevelWarn,
			"proxyheaders: identity headers from an untrusted address ignored; further ones are ignored silently",
			slog.String("remote", from), slog.Any("headers", present))
	})
}

// remoteAddr parses http.Request.RemoteAddr ("ip:port", or a bare ip).
func remoteAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// splitGroups splits a comma-separated list, trimming items and dropping
// empty ones and duplicates. It returns nil for an empty list.
func splitGroups(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" || seen[item] {
			continue
		}
		seen[item] = true
		out = append(out, item)
	}
	return out
}
