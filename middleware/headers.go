package middleware

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
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
	// Logger receives the one warning SecurityHeaders logs when a page
	// has inline script or style that the kit's own policy blocks (see
	// SecurityHeaders). nil is slog.Default().
	Logger *slog.Logger
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
// default-src and frame-ancestors are added only when it lacks them.
//
// A handler below that sets a Content-Security-Policy of its own (with
// Set or Add) keeps it: the kit's policy is taken off that response and
// the handler's gets the kit's frame sources in its frame-src (started
// from child-src or default-src, as above; a policy that does not limit
// frames keeps not limiting them) and, when none of the handler's
// policies has a frame-ancestors directive, frame-ancestors 'self' in
// the first of them; nothing else. A frame-ancestors of the handler's
// own is kept as it is (an app may let a partner frame a page on
// purpose). So an app's page that sends its own policy keeps working,
// keeps its embeds, and cannot be framed by another site unless it says
// so.
//
// SecurityHeaders sets no X-Frame-Options and leaves one set by a handler
// as it is. Browsers that know frame-ancestors ignore X-Frame-Options, so
// where the kit adds frame-ancestors to a page whose X-Frame-Options is
// DENY, it adds frame-ancestors 'none' instead of 'self'.
//
// A page without a policy of its own runs under the kit's, whose
// default-src 'self' blocks inline script (a <script> without src, an
// onclick attribute) and inline style (a <style> element, a style
// attribute). Browsers drop them with a console message only, so while
// no page has shown this yet, SecurityHeaders reads the start (64 KiB) of
// each HTML answer it sets its own policy on, and the first time one has
// inline code it logs one warning (opts.Logger) naming the page and
// HeaderOptions.BaseCSP: give the app's policy there (for example
// "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self'
// 'unsafe-inline'") and the kit composes its frame-src into it, or move
// the code to files. After that warning, answers are no longer read.
//
// platformOrigin is scheme://host[:port] (a path is ignored; Kit's
// PlatformOrigin gives it). SecurityHeaders panics when it is not an
// absolute http or https URL, since that is a setup mistake.
func SecurityHeaders(platformOrigin string, opts HeaderOptions) func(http.Handler) http.Handler {
	origin := mustOrigin(platformOrigin)
	extra := append([]string{"'self'", origin}, opts.FrameSources...)
	fixed := ComposeCSP(opts.BaseCSP, extra)
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	// warned is shared by every request of this middleware: one warning
	// in all, and no more reading once it is given.
	warned := new(atomic.Bool)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			csp := fixed
			own := opts.BaseCSP == "" // the kit's policy alone
			base := opts.BaseCSP
			if prev := h.Get("Content-Security-Policy"); prev != "" {
				if opts.BaseCSP != "" {
					prev = opts.BaseCSP + "; " + prev
				}
				base = prev
				csp = ComposeCSP(prev, extra)
				own = false
			}
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			hw := &headerWriter{ResponseWriter: w, csp: csp, base: base, extra: extra}
			if own && !warned.Load() {
				hw.scan = &inlineScan{warned: warned, logger: logger, r: r, csp: csp}
			}
			next.ServeHTTP(hw, r)
			hw.finish()
		})
	}
}

// headerWriter is the ResponseWriter SecurityHeaders gives the handler
// below it: when the headers go out, a policy the handler set of its own
// replaces the kit's and gets the kit's frame sources; while a scan is
// set, it reads the start of an HTML answer under the kit's own policy
// for inline code.
type headerWriter struct {
	http.ResponseWriter
	csp   string   // the policy SecurityHeaders set
	base  string   // what csp was composed from (BaseCSP, an outer handler's)
	extra []string // the kit's frame sources
	scan  *inlineScan
	wrote bool
}

// fixHeader runs once, as the headers go out.
func (w *headerWriter) fixHeader() {
	if w.wrote {
		return
	}
	w.wrote = true
	h := w.ResponseWriter.Header()
	values := h.Values("Content-Security-Policy")
	if len(values) == 1 && values[0] == w.csp {
		if w.scan != nil && !isHTML(h.Get("Content-Type")) && h.Get("Content-Type") != "" {
			w.scan = nil
		}
		if fa := frameAncestors(h.Get("X-Frame-Options")); fa != "'self'" {
			// The page's X-Frame-Options asks for less than the kit's
			// frame-ancestors gives: composed again with it (a base with a
			// frame-ancestors of its own keeps it).
			h.Set("Content-Security-Policy", composeCSP(w.base, w.extra, true, fa))
		}
		return
	}
	// The handler set a policy of its own: it is the page's, and the
	// kit's would only narrow it (two policies both apply).
	w.scan = nil
	if i := slices.Index(values, w.csp); i >= 0 {
		values = slices.Delete(slices.Clone(values), i, i+1)
	}
	h.Del("Content-Security-Policy")
	// A page that says who may frame it keeps its say (an app may let a
	// partner frame it on purpose); one that does not gets the kit's
	// frame-ancestors, in the first of its policies (every policy
	// applies, so one is enough).
	ancestors := !slices.ContainsFunc(values, func(v string) bool { return hasDirective(v, "frame-ancestors") })
	for i, v := range values {
		v = mergeFrameSources(v, w.extra)
		if i == 0 && ancestors {
			v = addDirective(v, "frame-ancestors "+frameAncestors(h.Get("X-Frame-Options")))
		}
		h.Add("Content-Security-Policy", v)
	}
}

// frameAncestors returns the frame-ancestors sources SecurityHeaders adds
// to a page's own policy: 'self', or 'none' for a page whose
// X-Frame-Options is DENY (browsers that know frame-ancestors ignore
// X-Frame-Options, so 'self' would let the page's own origin frame it).
func frameAncestors(xfo string) string {
	if strings.EqualFold(strings.TrimSpace(xfo), "deny") {
		return "'none'"
	}
	return "'self'"
}

// hasDirective reports whether a policy has the directive name, read as
// browsers read it (cspFields, ASCII case). A header value may hold
// several policies separated by commas (no source holds a comma), so a
// directive starts after a ';' or a ','.
func hasDirective(policy, name string) bool {
	for _, part := range strings.FieldsFunc(policy, func(r rune) bool { return r == ';' || r == ',' }) {
		if fields := cspFields(part); len(fields) > 0 && asciiLower(fields[0]) == name {
			return true
		}
	}
	return false
}

// cspFields splits a directive at ASCII whitespace, as browsers do: other
// spaces (U+00A0, ...) are part of a name or source, which makes it one
// that browsers ignore, so the kit must not turn it into a valid one.
func cspFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(cspSpace, r) })
}

// cspSpace is the ASCII whitespace of a policy (CSP's "ASCII whitespace").
const cspSpace = " \t\n\f\r"

// cspTrim trims the ASCII whitespace that cspFields splits at, and only
// that: strings.TrimSpace would also take a vertical tab or U+00A0 off a
// policy's first directive name and make a name browsers ignore valid.
func cspTrim(s string) string {
	return strings.Trim(s, cspSpace)
}

// asciiLower lowers the ASCII letters of s only, as browsers match
// directive names.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// addDirective appends directive to a policy.
func addDirective(policy, directive string) string {
	policy = strings.TrimRight(policy, "; \t")
	if cspTrim(policy) == "" {
		return directive
	}
	return policy + "; " + directive
}

func (w *headerWriter) WriteHeader(code int) {
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.fixHeader()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *headerWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		if w.scan != nil && w.ResponseWriter.Header().Get("Content-Type") == "" && !isHTML(http.DetectContentType(b)) {
			// net/http sniffs the type of an answer without one; judge
			// it the same way, leaving the header to net/http.
			w.scan = nil
		}
		w.fixHeader()
	}
	if w.scan != nil {
		w.scan.write(b)
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom keeps io.Copy's fast path (sendfile for a file) for an answer
// that is not read for inline code.
func (w *headerWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.scan != nil {
		return io.Copy(writerOnly{w}, src)
	}
	w.fixHeader()
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{w.ResponseWriter}, src)
}

// writerOnly hides every method of a writer but Write, so that io.Copy
// does not call ReadFrom again.
type writerOnly struct{ io.Writer }

// finish sets the headers of an answer the handler wrote nothing of,
// before net/http sends them.
func (w *headerWriter) finish() {
	w.fixHeader()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *headerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what is buffered, for handlers that assert http.Flusher.
func (w *headerWriter) Flush() {
	w.fixHeader()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands over the connection, for handlers that assert
// http.Hijacker (WebSocket upgrades).
func (w *headerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// isHTML reports whether a Content-Type is an HTML document's.
func isHTML(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// maxInlineScan bounds how much of one answer is read for inline code.
const maxInlineScan = 64 << 10

// inlineScan reads the start of one HTML answer for inline code that the
// kit's policy blocks, and logs the one warning when it finds some.
type inlineScan struct {
	warned *atomic.Bool
	logger *slog.Logger
	r      *http.Request
	csp    string
	read   int
	carry  []byte // an unfinished tag at the end of the last write
}

func (s *inlineScan) write(b []byte) {
	if s.read >= maxInlineScan || s.warned.Load() {
		return
	}
	if n := maxInlineScan - s.read; len(b) > n {
		b = b[:n]
	}
	s.read += len(b)
	if len(s.carry) > 0 {
		b = append(s.carry, b...)
		s.carry = nil
	}
	what := inlineCode(b)
	if what == "" {
		// Keep a tag cut by the end of this write for the next one.
		if i := bytes.LastIndexByte(b, '<'); i >= 0 && bytes.IndexByte(b[i:], '>') < 0 && len(b)-i <= 1024 {
			s.carry = bytes.Clone(b[i:])
		}
		return
	}
	if !s.warned.CompareAndSwap(false, true) {
		return
	}
	s.logger.LogAttrs(s.r.Context(), slog.LevelWarn,
		"middleware: SecurityHeaders: this page has "+what+", which the kit's Content-Security-Policy blocks in browsers; "+
			"give the app's own policy as HeaderOptions.BaseCSP (the kit adds its frame-src to it), or move the code to files; logged once",
		slog.String("path", s.r.URL.Path), slog.String("csp", s.csp))
}

// inlineCode names the first inline script or style of an HTML page that
// a policy without 'unsafe-inline' (such as the kit's default-src 'self')
// blocks: "inline script (<script> without src)", "an inline event
// handler (on...=)", "a javascript: URL", "inline style (<style>)" or
// "inline style (a style attribute)"; "" when it finds none. It reads
// start tags and their attributes, not a parsed document, so text that
// looks like a tag counts too: it is meant for a warning, not a verdict.
// It runs on every HTML answer until the warning is given, so it is a
// single pass without regular expressions.
func inlineCode(page []byte) string {
	for i := 0; i < len(page); i++ {
		j := bytes.IndexByte(page[i:], '<')
		if j < 0 {
			return ""
		}
		i += j + 1
		if i >= len(page) || !isLetter(page[i]) {
			continue
		}
		n := i
		for n < len(page) && (isLetter(page[n]) || isDigit(page[n]) || page[n] == '-') {
			n++
		}
		name := page[i:n]
		var t tagAttrs
		i = t.read(page, n)
		switch {
		case bytes.EqualFold(name, []byte("script")) && !t.src && executable(t.typ):
			return "inline script (<script> without src)"
		case bytes.EqualFold(name, []byte("style")):
			return "inline style (<style>)"
		case t.handler:
			return "an inline event handler (on...=)"
		case t.jsURL:
			return "a javascript: URL"
		case t.style:
			return "inline style (a style attribute)"
		}
	}
	return ""
}

// tagAttrs is what inlineCode needs of a start tag's attributes.
type tagAttrs struct {
	src, style, handler, jsURL bool
	typ                        []byte // the type attribute's value, nil without one
}

// read reads the attributes of the tag whose name ends at page[i], up
// to its '>', and returns the index of that '>' (or the end of page).
func (t *tagAttrs) read(page []byte, i int) int {
	for i < len(page) && page[i] != '>' {
		c := page[i]
		if isSpace(c) || c == '/' {
			i++
			continue
		}
		// An attribute name, then an optional value.
		n := i
		for i < len(page) && !isSpace(page[i]) && page[i] != '=' && page[i] != '>' && page[i] != '/' {
			i++
		}
		name := page[n:i]
		for i < len(page) && isSpace(page[i]) {
			i++
		}
		var value []byte
		hasValue := i < len(page) && page[i] == '='
		if hasValue {
			i++
			for i < len(page) && isSpace(page[i]) {
				i++
			}
			if i < len(page) && (page[i] == '"' || page[i] == '\'') {
				q := page[i]
				i++
				v := i
				for i < len(page) && page[i] != q {
					i++
				}
				value = page[v:i]
				if i < len(page) {
					i++
				}
			} else {
				v := i
				for i < len(page) && !isSpace(page[i]) && page[i] != '>' {
					i++
				}
				value = page[v:i]
			}
		}
		switch {
		case bytes.EqualFold(name, []byte("src")):
			t.src = true
		case bytes.EqualFold(name, []byte("type")):
			t.typ = value
			if t.typ == nil {
				t.typ = []byte{}
			}
		case bytes.EqualFold(name, []byte("style")):
			t.style = t.style || hasValue
		case len(name) > 2 && (name[0]|0x20) == 'o' && (name[1]|0x20) == 'n' && hasValue:
			t.handler = true
		case bytes.EqualFold(name, []byte("href")) || bytes.EqualFold(name, []byte("action")) || bytes.EqualFold(name, []byte("formaction")):
			v := bytes.TrimLeft(value, " \t\n\r\f")
			t.jsURL = t.jsURL || (len(v) >= 11 && bytes.EqualFold(v[:11], []byte("javascript:")))
		}
	}
	return i
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// executable reports whether a <script> tag's type makes it run: no type,
// a JavaScript MIME type or module, not a data block (application/json,
// application/ld+json, text/template, ...), which no policy blocks.
func executable(typ []byte) bool {
	if typ == nil {
		return true
	}
	t := strings.ToLower(strings.TrimSpace(string(typ)))
	return t == "" || t == "module" || strings.Contains(t, "javascript") || strings.Contains(t, "ecmascript")
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
// policy alone. A base of several policies separated by commas (as one
// header value may hold them) is composed policy by policy: frameSources
// go into each policy that limits frames, and default-src and
// frame-ancestors into the first when no policy has them.
func ComposeCSP(base string, frameSources []string) string {
	return composeCSP(base, frameSources, true, "'self'")
}

// mergeFrameSources returns an app's own policy with frameSources added
// to its frame-src (started from child-src or default-src, as ComposeCSP
// does) and nothing else: no default-src, no frame-ancestors (fixHeader
// adds that across all of the page's policies). A policy that does not
// limit frames is returned as it is.
func mergeFrameSources(policy string, frameSources []string) string {
	return composeCSP(policy, frameSources, false, "")
}

// composeCSP is ComposeCSP, with the kit's default-src and
// frame-ancestors (with the sources ancestors) added only when
// kitDefaults is set. A base that holds
// several policies, separated by commas as a header value may, is
// composed policy by policy: the frame sources go into each that limits
// frames, and the kit's defaults into the first when none has them (every
// policy applies, so one is enough).
func composeCSP(base string, frameSources []string, kitDefaults bool, ancestors string) string {
	if !kitDefaults {
		ancestors = ""
	}
	if !strings.Contains(base, ",") {
		return composePolicy(base, frameSources, kitDefaults, ancestors)
	}
	var policies []string
	for _, p := range strings.Split(base, ",") {
		if p = cspTrim(p); p != "" {
			policies = append(policies, p)
		}
	}
	if len(policies) == 0 {
		return composePolicy("", frameSources, kitDefaults, ancestors)
	}
	addDefault := kitDefaults && !hasDirective(base, "default-src")
	if hasDirective(base, "frame-ancestors") {
		ancestors = ""
	}
	for i, p := range policies {
		if i == 1 {
			addDefault, ancestors = false, "" // the first policy has them
		}
		policies[i] = composePolicy(p, frameSources, addDefault, ancestors)
	}
	return strings.Join(policies, ", ")
}

// composePolicy composes one policy: frameSources added to its frame-src
// (started from child-src or default-src), default-src 'self' added when
// addDefault is set and it has none, frame-ancestors with the sources
// ancestors when those are given and it has none. Without addDefault, a
// policy that does not limit frames gets nothing else.
func composePolicy(base string, frameSources []string, addDefault bool, ancestors string) string {
	type directive struct {
		name    string
		sources []string
	}
	var ds []directive
	index := map[string]int{}
	for _, part := range strings.Split(base, ";") {
		fields := cspFields(part)
		if len(fields) == 0 {
			continue
		}
		name := asciiLower(fields[0])
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
	if !addDefault {
		_, frames := index["frame-src"]
		_, child := index["child-src"]
		_, def := index["default-src"]
		if !frames && !child && !def {
			if _, ok := index["frame-ancestors"]; ok || ancestors == "" {
				return base // frames are not limited
			}
			return addDirective(base, "frame-ancestors "+ancestors)
		}
	}
	if _, ok := index["default-src"]; !ok && addDefault {
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
	if _, ok := index["frame-ancestors"]; !ok && ancestors != "" {
		ds = append(ds, directive{"frame-ancestors", []string{ancestors}})
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strings.Join(append([]string{d.name}, d.sources...), " ")
	}
	return strings.Join(parts, "; ")
}
