package middleware

import (
	"context"
	"net/http"
	"strings"
)

// requestOriginKey is the context key of WithRequestOrigin.
type requestOriginKey struct{}

// WithRequestOrigin returns a copy of ctx that records origin
// (scheme://host[:port]) as the origin the browser sent the request to,
// for a kit whose Config.Origins.Host is empty: the iframe URL's
// parentOrigin and the frame endpoint's own-origin check use it in place
// of the scheme and Host the request arrived with. Config.Origins.Host, when
// set, wins.
//
// The middleware reads no X-Forwarded-* header itself, since any client
// can send one. Call WithRequestOrigin only for a request that came
// through a proxy you trust, from what that proxy said;
// proxyheaders.Identity.ForwardedOrigin in adapters/proxyheaders does, for
// X-Forwarded-Proto. An origin that is not http or https with a plain
// host[:port] and nothing else makes the request's origin unknown: the
// iframe URL then names no parentOrigin, and a browser without fetch
// metadata must name a Config.Origins.Trusted origin to load a frame.
func WithRequestOrigin(ctx context.Context, origin string) context.Context {
	o, err := parseHostOrigin(origin)
	if err != nil {
		o = ""
	}
	return context.WithValue(ctx, requestOriginKey{}, o)
}

// requestOrigin returns the origin WithRequestOrigin recorded in ctx ("" if
// it was malformed) and whether one was recorded.
func requestOrigin(ctx context.Context) (string, bool) {
	o, ok := ctx.Value(requestOriginKey{}).(string)
	return o, ok
}

// RequestOrigin returns the origin WithRequestOrigin recorded in ctx ("" if
// it was malformed) and whether one was recorded. Adapters read it to learn
// what a trusted proxy said about the request, such as that the browser
// reached it over https, without reading X-Forwarded-* themselves.
func RequestOrigin(ctx context.Context) (origin string, ok bool) {
	return requestOrigin(ctx)
}

// OverPlainHTTP reports whether r reached the app over plain http: it did
// not come over TLS, and no trusted proxy recorded an https origin for it
// (WithRequestOrigin; proxyheaders.Identity.ForwardedOrigin records one
// from X-Forwarded-Proto). An X-Forwarded-Proto header alone does not
// count, since any client can send one. The kit's Identities use it to
// warn that a Secure session cookie will not come back: browsers do not
// send one over plain http (Chromium and Firefox make an exception for
// localhost and 127.0.0.1; Safari does not), so every sign-in loops back
// to the login page with no error anywhere.
func OverPlainHTTP(r *http.Request) bool {
	if r.TLS != nil {
		return false
	}
	if origin, ok := RequestOrigin(r.Context()); ok && strings.HasPrefix(origin, "https://") {
		return false
	}
	return true
}
