package middleware

import "context"

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
