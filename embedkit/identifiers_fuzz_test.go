package embedkit

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// FuzzValidateIdentifiers checks ValidateSessionID and ValidateTenantName
// against the patterns they document, compiled by regexp: each accepts a
// string exactly when its pattern matches it, and refuses the rest with
// a *ValidationError naming its field; the session id's error is the same
// for every id, so it never quotes one.
func FuzzValidateIdentifiers(f *testing.F) {
	for _, s := range []string{
		"0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde",
		"acme", "acme-eu", "a1", "a", "a-", "-a", "1acme", "acme--eu", strings.Repeat("a", 36), strings.Repeat("a", 37),
		"acme\n", "ａcme", "",
	} {
		f.Add(s)
	}
	session := regexp.MustCompile(`^[0-9a-f]{32}$`)
	tenant := regexp.MustCompile(`^[a-z][a-z0-9-]{0,34}[a-z0-9]$`)
	f.Fuzz(func(t *testing.T, s string) {
		check := func(name string, err error, want bool, field string) {
			t.Helper()
			if (err == nil) != want {
				t.Fatalf("%s(%q) = %v; the pattern says valid %v", name, s, err, want)
			}
			if err == nil {
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), field) {
				t.Fatalf("%s(%q) = %v, want a *ValidationError naming %s", name, s, err, field)
			}
		}
		err := ValidateSessionID(s)
		check("ValidateSessionID", err, session.MatchString(s), "sessionId")
		if err != nil && err.Error() != ValidateSessionID("x").Error() {
			t.Fatalf("ValidateSessionID's error depends on the id, so it may quote it: %v", err)
		}
		check("ValidateTenantName", ValidateTenantName(s), tenant.MatchString(s), "embedTenantName")
	})
}
