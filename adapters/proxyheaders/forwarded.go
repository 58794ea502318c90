package proxyheaders

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/embedkit/embedkit/middleware"
)

// protoHeader is the header a trusted proxy names the browser's scheme in.
const protoHeader = "X-Forwarded-Proto"

// ForwardedOrigin returns a handler that serves next, recording first, for
// a request whose RemoteAddr lies in a trusted proxy prefix, the origin
// the browser sent it to (middleware.WithRequestOrigin): the scheme the
// proxy names in X-Forwarded-Proto ("http" or "https") and the request's
// Host. A kit whose Config.Origins.Host is empty then names that origin as
// the iframe's parentOrigin, so a proxy that terminates TLS yields
// https://host rather than http://host.
//
// From any other address X-Forwarded-Proto is ignored, and so is a value
// from a trusted proxy that is not exactly one of http or https (sent
// twice, or a list such as "https, http" from a chain of proxies; the
// first one logs a warning): the request keeps its own scheme, https when
// it came over TLS. The proxy must set X-Forwarded-Proto, replacing what
// the client sent, and pass the browser's Host through; X-Forwarded-Host
// and Forwarded are not read. When the proxy rewrites Host, set
// middleware.Config.Origins.Host instead.
func (id *Identity) ForwardedOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scheme, ok := id.forwardedScheme(r); ok {
			r = r.WithContext(middleware.WithRequestOrigin(r.Context(), scheme+"://"+r.Host))
		}
		next.ServeHTTP(w, r)
	})
}

// forwardedScheme returns the scheme a trusted proxy names in
// X-Forwarded-Proto, and whether there is one to use.
func (id *Identity) forwardedScheme(r *http.Request) (string, bool) {
	addr, ok := remoteAddr(r.RemoteAddr)
	if !ok || !id.isTrusted(addr) {
		return "", false
	}
	vals := r.Header.Values(protoHeader)
	if len(vals) == 0 {
		return "", false
	}
	if len(vals) == 1 {
		switch s := strings.ToLower(strings.TrimSpace(vals[0])); s {
		case "http", "https":
			return s, true
		}
	}
	id.protoWarnOnce.Do(func() {
		id.logger.LogAttrs(r.Context(), slog.LevelWarn,
			"proxyheaders: "+protoHeader+" from a trusted proxy is not one value, http or https; the request's own scheme is used, and further ones are ignored silently",
			slog.String("remote", addr.String()), slog.Int("values", len(vals)))
	})
	return "", false
}
