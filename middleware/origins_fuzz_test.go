package middleware

import (
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// FuzzParseOrigins holds the checks of Config.Origins.Host (and
// WithRequestOrigin's origin) and Config.PlatformURL to their docs. An
// accepted host origin is an origin as a browser writes one: http or
// https, "://", a plain host (letters, digits, '.', '-', or an IPv6
// address in brackets) and an optional port of digits, lower case, and
// checking it again gives it back unchanged; a refused one is an error
// naming Config.Origins.Host. A platform URL is accepted exactly when the
// client's rule (embedkit.ParseBaseURL) accepts it, and a refused one is
// an error naming Config.PlatformURL.
func FuzzParseOrigins(f *testing.F) {
	for _, s := range []string{
		"https://app.example.com", "http://localhost:8080", "HTTPS://App.Example.COM/",
		"https://[::1]:8443", "https://app.example.com:", "https://app.example.com:443",
		"https://bücher.example", "https://%41pp.example.com", "https://user@app.example.com",
		"https://app.example.com/path", "https://app.example.com?q", "https://app.example.com#f",
		"ftp://app.example.com", "//app.example.com", "https://", "https://app.example.com:99999",
		"https://[fe80::1%25en0]", "http://127.0.0.1", "", " https://app.example.com",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseHostOrigin(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "middleware: Config.Origins.Host ") {
				t.Fatalf("parseHostOrigin(%q): error %q does not name the field", s, err)
			}
		} else {
			scheme, host, ok := strings.Cut(o, "://")
			if !ok || (scheme != "http" && scheme != "https") {
				t.Fatalf("parseHostOrigin(%q) = %q: not http or https", s, o)
			}
			if !plainHostPort(host) || strings.HasSuffix(host, ":") {
				t.Fatalf("parseHostOrigin(%q) = %q: not a plain host[:port]", s, o)
			}
			if o != strings.ToLower(o) {
				t.Fatalf("parseHostOrigin(%q) = %q: not lower case", s, o)
			}
			if again, err := parseHostOrigin(o); err != nil || again != o {
				t.Fatalf("parseHostOrigin(%q) = %q, which checks again as %q, %v", s, o, again, err)
			}
		}

		u, err := parsePlatformURL(s)
		_, cerr := embedkit.ParseBaseURL(s)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("parsePlatformURL(%q): %v; the client's rule: %v", s, err, cerr)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "middleware: Config.PlatformURL") {
				t.Fatalf("parsePlatformURL(%q): error %q does not name the field", s, err)
			}
			return
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			t.Fatalf("parsePlatformURL(%q) = %v", s, u)
		}
	})
}
