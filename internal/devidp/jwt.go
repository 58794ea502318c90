package devidp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// sign serializes claims and signs them with signer (RS256, the provider's
// key id in the header).
func sign(signer jose.Signer, claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("devidp: encoding claims: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("devidp: signing: %w", err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("devidp: serializing token: %w", err)
	}
	return s, nil
}

// hintClaims are the claims /logout reads from an id_token_hint.
type hintClaims struct {
	Issuer   string   `json:"iss"`
	Subject  string   `json:"sub"`
	Audience audience `json:"aud"`
	SID      string   `json:"sid"`
	// client is the registered client the hint was issued to.
	client string
}

// audience accepts "aud" as a string or an array of strings.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("devidp: aud claim: %w", err)
	}
	*a = many
	return nil
}

// parseHint validates an id_token_hint sent to /logout with the request's
// client_id (may be empty) and returns its claims. The hint must be
//
//   - a compact JWS signed RS256 with this provider's key, whose protected
//     header has typ "JWT" (an ID token; a logout token, typ logout+jwt,
//     is refused);
//   - issued by this provider: iss equal to the issuer, byte for byte;
//   - for a subject: sub not empty;
//   - issued to a registered client: aud (a string or an array) contains
//     client_id when one is sent, otherwise aud names exactly one client.
//
// exp, iat and nbf are not checked: RP-Initiated Logout 1.0 lets a
// relying party send an expired ID token as the hint. Whether the sign-in
// its sid names is still live is for the caller to judge.
func (p *Provider) parseHint(raw, clientID string) (*hintClaims, error) {
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil, fmt.Errorf("devidp: parsing token: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("devidp: token must carry exactly one signature")
	}
	if typ, _ := jws.Signatures[0].Protected.ExtraHeaders[jose.HeaderType].(string); typ != "JWT" {
		return nil, fmt.Errorf("devidp: token typ %q is not an ID token's", typ)
	}
	payload, err := jws.Verify(&p.key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("devidp: token signature: %w", err)
	}
	var c hintClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("devidp: token claims: %w", err)
	}
	if c.Issuer != p.issuer {
		return nil, fmt.Errorf("devidp: token issued by %q", c.Issuer)
	}
	if c.Subject == "" {
		return nil, errors.New("devidp: token has no sub")
	}
	switch {
	case clientID != "":
		if !slices.Contains(c.Audience, clientID) {
			return nil, fmt.Errorf("devidp: token not issued to client %q", clientID)
		}
	case len(c.Audience) == 1:
		clientID = c.Audience[0]
	default:
		return nil, errors.New("devidp: token aud does not name exactly one client and no client_id was sent")
	}
	if p.clients[clientID] == nil {
		return nil, fmt.Errorf("devidp: token issued to unknown client %q", clientID)
	}
	c.client = clientID
	return &c, nil
}

// atHash is the OIDC at_hash of an access token for RS256.
func atHash(accessToken string) string {
	sum := sha256.Sum256([]byte(accessToken))
	return base64.RawURLEncoding.EncodeToString(sum[:len(sum)/2])
}

// userClaims are the profile claims of u, shared by ID tokens and userinfo.
func userClaims(u *User) map[string]any {
	groups := u.Groups
	if groups == nil {
		groups = []string{}
	}
	return map[string]any{
		"sub":                u.Subject,
		"name":               u.Name,
		"preferred_username": u.Username,
		"email":              u.Email,
		"email_verified":     u.Email != "",
		"groups":             groups,
		"region":             u.Region,
		"tenant":             u.Tenant,
		"creator_mode":       u.CreatorMode,
		"locale":             u.Locale,
		"zoneinfo":           u.ZoneInfo,
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError writes an OAuth 2.0 error response.
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func methodNotAllowed(w http.ResponseWriter, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
}
