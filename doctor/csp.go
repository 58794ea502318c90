package doctor

import (
	"net/url"
	"strings"
)

// A cspPolicy is one Content-Security-Policy: its directives by lower-case
// name, each with its source expressions. Only the first occurrence of a
// directive counts, as in browsers.
type cspPolicy struct {
	directives map[string][]string
	order      []string
}

// parseCSP parses the values of Content-Security-Policy headers into the
// policies a browser enforces, every one of which must allow a load
// (CSP Level 3, "parse a serialized CSP list"): a header value holds
// policies separated by ",", a policy holds directives separated by ";",
// and a directive is a name and source expressions separated by ASCII
// whitespace. A directive name with characters outside ALPHA, DIGIT and
// "-" is ignored, as are empty policies.
func parseCSP(values []string) []cspPolicy {
	var out []cspPolicy
	for _, v := range values {
		for _, serialized := range strings.Split(v, ",") {
			p := cspPolicy{directives: map[string][]string{}}
			for _, d := range strings.Split(serialized, ";") {
				fields := strings.FieldsFunc(d, isASCIISpace)
				if len(fields) == 0 {
					continue
				}
				name := strings.ToLower(fields[0])
				if !isDirectiveName(name) {
					continue
				}
				if _, dup := p.directives[name]; dup {
					continue
				}
				p.directives[name] = fields[1:]
				p.order = append(p.order, name)
			}
			if len(p.order) > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

func isASCIISpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

func isDirectiveName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return s != ""
}

// String serialises p, directives in their order, for messages.
func (p cspPolicy) String() string {
	var b strings.Builder
	for i, name := range p.order {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(name)
		for _, s := range p.directives[name] {
			b.WriteByte(' ')
			b.WriteString(s)
		}
	}
	return b.String()
}

// frameDirective returns the directive that governs frame loads under p,
// frame-src falling back to child-src, then default-src, and "" when none
// is present (frames are not restricted).
func (p cspPolicy) frameDirective() string {
	for _, name := range []string{"frame-src", "child-src", "default-src"} {
		if _, ok := p.directives[name]; ok {
			return name
		}
	}
	return ""
}

// allowsFrame reports whether p lets a page of origin self load target in
// a frame. redirected says target is reached through a redirect, where
// browsers ignore a source's path.
func (p cspPolicy) allowsFrame(target, self *url.URL, redirected bool) bool {
	name := p.frameDirective()
	if name == "" {
		return true
	}
	return matchesSourceList(p.directives[name], target, self, redirected)
}

// matchesSourceList is CSP Level 3's "does url match source list": any
// expression matching is enough; 'none' and an empty list match nothing;
// nonces, hashes and other keywords never match a frame's URL.
func matchesSourceList(list []string, target, self *url.URL, redirected bool) bool {
	for _, expr := range list {
		if matchesSource(expr, target, self, redirected) {
			return true
		}
	}
	return false
}

// matchesSource matches one source expression against target.
func matchesSource(expr string, target, self *url.URL, redirected bool) bool {
	lower := strings.ToLower(expr)
	scheme := strings.ToLower(target.Scheme)
	switch {
	case lower == "*":
		// Any URL of a network scheme (and of self's scheme).
		return scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss" || scheme == strings.ToLower(self.Scheme)
	case lower == "'self'":
		return sameOriginOrUpgrade(target, self)
	case strings.HasPrefix(lower, "'"):
		return false // 'none', 'unsafe-inline', nonces, hashes, ...
	case isSchemeSource(lower):
		return schemeMatches(strings.TrimSuffix(lower, ":"), scheme)
	}
	return matchesHostSource(lower, target, self, redirected)
}

// isSchemeSource reports whether s is a scheme-source such as "https:".
func isSchemeSource(s string) bool {
	name, ok := strings.CutSuffix(s, ":")
	if !ok || name == "" || !(name[0] >= 'a' && name[0] <= 'z') {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// schemeMatches is CSP's scheme-part match: equal, or an upgrade from
// http to https (ws to wss).
func schemeMatches(expr, scheme string) bool {
	return expr == scheme || expr == "http" && scheme == "https" || expr == "ws" && scheme == "wss"
}

// sameOriginOrUpgrade is 'self': the same origin, or self's host over
// https when self is http (default ports).
func sameOriginOrUpgrade(target, self *url.URL) bool {
	ts, ss := strings.ToLower(target.Scheme), strings.ToLower(self.Scheme)
	if !strings.EqualFold(target.Hostname(), self.Hostname()) {
		return false
	}
	if ts == ss {
		return portOf(target) == portOf(self)
	}
	return ss == "http" && ts == "https" && portOf(self) == "80" && portOf(target) == "443"
}

// matchesHostSource matches a host-source: [scheme "://"] host [":" port]
// [path], host possibly starting with "*.".
func matchesHostSource(expr string, target, self *url.URL, redirected bool) bool {
	rest := expr
	exprScheme := ""
	if i := strings.Index(rest, "://"); i >= 0 {
		exprScheme, rest = rest[:i], rest[i+3:]
		if !isSchemeSource(exprScheme + ":") {
			return false
		}
	}
	scheme := strings.ToLower(target.Scheme)
	if exprScheme != "" {
		if !schemeMatches(exprScheme, scheme) {
			return false
		}
	} else if !schemeMatches(strings.ToLower(self.Scheme), scheme) {
		return false
	}
	hostPort, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hostPort, path = rest[:i], rest[i:]
	}
	host, port := hostPort, ""
	if strings.HasPrefix(hostPort, "[") {
		return false // CSP host-sources have no IPv6 literals
	}
	if i := strings.LastIndexByte(hostPort, ':'); i >= 0 {
		host, port = hostPort[:i], hostPort[i+1:]
		if port == "" {
			return false
		}
	}
	if host == "" {
		return false
	}
	th := strings.ToLower(target.Hostname())
	if sub, ok := strings.CutPrefix(host, "*."); ok {
		if !strings.HasSuffix(th, "."+sub) {
			return false
		}
	} else if th != host {
		return false
	}
	if !portMatches(port, exprScheme, target) {
		return false
	}
	if path == "" || redirected {
		return true
	}
	tp := target.EscapedPath()
	if tp == "" {
		tp = "/"
	}
	if strings.HasSuffix(path, "/") {
		return strings.HasPrefix(tp, path)
	}
	return tp == path
}

// portMatches is CSP's port-part match.
func portMatches(port, exprScheme string, target *url.URL) bool {
	tport := portOf(target)
	switch port {
	case "*":
		return true
	case "":
		// The default port of the target's scheme, also when an http
		// expression is upgraded to https.
		return tport == defaultPort(target.Scheme) || (exprScheme == "http" || exprScheme == "") && strings.EqualFold(target.Scheme, "https") && tport == "443"
	}
	if port == tport {
		return true
	}
	// An explicit :80 also matches https on :443 (upgrade).
	return port == "80" && strings.EqualFold(target.Scheme, "https") && tport == "443"
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return defaultPort(u.Scheme)
}

func defaultPort(scheme string) string {
	switch strings.ToLower(scheme) {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}
