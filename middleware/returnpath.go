package middleware

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxReturnPathLen bounds the length of an accepted return path.
const maxReturnPathLen = 2048

// maxDecodeRounds bounds how many layers of percent-encoding are examined.
const maxDecodeRounds = 4

// SafeReturnPath checks a return path taken from a request, such as the
// page to come back to after login. It
// accepts only a same-origin relative path: one that starts with a single
// "/" and that no browser or intermediate server can read as another origin.
// It refuses "//host", "/\host", schemes ("https:", "javascript:"),
// backslashes anywhere, control characters, white space and invalid UTF-8,
// and it applies the same rules to every layer of percent-decoding, and
// to each layer with its dot segments resolved as browsers resolve them
// ("%2e" is a dot to a browser), so "/%2F%2Fhost", "/%252F%252Fhost",
// "/%5Chost", "/%09/host", "/%2e/%2fhost" and "/%2e//host" are refused
// too. TestSafeReturnPathAgreesWithWHATWG holds it to a browser's URL
// parser.
//
// It returns raw and true when raw is accepted, and "/" and false
// otherwise, so the result can always be redirected to.
func SafeReturnPath(raw string) (string, bool) {
	if len(raw) > maxReturnPathLen || !safePathLayer(raw, false) {
		return "/", false
	}
	if u, err := url.Parse(raw); err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil {
		return "/", false
	}
	layer := raw
	for round := range maxDecodeRounds {
		dec, err := url.PathUnescape(layer)
		if err != nil {
			// A malformed escape in the input itself is refused; in a
			// decoded layer, a lone "%" is literal and decoding ends.
			if round == 0 {
				return "/", false
			}
			return raw, true
		}
		if dec == layer {
			return raw, true
		}
		if !safePathLayer(dec, true) {
			return "/", false
		}
		layer = dec
	}
	// Still changing after maxDecodeRounds: nobody encodes a real path
	// that deeply.
	return "/", false
}

// safePathLayer applies the rules of SafeReturnPath to the input or, when
// decoded is set, to one layer of its percent-decoding, where a plain space
// (from "%20") may appear after the leading slash.
func safePathLayer(s string, decoded bool) bool {
	if len(s) == 0 || s[0] != '/' {
		return false
	}
	if len(s) > 1 && (s[1] == '/' || s[1] == '\\' || s[1] == ' ') {
		return false
	}
	// "/./" and "/a/../" vanish when a browser resolves the path: what
	// follows must not then start a host.
	if strings.HasPrefix(dotResolved(s), "//") {
		return false
	}
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if decoded && r == ' ' {
			continue
		}
		if r == '\\' || unicode.IsSpace(r) || !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// dotResolved returns the path of s (up to "?" or "#") with its "." and
// ".." segments resolved the way browsers resolve them (the WHATWG URL
// standard), which keeps empty segments where Go's url.ResolveReference
// drops them, and reads "%2e" as a dot: "/%2e//x" is "//x" to a browser.
func dotResolved(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	segs := strings.Split(strings.TrimPrefix(s, "/"), "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch dotSegment(seg) {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// dotSegment returns "." or ".." when a browser reads seg as that dot
// segment (the WHATWG URL standard's single-dot and double-dot segments:
// a dot may be written "%2e", in either case), and seg otherwise.
func dotSegment(seg string) string {
	switch {
	case seg == "." || strings.EqualFold(seg, "%2e"):
		return "."
	case seg == ".." || strings.EqualFold(seg, ".%2e") || strings.EqualFold(seg, "%2e.") || strings.EqualFold(seg, "%2e%2e"):
		return ".."
	}
	return seg
}
