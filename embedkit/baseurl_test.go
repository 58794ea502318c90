package embedkit

import (
	"strings"
	"testing"

	"github.com/embedkit/embedkit/internal/ruletest"
)

// TestIsLoopbackHost runs the cases the emulator's own loopback checks
// are held to as well (ruletest.LoopbackHosts).
func TestIsLoopbackHost(t *testing.T) {
	for _, c := range ruletest.LoopbackHosts {
		if got := IsLoopbackHost(c.In); got != c.Want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v (%s)", c.In, got, c.Want, c.Why)
		}
	}
}

// FuzzParseBaseURL: an accepted URL is https, or http on a loopback host,
// with a host and no credentials, query or fragment, no trailing slash,
// and parsing its String again gives the same URL.
func FuzzParseBaseURL(f *testing.F) {
	for _, s := range []string{"https://acme.example.com", "https://acme.example.com/base/", "http://127.0.0.2:7070",
		"http://LOCALHOST:7070", "http://[::1]:7070", "http://acme.example.com", "https://u:p@a.example",
		"https://a.example/?q=1", "https://a.example/#f", "ftp://a.example", " https://a.example ", "https://a.example/%2F/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseBaseURL(raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "embedkit: ") {
				t.Fatalf("error %q does not name the package", err)
			}
			return
		}
		switch strings.ToLower(u.Scheme) {
		case "https":
		case "http":
			if !IsLoopbackHost(u.Hostname()) {
				t.Fatalf("%q accepted: http on %q", raw, u.Hostname())
			}
		default:
			t.Fatalf("%q accepted with scheme %q", raw, u.Scheme)
		}
		if u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Path, "/") {
			t.Fatalf("%q accepted as %#v", raw, u)
		}
		again, err := ParseBaseURL(u.String())
		if err != nil {
			t.Fatalf("%q accepted as %q, which is then refused: %v", raw, u, err)
		}
		if again.String() != u.String() {
			t.Fatalf("%q: %q parses again as %q", raw, u, again)
		}
	})
}
