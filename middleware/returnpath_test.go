package middleware

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
)

func TestSafeReturnPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		// Accepted: same-origin relative paths.
		{"root", "/", true},
		{"simple path", "/dashboards", true},
		{"nested path", "/dash/sales/emea", true},
		{"query", "/reports?tab=1&sort=desc", true},
		{"encoded dot segments that stay on a single slash", "/a/%2e%2e/b/%2E/c", true},
		{"a segment that only starts with an encoded dot", "/%2efile//x", true},
		{"fragment", "/reports#chart-3", true},
		{"query and fragment", "/reports?x=1#top", true},
		{"encoded space", "/reports/q%20three", true},
		{"encoded slash inside", "/files/a%2Fb", true},
		{"dot segments", "/a/../b", true},
		{"trailing slash", "/dash/", true},
		{"colon later in path", "/dash/time:12", true},
		{"colon in first segment", "/javascript:alert(1)", true},
		{"query holding a URL", "/go?next=https://evil.test", true},
		{"query holding double slash", "/go?next=//evil.test", true},
		{"unicode path", "/tableaux/déjà", true},
		{"tilde and dashes", "/~ana/my-dash_1", true},
		{"encoded percent once", "/search?q=100%25", true},

		// Refused: not starting with a single slash.
		{"empty", "", false},
		{"relative", "dashboards", false},
		{"dot relative", "./dashboards", false},
		{"host only", "evil.test", false},
		{"scheme relative", "//evil.test", false},
		{"frame path with a query", "/embed/frame/sales?locale=de", true},
		{"double-encoded slashes", "/%252F%252Fevil.com", false},
		{"dot segment before encoded slash", "/%2e/%2fevil.com", false},
		{"dot segment before a slash", "/.//evil.com", false},
		{"dot-dot segment before a slash", "/a/..//evil.com", false},
		{"encoded dot-dot", "/a/%2e%2e/%2fevil.com", false},
		{"scheme relative with path", "//evil.test/login", false},
		{"triple slash", "///evil.test", false},
		{"many slashes", "////evil.test", false},
		{"https", "https://evil.test", false},
		{"http", "http://evil.test/", false},
		{"http no slashes", "http:evil.test", false},
		{"https no slashes", "https:/evil.test", false},
		{"javascript", "javascript:alert(1)", false},
		{"javascript upper", "JavaScript:alert(1)", false},
		{"data", "data:text/html,<script>alert(1)</script>", false},
		{"mailto", "mailto:ana@northwind.test", false},
		{"leading space", " /dashboards", false},
		{"leading tab", "\t/dashboards", false},

		// Refused: backslashes.
		{"slash backslash", "/\\evil.test", false},
		{"backslash slash", "\\/evil.test", false},
		{"double backslash", "\\\\evil.test", false},
		{"backslash later", "/dash\\board", false},
		{"backslash in query", "/dash?x=\\y", false},

		// Refused: control characters and white space.
		{"slash tab slash", "/\t/evil.test", false},
		{"slash newline slash", "/\n/evil.test", false},
		{"slash CR slash", "/\r/evil.test", false},
		{"slash space slash", "/ /evil.test", false},
		{"NUL", "/dash\x00board", false},
		{"DEL", "/dash\x7fboard", false},
		{"header injection", "/dash\r\nSet-Cookie: a=b", false},
		{"C1 control", "/dash\u0085board", false},
		{"zero width space", "/\u200b/evil.test", false},
		{"no-break space", "/\u00a0/evil.test", false},
		{"right-to-left override", "/\u202eevil", false},
		{"invalid UTF-8", "/dash\xffboard", false},

		// Refused: encoded variants.
		{"encoded double slash", "%2F%2Fevil.test", false},
		{"encoded second slash", "/%2Fevil.test", false},
		{"encoded second slash lower", "/%2fevil.test", false},
		{"encoded backslash", "/%5Cevil.test", false},
		{"encoded backslash lower", "/%5cevil.test", false},
		{"encoded tab", "/%09/evil.test", false},
		{"encoded space after slash", "/%20/evil.test", false},
		{"encoded newline", "/%0a/evil.test", false},
		{"encoded CR LF", "/dash%0d%0aSet-Cookie:%20a=b", false},
		{"encoded NUL", "/dash%00", false},
		{"double encoded slash", "/%252Fevil.test", false},
		{"double encoded backslash", "/%255Cevil.test", false},
		{"triple encoded slash", "/%25252Fevil.test", false},
		{"encoded leading slash", "%2Fdashboards", false},
		{"encoded scheme", "https%3A%2F%2Fevil.test", false},
		{"bad escape", "/dash%zz", false},
		{"truncated escape", "/dash%2", false},

		// Refused: "%2e" is a dot segment to a browser, which resolves
		// these to a pathname starting "//" (found by
		// TestSafeReturnPathAgreesWithWHATWG).
		{"encoded dot, then an empty segment", "/%2e//..%3f", false},
		{"encoded dot in upper case", "/%2E//evil.test%23", false},
		{"encoded double dot", "/a/%2e%2e//evil.test", false},
		{"half-encoded double dot", "/a/.%2e//evil.test", false},
		{"half-encoded double dot, other half", "/a/%2e.//evil.test", false},
		{"encoded double dot after an encoded slash", "/a.%2e%2F/.%2e///", false},

		// Refused: other.
		{"user info", "//ana@evil.test", false},
		{"too long", "/" + strings.Repeat("a", maxReturnPathLen), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SafeReturnPath(tc.in)
			if ok != tc.ok {
				t.Fatalf("SafeReturnPath(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			}
			want := "/"
			if tc.ok {
				want = tc.in
			}
			if got != want {
				t.Errorf("SafeReturnPath(%q) = %q, want %q", tc.in, got, want)
			}
		})
	}
}

func FuzzSafeReturnPath(f *testing.F) {
	for _, s := range []string{
		"/", "/dash?x=1#y", "//evil.test", "/\\evil", "/\t/evil", "https://evil.test",
		"javascript:alert(1)", "%2F%2Fevil", "/%5Cevil", "/%252F%252Fevil", "/d%C3%A9j%C3%A0",
		"/%2e/%2fevil", "/a/..//evil", "/%2e//..%3f", "/%2E%2e//%2E%2e%23%2Fevil", "/a/.%2e//evil",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := SafeReturnPath(in)
		if !ok {
			if got != "/" {
				t.Fatalf("refused %q but returned %q", in, got)
			}
			return
		}
		if got != in {
			t.Fatalf("accepted %q but returned %q", in, got)
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") {
			t.Fatalf("accepted %q: not a single-slash path", got)
		}
		if strings.HasPrefix(dotResolved(got), "//") {
			t.Fatalf("accepted %q: a browser resolves its dot segments to a host", got)
		}
		if dec, err := url.PathUnescape(got); err == nil && strings.HasPrefix(dotResolved(dec), "//") {
			t.Fatalf("accepted %q: its dot segments resolve to a host", got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || r == '\\' {
				t.Fatalf("accepted %q: holds %U", got, r)
			}
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" {
			t.Fatalf("accepted %q: url.Parse gives scheme %q host %q err %v", got, u.Scheme, u.Host, err)
		}
		// Resolved against an origin, it stays on that origin.
		base, _ := url.Parse("https://app.test/dash/x")
		if r := base.ResolveReference(u); r.Host != "app.test" || r.Scheme != "https" {
			t.Fatalf("accepted %q: resolves to %s", got, r)
		}
		dec, err := url.PathUnescape(got)
		if err == nil && (strings.HasPrefix(dec, "//") || strings.HasPrefix(dec, "/\\")) {
			t.Fatalf("accepted %q: decodes to %q", got, dec)
		}
	})
}
