package doctor

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseCSP(t *testing.T) {
	tests := []struct {
		in   []string
		want []string // each policy serialised
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{"frame-src 'self'"}, []string{"frame-src 'self'"}},
		{[]string{"  FRAME-SRC\t'self'   https://a.example ;; frame-ancestors 'none' ; "}, []string{"frame-src 'self' https://a.example; frame-ancestors 'none'"}},
		// The first occurrence of a directive wins.
		{[]string{"frame-src a.example; frame-src b.example"}, []string{"frame-src a.example"}},
		// A comma separates policies; several headers add policies.
		{[]string{"frame-src *, child-src 'none'", "default-src 'self'"}, []string{"frame-src *", "child-src 'none'", "default-src 'self'"}},
		// A directive name with other characters is ignored.
		{[]string{"frame_src x; främe-src y; frame-src z"}, []string{"frame-src z"}},
		{[]string{"frame-src"}, []string{"frame-src"}},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range parseCSP(tt.in) {
			got = append(got, p.String())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseCSP(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAllowsFrame(t *testing.T) {
	self := mustURL(t, "https://app.example.com/analytics")
	platform := mustURL(t, "https://acme.cube.example/embed/")
	frame := mustURL(t, "https://app.example.com/embed/frame/sales")
	tests := []struct {
		policy             string
		platformOK, selfOK bool
	}{
		{"script-src 'self'", true, true}, // no frame directive
		{"frame-src 'self'", false, true},
		{"frame-src 'none'", false, false},
		{"frame-src", false, false},
		{"frame-src *", true, true},
		{"frame-src https:", true, true},
		{"frame-src http:", true, true}, // upgrade
		{"frame-src 'self' https://acme.cube.example", true, true},
		{"frame-src 'self' acme.cube.example", true, true}, // self's scheme
		{"frame-src 'self' ACME.Cube.Example:443", true, true},
		{"frame-src 'self' https://acme.cube.example:8443", false, true},
		{"frame-src 'self' https://acme.cube.example:*", true, true},
		{"frame-src 'self' https://*.cube.example", true, true},
		{"frame-src 'self' https://*.acme.cube.example", false, true},
		{"frame-src 'self' http://acme.cube.example", true, true}, // upgrade
		{"frame-src 'self' wss://acme.cube.example", false, true},
		{"frame-src 'self' https://acme.cube.example/other/path", true, true}, // path ignored after a redirect
		{"frame-src https://app.example.com/embed/ https://acme.cube.example", true, true},
		{"frame-src https://app.example.com/other/ https://acme.cube.example", true, false},
		{"frame-src https://app.example.com/embed/frame/sales https://acme.cube.example", true, true},
		{"frame-src 'nonce-abc' 'unsafe-inline' acme.cube.example", true, false},
		{"child-src acme.cube.example; default-src 'self'", true, false},
		{"default-src 'self'", false, true},
		{"frame-src 'self'; child-src *", false, true}, // frame-src first
		{"frame-src 'self' [::1]", false, true},
		{"frame-src 'self' https://", false, true},
		{"frame-src 'self' acme.cube.example:", false, true},
	}
	for _, tt := range tests {
		ps := parseCSP([]string{tt.policy})
		if len(ps) != 1 {
			t.Fatalf("%q: %d policies", tt.policy, len(ps))
		}
		if got := ps[0].allowsFrame(platform, self, true); got != tt.platformOK {
			t.Errorf("%q allows the platform: %v, want %v", tt.policy, got, tt.platformOK)
		}
		if got := ps[0].allowsFrame(frame, self, false); got != tt.selfOK {
			t.Errorf("%q allows the frame endpoint: %v, want %v", tt.policy, got, tt.selfOK)
		}
	}

	// 'self' of an http page also allows its https origin.
	httpSelf := mustURL(t, "http://app.example.com/")
	ps := parseCSP([]string{"frame-src 'self'"})
	if !ps[0].allowsFrame(mustURL(t, "https://app.example.com/x"), httpSelf, false) {
		t.Error("'self' of http://app.example.com does not allow https://app.example.com")
	}
	if ps[0].allowsFrame(mustURL(t, "http://app.example.com:8080/x"), httpSelf, false) {
		t.Error("'self' allows another port")
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// FuzzParseCSP: any header parses without panic into policies whose
// directive names are lower case and valid, whose serialisation parses
// back to itself, and which answer allowsFrame for any URL.
func FuzzParseCSP(f *testing.F) {
	for _, s := range []string{
		"frame-src 'self' https://acme.cube.example; frame-ancestors 'self'",
		"default-src 'none', child-src *",
		"frame-src https://*.example.com:* http: 'nonce-x' /path/",
		"FRAME-SRC\t'SELF';;;frame-src x",
		"frame-src [::1]:80 https://a.b/c/ a.b: *.",
	} {
		f.Add(s, "https://acme.cube.example/embed/")
	}
	f.Fuzz(func(t *testing.T, header, target string) {
		ps := parseCSP([]string{header})
		var serialised []string
		for _, p := range ps {
			for _, name := range p.order {
				if name != strings.ToLower(name) || !isDirectiveName(name) {
					t.Fatalf("directive name %q", name)
				}
			}
			serialised = append(serialised, p.String())
		}
		again := parseCSP([]string{strings.Join(serialised, ",")})
		if len(again) != len(ps) {
			t.Fatalf("%q: %d policies, reparsed %d", header, len(ps), len(again))
		}
		for i := range ps {
			if again[i].String() != ps[i].String() {
				t.Fatalf("policy %q reparsed as %q", ps[i].String(), again[i].String())
			}
		}
		u, err := url.Parse(target)
		if err != nil {
			return
		}
		self := &url.URL{Scheme: "https", Host: "app.example.com", Path: "/"}
		for _, p := range ps {
			p.allowsFrame(u, self, false)
			p.allowsFrame(u, self, true)
		}
	})
}
