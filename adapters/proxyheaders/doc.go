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
// configuration without trusted proxies, or whose prefixes together hold
// every IPv4 or every IPv6 address (0.0.0.0/0, or 0.0.0.0/1 with
// 128.0.0.0/1, and the like).
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
//
// # Proxy setup
//
// The kit tells the platform the host page's origin (the iframe URL's
// parentOrigin, the only origin the embedded page talks to). Behind a
// proxy that terminates TLS, the request the app sees is plain http, and
// the middleware reads no X-Forwarded-* header by itself, since any client
// can send one. Either set middleware.Config.Origins.Host to the public
// origin ("https://app.example.com"), the production setting, right
// whatever the proxy does with Host; or wrap the kit's handlers in
// Identity.ForwardedOrigin with the proxy's addresses:
//
//	handler := id.ForwardedOrigin(mux)
//
// It takes the scheme from X-Forwarded-Proto when, and only when, the
// request's RemoteAddr is one of the trusted proxies, and the host from
// the Host header, which the proxy must pass through (nginx:
// proxy_set_header Host $host; proxy_set_header X-Forwarded-Proto
// $scheme). The kit's own Identity need not be this one: an app whose
// viewers come from OIDC can build an Identity here only for
// ForwardedOrigin and its proxies' addresses.
package proxyheaders
