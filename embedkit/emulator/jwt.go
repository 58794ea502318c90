package emulator

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Embed tokens are compact JWTs (RFC 7519) signed with HMAC-SHA256 under
// the emulator's embed secret. The emulator both mints them (session
// exchange) and checks them (the iframe's context endpoint, revocation), so
// the format is fixed: header {"alg":"HS256","typ":"JWT"}, unpadded
// base64url segments, and nothing else is accepted.

// maxTokenLen bounds the length of an encoded token, both when signing and
// when parsing, so a hostile Authorization header costs little to reject.
const maxTokenLen = 32 << 10

// tokenHeader is the encoded JOSE header of every token: the only header
// signToken writes.
var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// b64 decodes unpadded base64url and rejects non-canonical encodings (stray
// bits in the last character), so one signature has exactly one spelling.
var b64 = base64.RawURLEncoding.Strict()

var (
	errTokenMalformed = errors.New("emulator: malformed token")
	errTokenTooLarge  = errors.New("emulator: token too large")
	errTokenAlg       = errors.New("emulator: token algorithm not accepted")
	errTokenSignature = errors.New("emulator: token signature mismatch")
	errNoSecret       = errors.New("emulator: empty signing secret")
)

// tokenClaims is the payload of an embed token: the identity, settings and
// theme captured by generate-session, baked in at exchange time.
type tokenClaims struct {
	ID              string         `json:"jti"`
	Issuer          string         `json:"iss"`
	Subject         string         `json:"sub"`
	IssuedAt        int64          `json:"iat"`
	ExpiresAt       int64          `json:"exp"`
	DeploymentID    int64          `json:"deploymentId"`
	ExternalID      string         `json:"externalId,omitempty"`
	InternalID      string         `json:"internalId,omitempty"`
	Email           string         `json:"email,omitempty"`
	DisplayName     string         `json:"displayName,omitempty"`
	Picture         string         `json:"picture,omitempty"`
	Tenant          string         `json:"tenant,omitempty"`
	CreatorMode     bool           `json:"creatorMode,omitempty"`
	SecurityContext map[string]any `json:"securityContext"`
	Attributes      map[string]any `json:"attributes,omitempty"`
	Settings        map[string]any `json:"settings,omitempty"`
	Theme           map[string]any `json:"theme,omitempty"`
	BranchName      string         `json:"branchName,omitempty"`
	Revocable       bool           `json:"rvk,omitempty"`
}

// signToken encodes c as an HS256 JWT signed with secret.
func signToken(secret []byte, c *tokenClaims) (string, error) {
	if len(secret) == 0 {
		return "", errNoSecret
	}
	if c == nil {
		return "", errors.New("emulator: nil token claims")
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("emulator: encode token claims: %w", err)
	}
	signed := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	tok := signed + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(secret, signed))
	if len(tok) > maxTokenLen {
		return "", errTokenTooLarge
	}
	return tok, nil
}

// parseToken checks raw against secret and returns its claims. It accepts
// only three unpadded base64url segments, a header whose alg is HS256 (and
// whose typ, when present, is JWT), and a signature equal to the HMAC of
// the first two segments, compared in constant time. It does not look at
// exp, iat or revocation: callers judge those against their own clock.
func parseToken(secret []byte, raw string) (*tokenClaims, error) {
	if len(secret) == 0 {
		return nil, errNoSecret
	}
	if len(raw) > maxTokenLen {
		return nil, errTokenTooLarge
	}
	h, rest, ok := strings.Cut(raw, ".")
	if !ok {
		return nil, errTokenMalformed
	}
	p, s, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(s, ".") || h == "" || p == "" || s == "" {
		return nil, errTokenMalformed
	}
	// The base64 decoder skips \r and \n, so without this check a token
	// with a line break inside would verify too: one token, many spellings.
	if !isBase64URL(h) || !isBase64URL(p) || !isBase64URL(s) {
		return nil, errTokenMalformed
	}

	hb, err := b64.DecodeString(h)
	if err != nil {
		return nil, errTokenMalformed
	}
	var hdr struct {
		Alg  *string `json:"alg"`
		Typ  *string `json:"typ"`
		Crit any     `json:"crit"`
	}
	if err := decodeObject(hb, &hdr); err != nil {
		return nil, errTokenMalformed
	}
	if hdr.Alg == nil || *hdr.Alg != "HS256" {
		return nil, errTokenAlg
	}
	if (hdr.Typ != nil && *hdr.Typ != "JWT") || hdr.Crit != nil {
		return nil, errTokenMalformed
	}

	sig, err := b64.DecodeString(s)
	if err != nil {
		return nil, errTokenMalformed
	}
	if !hmac.Equal(sig, tokenMAC(secret, raw[:len(h)+1+len(p)])) {
		return nil, errTokenSignature
	}

	pb, err := b64.DecodeString(p)
	if err != nil {
		return nil, errTokenMalformed
	}
	var c tokenClaims
	if err := decodeObject(pb, &c); err != nil {
		return nil, errTokenMalformed
	}
	return &c, nil
}

// tokenMAC is the HS256 signature of the signing input.
func tokenMAC(secret []byte, signingInput string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(signingInput))
	return m.Sum(nil)
}

// decodeObject decodes b, which must be exactly one JSON object, into v.
func decodeObject(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errTokenMalformed
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.InputOffset() != int64(len(b)) {
		return errTokenMalformed
	}
	return nil
}

// isBase64URL reports whether s uses only the unpadded base64url alphabet.
func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
