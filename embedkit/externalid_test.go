package embedkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
)

func TestExternalIDCaseSafe(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{"ASCII lower case", "kate", true},
		{"ASCII capitals", "Kate@Example.COM", true},
		{"ASCII white space at the ends", " \tkate\r\n", true},
		{"lower case outside ASCII", "jos\u00e9", true},
		{"Cyrillic a, lower case", "\u0430dmin", true},
		{"dotless i, lower case", "adm\u0131n", true},
		{"fullwidth a, lower case", "\uff41dmin", true},
		{"zero-width space inside", "admin\u200b", true},
		{"empty", "", true},
		{"Kelvin sign", "\u212Aate", false},
		{"Angstrom sign", "\u212Bsa", false},
		{"capital I with dot", "\u0130van", false},
		{"ohm sign", "\u2126", false},
		{"capital E acute", "\u00c9lodie", false},
		{"fullwidth capital A", "\uff21dmin", false},
		{"title-case digraph", "\u01c5ana", false},
		{"no-break space at the end", "kate\u00a0", false},
		{"ideographic space at the start", "\u3000kate", false},
		{"no-break space inside", "ka\u00a0te", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := embedkit.ExternalIDCaseSafe(tt.id); got != tt.want {
				t.Errorf("ExternalIDCaseSafe(%q) = %v, want %v", tt.id, got, tt.want)
			}
			err := (&embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: tt.id}).Validate()
			refused := err != nil && strings.Contains(err.Error(), "externalId: trimming and lower-casing may change it in ASCII only")
			if tt.id != "" && refused == tt.want {
				t.Errorf("Validate(%q) = %v; refused for its case: %v, want %v", tt.id, err, refused, !tt.want)
			}
		})
	}
}

// FuzzExternalIDCaseSafe: for every id ExternalIDCaseSafe accepts,
// NormalizeExternalID trims ASCII white space and lower-cases ASCII
// letters, nothing else, so two accepted ids that normalise alike differ
// only in those.
func FuzzExternalIDCaseSafe(f *testing.F) {
	for _, s := range []string{"kate", "\u212Aate", " Kate ", "\u0130van", "jos\u00e9", "kate\u00a0", "\u00c9lodie", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !embedkit.ExternalIDCaseSafe(s) || !utf8.ValidString(s) {
			return // refused: invalid UTF-8 by Validate's own rule
		}
		if got, want := embedkit.NormalizeExternalID(s), asciiNormalize(s); got != want {
			t.Errorf("NormalizeExternalID(%q) = %q, want %q: it changed more than ASCII case and spaces", s, got, want)
		}
	})
}

// asciiNormalize trims ASCII white space and lower-cases A-Z, and
// nothing else.
func asciiNormalize(s string) string {
	b := []byte(strings.Trim(s, " \t\n\v\f\r"))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestHostileCaseFoldingExternalIDIsRefused: lower-casing the Kelvin sign
// gives "k", so "\u212Aate" would reach the platform as kate, another
// user. The client refuses it, naming externalId, and mints nothing; the
// same name in ASCII capitals is kate, as the platform requires.
func TestHostileCaseFoldingExternalIDIsRefused(t *testing.T) {
	p := embedkittest.NewPlatform(t)
	ctx := context.Background()
	if _, err := p.Client().GenerateSession(ctx, validRequest("Kate")); err != nil {
		t.Fatalf("GenerateSession(Kate): %v", err)
	}
	for _, id := range []string{"\u212Aate", "\u212Bsa", "\u0130van"} {
		_, err := p.Client().GenerateSession(ctx, validRequest(id))
		var ve *embedkit.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "externalId") {
			t.Errorf("GenerateSession(%q): %v, want a validation error naming externalId", id, err)
		}
	}
	var users []string
	for _, s := range p.Emulator().Sessions() {
		users = append(users, s.ExternalID)
	}
	if len(users) != 1 || users[0] != "kate" {
		t.Errorf("sessions on the platform for %q, want one, for kate", users)
	}
}
