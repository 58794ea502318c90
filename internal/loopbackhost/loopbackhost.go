// Package loopbackhost is the Host check of endpoints meant for the local
// machine only (the emulator's control API, the demo's /metrics): a
// defence against DNS rebinding, where a web page rebinds its own name to
// 127.0.0.1 and so reaches a loopback listener from the browser, but still
// sends its own name in Host.
package loopbackhost

import (
	"net"
	"net/http"
	"strings"
)

// Allowed reports whether the Host of r names this machine (IsLoopback),
// is the IP address the request's connection was accepted on, or is a
// name for which extra (which may be nil) reports true. Ports are not
// compared: the name alone is what a rebinding page cannot fake.
func Allowed(r *http.Request, extra func(name string) bool) bool {
	if r.Host == "" {
		return false
	}
	name := Name(r.Host)
	if IsLoopback(name) {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		// An IP literal is what the client dialled: a rebinding page
		// sends its own name, never the listener's address.
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok && la.IP.Equal(ip) {
			return true
		}
	}
	return extra != nil && extra(name)
}

// IsLoopback reports whether host (no port; IPv6 brackets allowed) names
// this machine: localhost or a name under .localhost (RFC 6761), in any
// case, or a loopback address (127.0.0.0/8, ::1). Browsers resolve every
// .localhost name to loopback themselves, so a rebinding page cannot use
// one. The tests hold it to the same cases as embedkit.IsLoopbackHost
// (internal/ruletest), which the emulator, as the platform's independent
// implementation, does not import.
func IsLoopback(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Name is the host of a Host header or a configured host, without port
// or brackets, lower-cased; an IP address in its canonical form.
func Name(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

// Handler answers 403 to a request whose Host is not Allowed (with no
// extra names) and passes the others to next.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Allowed(r, nil) {
			http.Error(w, "Host refused: this endpoint answers only to a loopback address, localhost or the address it was reached on (a defence against DNS rebinding)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
