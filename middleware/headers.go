package middleware

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// HeaderOptions adjust SecurityHeaders.
type HeaderOptions struct {
	// BaseCSP is the host's existing Content-Security-Policy, composed
	// with the kit's rules instead of being replaced (see SecurityHeaders).
	// A policy already set on the response by an outer handler is composed
	// the same way.
	BaseCSP string
	// FrameSources are further frame-src sources beside 'self' and the
	// platform origin, for other embeds the host shows.
	FrameSources []string
}

// SecurityHeaders returns middleware for the host's pages that embed the
// platform. It sets
//
//	Content-Security-Policy: default-src 'self'; frame-src 'self' <platformOrigin>; frame-ancestors 'self'
//	X-Content-Type-Options: nosniff
//	Referrer-Policy: strict-origin-when-cross-origin
//
// frame-src needs 'self' for the kit's frame endpoint and the platform
// origin for the page it redirects to; nothing else may be framed.
//
// Composing with an existing policy: when opts.BaseCSP is set, or an outer
// handler already set Content-Security-Policy, that policy is kept
// directive by directive: its frame-src (or, without one, its child-src or
// default-src sources) gets 'self' and the platform origin added, and
// default-src and frame-ancestors are added only when it lacks them. A
// handler below may still replace the header.
//
// platformOrigin is scheme://host[:port] (a path is ignored; Kit's
// PlatformOrigin gives it). SecurityHeaders panics when it is not an
// absolute http or https URL, since that is a setup mistake.
func SecurityHeaders(platformOrigin string, opts HeaderOptions) func(http.Handler) http.Handler {
	origin := mustOrigin(platformOrigin)
	extra := append([]string{"'self'", origin}, opts.FrameSources...)
	fixed := ComposeCSP(opts.BaseCSP, extra)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			csp := fixed
			if prev := h.Get("Content-Security-Policy"); prev != "" {
				if opts.BaseCSP != "" {
					prev = opts.BaseCSP + "; " + prev
				}
				csp = ComposeCSP(prev, extra)
			}
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			next.ServeHTTP(w, r)
		})
	}
}

// mustOrigin returns the origin of s or panics.
func mustOrigin(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		panic(fmt.Sprintf("middleware: SecurityHeaders: platform origin %q must be an absolute http or https URL", s))
	}
	return u.Scheme + "://" + u.Host
}

// ComposeCSP returns base with the kit's embedding rules applied:
// frameSources added to frame-src (started from child-src or default-src
// when base has no frame-src, so nothing base allowed is lost), and
// default-src 'self' and frame-ancestors 'self' added when base lacks
// them. Directive order of base is kept; an empty base gives the kit's
// policy alone.
func ComposeCSP(base string, frameSources []string) string {
	type directive struct {
		name    string
		sources []string
	}
	var ds []directive
	index := map[string]int{}
	for _, part := range strings.Split(base, ";") {
		fields := strings.Fields(part)
		if len(fields) == 0 {
			continue
		}
		name := strings.ToLower(fields[0])
		if _, dup := index[name]; dup {
			continue // browsers ignore a repeated directive
		}
		index[name] = len(ds)
		ds = append(ds, directive{name, fields[1:]})
	}
	get := func(name string) ([]string, bool) {
		if i, ok := index[name]; ok {
			return ds[i].sources, true
		}
		return nil, false
	}
	if _, ok := index["default-src"]; !ok {
		index["default-src"] = len(ds)
		ds = append(ds, directive{"default-src", []string{"'self'"}})
	}
	frame, ok := get("frame-src")
	if !ok {
		frame, ok = get("child-src")
		if !ok {
			frame, _ = get("default-src")
		}
		frame = slices.Clone(frame)
		index["frame-src"] = len(ds)
		ds = append(ds, directive{"frame-src", nil})
	}
	frame = slices.DeleteFunc(slices.Clone(frame), func(s string) bool { return s == "'none'" })
	for _, s := range frameSources {
		if !slices.Contains(frame, s) {
			frame = append(frame, s)
		}
	}
	ds[index["frame-src"]].sources = frame
	if _, ok := index["frame-ancestors"]; !ok {
		ds = append(ds, directive{"frame-ancestors", []string{"'self'"}})
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strings.Join(append([]string{d.name}, d.sources...), " ")
	}
	return strings.Join(parts, "; ")
}
