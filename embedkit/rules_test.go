package embedkit

import (
	"errors"
	"net/mail"
	"regexp"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/internal/ruletest"
	"golang.org/x/text/language"
)

func TestValidateTenantName(t *testing.T) {
	for _, name := range []string{"ab", "acme", "acme-corp-2", "a1", "a-" + strings.Repeat("b", 34)} {
		if err := ValidateTenantName(name); err != nil {
			t.Errorf("ValidateTenantName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "a", "1acme", "-acme", "acme-", "Acme", "acme_corp", "acme.corp", "a" + strings.Repeat("b", 36), "äcme"} {
		valCheck(t, "embed-tenant", ValidateTenantName(name), []FieldError{fe("embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")})
	}
}

// TestHandWrittenMatchersEqualPatterns holds the hand-written matchers
// equal to the specification's expressions on every string of up to three
// bytes from a small alphabet, and on a few longer ones.
func TestHandWrittenMatchersEqualPatterns(t *testing.T) {
	alphabet := []string{"", "a", "z", "0", "9", "-", "A", "_", "f", "g"}
	var inputs []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				inputs = append(inputs, a+b+c)
			}
		}
	}
	inputs = append(inputs, strings.Repeat("a", 36), strings.Repeat("a", 37), "a"+strings.Repeat("-", 34)+"a",
		strings.Repeat("0123456789abcdef", 2), strings.Repeat("0123456789abcdef", 2)+"\n")
	for _, s := range inputs {
		if got, want := IsTenantName(s), valTenantRE.MatchString(s); got != want {
			t.Errorf("IsTenantName(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := isSessionID(s), valSessionIDRE.MatchString(s); got != want {
			t.Errorf("isSessionID(%q) = %v, pattern says %v", s, got, want)
		}
	}
}

// TestSimpleEmailAgreesWithNetMail checks that every address the fast
// path accepts, net/mail accepts unchanged.
func TestSimpleEmailAgreesWithNetMail(t *testing.T) {
	for _, s := range []string{"a@b", "a.b@c.d", "a+tag@x-y.example", "a%b_c-d@e", "A@B", "a..b@c", ".a@b", "a.@b",
		"a@b.", "a@.b", "a@b..c", "@b", "a@", "a@b@c", "a b@c", "a@b_c", "ab", "a@-", "a-@-b-"} {
		if !isSimpleEmail(s) {
			continue
		}
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s {
			t.Errorf("isSimpleEmail(%q) = true, net/mail says %v, %v", s, a, err)
		}
	}
}

// TestSimpleLocaleAgreesWithParse checks that every tag the fast path
// accepts is well-formed for language.Parse: every two and three letter
// language, with and without a region.
func TestSimpleLocaleAgreesWithParse(t *testing.T) {
	var langs []string
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			langs = append(langs, string(a)+string(b))
			for c := 'a'; c <= 'z'; c++ {
				langs = append(langs, string(a)+string(b)+string(c))
			}
		}
	}
	for i, l := range langs {
		for _, s := range []string{l, strings.ToUpper(l), l + "-" + []string{"US", "zz", "419", "000"}[i%4]} {
			if !isSimpleLocale(s) {
				t.Fatalf("isSimpleLocale(%q) = false", s)
			}
			_, err := language.Parse(s)
			var unknown language.ValueError
			if err != nil && !errors.As(err, &unknown) {
				t.Errorf("language.Parse(%q) = %v, but the fast path accepts it", s, err)
			}
		}
	}
}

func TestHasControlChar(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "plain": false, "ünïcødé ✓": false, "tab\t": true, "del\x7f": true, "nul\x00": true,
		"c1\u0080": true, "c1\u009f": true, "nbsp\u00a0": false, "line\u2028": false,
	} {
		if got := hasControlChar(s); got != want {
			t.Errorf("hasControlChar(%q) = %v, want %v", s, got, want)
		}
	}
}

var (
	valTenantRE    = regexp.MustCompile(tenantNameRule)
	valSessionIDRE = regexp.MustCompile(sessionIDRule)
)

// TestIsPictureURL runs the cases the emulator's picture check is held to
// as well (ruletest.PictureURLs), then the kit's own length bound.
func TestIsPictureURL(t *testing.T) {
	for _, c := range ruletest.PictureURLs {
		if got := IsPictureURL(c.In); got != c.Want {
			t.Errorf("IsPictureURL(%q) = %v, want %v (%s)", c.In, got, c.Want, c.Why)
		}
	}
	long := "https://img.example.com/" + strings.Repeat("a", maxURLLength)
	if IsPictureURL(long) || !IsPictureURL(long[:maxURLLength]) {
		t.Errorf("IsPictureURL does not bound a URL at %d bytes", maxURLLength)
	}
}
