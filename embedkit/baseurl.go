package embedkit

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// This file holds the platform's base URL rule, which the middleware, the
// demo and the development identity provider share.

// ParseBaseURL checks a platform base URL the way New does, and returns
// it with any trailing slash trimmed: an absolute https URL, or http on a
// loopback host (IsLoopbackHost) for an emulator on this machine, with no
// credentials, query or fragment. It is the one home of that rule: the
// middleware and the demo check their platform URL with it, so a URL one
// accepts the others accept too.
func ParseBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("embedkit: empty base URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("embedkit: base URL does not parse")
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("embedkit: base URL has no host")
	}
	if u.User != nil {
		return nil, errors.New("embedkit: base URL must not carry credentials")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("embedkit: base URL must not have a query or fragment")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !IsLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("embedkit: base URL must be https (plain http is allowed only for loopback hosts, not %q)", u.Hostname())
		}
	default:
		return nil, fmt.Errorf("embedkit: base URL scheme %q is not https", u.Scheme)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// IsLoopbackHost reports whether host (a name or an IP address, with or
// without IPv6 brackets, no port) is this machine: localhost or a name
// under .localhost (RFC 6761), or a loopback address (127.0.0.0/8, ::1).
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
