package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func testClaims() *tokenClaims {
	return &tokenClaims{
		ID:           "3f1c2a9b8e7d6c5b4a39281706f5e4d3",
		Issuer:       "platform",
		Subject:      "user-42",
		IssuedAt:     1767225600,
		ExpiresAt:    1767225600 + 86400,
		DeploymentID: 1,
		ExternalID:   "user-42",
		Email:        "ana@example.com",
		DisplayName:  "Ana Lima",
		Picture:      "https://example.com/ana.png",
		Tenant:       "acme",
		SecurityContext: map[string]any{
			"platformCloud": map[string]any{"groups": []any{"emea"}},
		},
		Attributes: map[string]any{"region": "EMEA", "quota": 1.5},
		Settings:   map[string]any{"locale": "de-DE", "showGroupByCube": false},
		Theme:      map[string]any{"primaryColor": "#ff0066"},
		BranchName: "q3-metrics",
		Revocable:  true,
	}
}

// craft builds a token from a raw header and payload, signed with secret.
func craft(secret []byte, header, payload string) string {
	in := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(payload))
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func mustDecode(s string) []byte {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestTokenRoundTrip(t *testing.T) {
	want := testClaims()
	tok, err := signToken(testSecret, want)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(tok, ".") != 2 || strings.ContainsAny(tok, "=+/") {
		t.Fatalf("token %q is not three unpadded base64url segments", tok)
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if string(hdr) != `{"alg":"HS256","typ":"JWT"}` {
		t.Errorf("header = %s", hdr)
	}
	got, err := parseToken(testSecret, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseTokenRejects(t *testing.T) {
	good, err := signToken(testSecret, testClaims())
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	flip := func(s string) string {
		b := []byte(s)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		return string(b)
	}

	tests := []struct {
		name  string
		token string
		want  error
	}{
		{"empty", "", errTokenMalformed},
		{"one part", "abc", errTokenMalformed},
		{"two parts", parts[0] + "." + parts[1], errTokenMalformed},
		{"four parts", good + ".x", errTokenMalformed},
		{"empty signature", parts[0] + "." + parts[1] + ".", errTokenMalformed},
		{"padded signature", good + "=", errTokenMalformed},
		{"padded standard base64 signature", parts[0] + "." + parts[1] + "." + base64.StdEncoding.EncodeToString(mustDecode(parts[2])), errTokenMalformed},
		{"other secret", craft([]byte("another secret"), `{"alg":"HS256","typ":"JWT"}`, string(payload)), errTokenSignature},
		{"tampered payload", parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"EMEA"`, `"AMER"`, 1))) + "." + parts[2], errTokenSignature},
		{"tampered signature", parts[0] + "." + parts[1] + "." + flip(parts[2]), errTokenSignature},
		{"alg none", craft(testSecret, `{"alg":"none","typ":"JWT"}`, string(payload)), errTokenAlg},
		{"alg none unsigned", base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", errTokenMalformed},
		{"alg RS256", craft(testSecret, `{"alg":"RS256","typ":"JWT"}`, string(payload)), errTokenAlg},
		{"alg HS512", craft(testSecret, `{"alg":"HS512","typ":"JWT"}`, string(payload)), errTokenAlg},
		{"alg lower case", craft(testSecret, `{"alg":"hs256","typ":"JWT"}`, string(payload)), errTokenAlg},
		{"alg missing", craft(testSecret, `{"typ":"JWT"}`, string(payload)), errTokenAlg},
		{"alg not a string", craft(testSecret, `{"alg":256}`, string(payload)), errTokenMalformed},
		{"typ other", craft(testSecret, `{"alg":"HS256","typ":"JWE"}`, string(payload)), errTokenMalformed},
		{"crit header", craft(testSecret, `{"alg":"HS256","crit":["exp"]}`, string(payload)), errTokenMalformed},
		{"header not an object", craft(testSecret, `"HS256"`, string(payload)), errTokenMalformed},
		{"header trailing data", craft(testSecret, `{"alg":"HS256"}}`, string(payload)), errTokenMalformed},
		{"payload not JSON", craft(testSecret, `{"alg":"HS256"}`, "not json"), errTokenMalformed},
		{"payload array", craft(testSecret, `{"alg":"HS256"}`, `[1,2]`), errTokenMalformed},
		{"payload wrong type", craft(testSecret, `{"alg":"HS256"}`, `{"exp":"tomorrow"}`), errTokenMalformed},
		{"too large", craft(testSecret, `{"alg":"HS256"}`, `{"sub":"`+strings.Repeat("x", maxTokenLen)+`"}`), errTokenTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseToken(testSecret, tt.token)
			if !errors.Is(err, tt.want) {
				t.Fatalf("parseToken error = %v, want %v", err, tt.want)
			}
			if c != nil {
				t.Fatalf("parseToken returned claims with an error")
			}
		})
	}
}

func TestParseTokenAcceptsMinimalHeader(t *testing.T) {
	// A header without typ, and extra claims, are accepted when signed.
	tok := craft(testSecret, `{"alg":"HS256","kid":"k1"}`, `{"jti":"a","exp":5,"other":true,"securityContext":{}}`)
	c, err := parseToken(testSecret, tok)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "a" || c.ExpiresAt != 5 {
		t.Errorf("claims = %+v", c)
	}
}

func TestParseTokenIgnoresExpiry(t *testing.T) {
	c := testClaims()
	c.ExpiresAt = 1 // long past
	tok, err := signToken(testSecret, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseToken(testSecret, tok); err != nil {
		t.Fatalf("expired token: %v; expiry is the caller's to judge", err)
	}
}

func TestSignTokenErrors(t *testing.T) {
	if _, err := signToken(nil, testClaims()); !errors.Is(err, errNoSecret) {
		t.Errorf("empty secret: %v", err)
	}
	if _, err := parseToken(nil, "a.b.c"); !errors.Is(err, errNoSecret) {
		t.Errorf("parse with empty secret: %v", err)
	}
	if _, err := signToken(testSecret, nil); err == nil {
		t.Error("nil claims signed")
	}
	big := testClaims()
	big.SecurityContext = map[string]any{"blob": strings.Repeat("x", maxTokenLen)}
	if _, err := signToken(testSecret, big); !errors.Is(err, errTokenTooLarge) {
		t.Errorf("oversized claims: %v", err)
	}
	bad := testClaims()
	bad.Attributes = map[string]any{"f": func() {}}
	if _, err := signToken(testSecret, bad); err == nil {
		t.Error("unencodable claims signed")
	}
}

// FuzzParseToken checks that parseToken never panics and accepts only
// tokens whose signature is the HMAC of their first two segments under the
// secret, in the one canonical encoding.
func FuzzParseToken(f *testing.F) {
	good, err := signToken(testSecret, testClaims())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(craft(testSecret, `{"alg":"none"}`, `{}`))
	f.Add(craft(testSecret, `{"alg":"HS256"}`, `{"jti":"x"}`))
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := parseToken(testSecret, raw)
		if err != nil {
			if c != nil {
				t.Fatal("claims returned with an error")
			}
			return
		}
		if c == nil {
			t.Fatal("nil claims without an error")
		}
		i := strings.LastIndexByte(raw, '.')
		m := hmac.New(sha256.New, testSecret)
		m.Write([]byte(raw[:i]))
		if want := base64.RawURLEncoding.EncodeToString(m.Sum(nil)); raw[i+1:] != want {
			t.Fatalf("accepted a token whose signature is not the secret's: %q", raw)
		}
	})
}
