package embedkit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func TestRedactKeyed(t *testing.T) {
	k1 := []byte("0123456789abcdef0123456789abcdef")
	k2 := []byte("fedcba9876543210fedcba9876543210")
	tests := []struct {
		name string
		a, b string // fingerprints to compare
		same bool
	}{
		{"one key, one value", embedkit.RedactKeyed(k1, "u:ana@example.com"), embedkit.RedactKeyed(k1, "u:ana@example.com"), true},
		{"one key, two values", embedkit.RedactKeyed(k1, "u:ana@example.com"), embedkit.RedactKeyed(k1, "u:ben@example.com"), false},
		{"two keys, one value", embedkit.RedactKeyed(k1, "u:ana@example.com"), embedkit.RedactKeyed(k2, "u:ana@example.com"), false},
		{"keyed and unkeyed differ", embedkit.RedactKeyed(k1, "u:ana@example.com"), embedkit.Redact("u:ana@example.com"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if (tt.a == tt.b) != tt.same {
				t.Errorf("%q and %q: same %v, want %v", tt.a, tt.b, tt.a == tt.b, tt.same)
			}
		})
	}
	fp := embedkit.RedactKeyed(k1, "u:ana@example.com")
	if !strings.HasPrefix(fp, "hmac:") || len(fp) != len("hmac:")+12 || strings.Contains(fp, "ana") {
		t.Errorf("fingerprint %q, want hmac: and 12 hex digits", fp)
	}
	if got := embedkit.RedactKeyed(k1, ""); got != "(empty)" {
		t.Errorf("RedactKeyed of empty = %q, want (empty)", got)
	}
}

func ExampleRedactKeyed() {
	key := []byte("a per-deployment secret, 16+ bytes") // from the environment in production
	a := embedkit.RedactKeyed(key, "u:ana@example.com")
	b := embedkit.RedactKeyed(key, "u:ana@example.com")
	fmt.Println(a == b, strings.HasPrefix(a, "hmac:"), strings.Contains(a, "ana"))
	// Output: true true false
}
