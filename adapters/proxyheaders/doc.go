// Package proxyheaders reads the viewer from the headers an authenticating
// reverse proxy (oauth2-proxy and the like) sets after it has logged the
// user in: X-Forwarded-User (the subject), X-Forwarded-Email,
// X-Forwarded-Groups (comma-separated) and X-Forwarded-Preferred-Username
// (the display name). The names are configurable.
//
// Headers are only as trustworthy as the peer that sent them. An Identity
// accepts them only when the request's RemoteAddr lies in one of the
// configured trusted proxy prefixes; from any other address they are
// ignored and the request has no viewer (middleware.ErrNoViewer), so a
// client that reaches the app directly cannot name itself. New refuses a
// configuration without trusted proxies, or with a prefix that covers every
// address.
//
// RemoteAddr must be the proxy's own address: do not put a "real IP"
// middleware that rewrites RemoteAddr from X-Forwarded-For in front of the
// kit. The proxy must also replace, not append to, identity headers that a
// client sends; a header that arrives more than once is an error.
//
//	id, err := proxyheaders.New(proxyheaders.Config{
//		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")},
//	})
//
// Values must be valid UTF-8 without control characters and within the size
// limits; otherwise Viewer returns an error naming the header. Headers carry
// no login session, so Viewer.SessionKey is empty and logout revokes every
// embed session of the subject.
package proxyheaders
