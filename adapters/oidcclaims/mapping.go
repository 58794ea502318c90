package oidcclaims

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// Off, as the claim name of a field that has a default, leaves that field
// unmapped.
const Off = "-"

// Default claim names, used when the Mapping field is empty.
const (
	DefaultSubject     = "sub"
	DefaultProviderSID = "sid"
	DefaultEmail       = "email"
	DefaultDisplayName = "name"
	DefaultPicture     = "picture"
	DefaultLocale      = "locale"
	DefaultTimeZone    = "zoneinfo"
	DefaultGroups      = "groups"
)

// Attribute maps one claim to a typed user attribute.
type Attribute struct {
	// Claim is the claim name, in the same dotted form as the Mapping
	// fields.
	Claim string
	// Type is the declared attribute type; the claim must have the matching
	// JSON type (see the package documentation).
	Type embedkit.AttributeType
}

// Mapping says which claim fills which Viewer field. Each field holds a
// claim name: a top-level claim, or a nested one by dotted path
// ("realm_access.roles"); see the package documentation for names that
// contain dots.
//
// An empty field means the default claim (the Default... constants). Tenant
// and CreatorMode have no default: they change what a session may do, so
// they are mapped only when named. Off leaves a field with a default
// unmapped; Subject cannot be Off.
//
// SessionKey has no default either: it names a claim that identifies the
// login itself, which few providers send. Empty (or Off), the key is
// derived from the login's ID token (see the package documentation),
// new at every login. Do not name the provider's sid there (ProviderSID
// maps it, by default): a provider keeps its session across a sign-out
// at the host alone, so a login keyed by its sid is refused at the next
// sign-in for the record of the last one.
//
// The zero Mapping is ready to use. A Mapping is a value and safe for
// concurrent use.
type Mapping struct {
	Subject     string
	SessionKey  string
	ProviderSID string
	Email       string
	DisplayName string
	Picture     string
	Locale      string
	TimeZone    string
	Tenant      string
	CreatorMode string
	Groups      string
	// Attributes maps attribute names to claims.
	Attributes map[string]Attribute
}

// field is one string-valued Viewer field and the claim it comes from.
type field struct {
	claim string
	dst   *string
}

// resolve returns the claim name for a field: def when empty, "" when Off.
func resolve(name, def string) string {
	switch name {
	case "":
		return def
	case Off:
		return ""
	}
	return name
}

// Validate checks the Mapping itself: claim names parse, Subject is mapped,
// attributes have a name, a claim and a known type. Viewer reports the same
// problems; Validate lets a host find them at start-up.
func (m Mapping) Validate() error {
	if m.Subject == Off {
		return errors.New("oidcclaims: mapping: Subject cannot be turned off")
	}
	names := []string{
		resolve(m.Subject, DefaultSubject), resolve(m.SessionKey, ""),
		resolve(m.ProviderSID, DefaultProviderSID),
		resolve(m.Email, DefaultEmail), resolve(m.DisplayName, DefaultDisplayName),
		resolve(m.Picture, DefaultPicture), resolve(m.Locale, DefaultLocale),
		resolve(m.TimeZone, DefaultTimeZone), resolve(m.Groups, DefaultGroups),
		resolve(m.Tenant, ""), resolve(m.CreatorMode, ""),
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if _, err := parsePath(n); err != nil {
			return fmt.Errorf("oidcclaims: mapping: claim name %q: %w", n, err)
		}
	}
	for _, name := range sortedKeys(m.Attributes) {
		a := m.Attributes[name]
		if name == "" {
			return errors.New("oidcclaims: mapping: attribute with an empty name")
		}
		if a.Claim == "" {
			return fmt.Errorf("oidcclaims: mapping: attribute %q: empty claim name", name)
		}
		if _, err := parsePath(a.Claim); err != nil {
			return fmt.Errorf("oidcclaims: mapping: attribute %q: claim name %q: %w", name, a.Claim, err)
		}
		switch a.Type {
		case embedkit.AttributeString, embedkit.AttributeNumber, embedkit.AttributeBoolean,
			embedkit.AttributeStringArray, embedkit.AttributeNumberArray:
		default:
			return fmt.Errorf("oidcclaims: mapping: attribute %q: unknown type %q", name, a.Type)
		}
	}
	return nil
}

// Viewer maps decoded claims to a Viewer. Claims must come from a verified
// token or the provider's user info endpoint, never from the request.
//
// A missing or null claim leaves its field empty, except the subject, which
// is required. A claim of the wrong type is an error naming the claim.
func (m Mapping) Viewer(claims map[string]any) (*middleware.Viewer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	get := func(name string) (any, bool, error) {
		p, _ := parsePath(name) // validated above
		v, ok, err := p.lookup(claims)
		if err != nil {
			return nil, false, fmt.Errorf("oidcclaims: claim %q: %w", name, err)
		}
		return v, ok, nil
	}
	getString := func(name string) (string, bool, error) {
		v, ok, err := get(name)
		if err != nil || !ok {
			return "", false, err
		}
		s, isString := v.(string)
		if !isString {
			return "", false, wrongType(name, "string", v)
		}
		return s, true, nil
	}

	v := &middleware.Viewer{}
	subClaim := resolve(m.Subject, DefaultSubject)
	sub, _, err := getString(subClaim)
	if err != nil {
		return nil, err
	}
	if sub == "" {
		return nil, fmt.Errorf("oidcclaims: claim %q: missing; the subject is required", subClaim)
	}
	v.Subject = sub

	fields := []field{
		{resolve(m.ProviderSID, DefaultProviderSID), &v.ProviderSID},
		{resolve(m.Email, DefaultEmail), &v.Email},
		{resolve(m.DisplayName, DefaultDisplayName), &v.DisplayName},
		{resolve(m.Picture, DefaultPicture), &v.Picture},
		{resolve(m.Locale, DefaultLocale), &v.Locale},
		{resolve(m.TimeZone, DefaultTimeZone), &v.TimeZone},
		{resolve(m.Tenant, ""), &v.Tenant},
	}
	for _, f := range fields {
		if f.claim == "" {
			continue
		}
		s, _, err := getString(f.claim)
		if err != nil {
			return nil, err
		}
		*f.dst = s
	}
	// A picture the platform would refuse is left out, as the Policy
	// does: a cosmetic claim does not block a sign-in. One rule,
	// embedkit's, decides.
	if v.Picture != "" && !embedkit.IsPictureURL(v.Picture) {
		v.Picture = ""
	}

	if name := resolve(m.CreatorMode, ""); name != "" {
		raw, ok, err := get(name)
		if err != nil {
			return nil, err
		}
		if ok {
			b, isBool := raw.(bool)
			if !isBool {
				return nil, wrongType(name, "boolean", raw)
			}
			v.CreatorMode = b
		}
	}

	if name := resolve(m.Groups, DefaultGroups); name != "" {
		raw, ok, err := get(name)
		if err != nil {
			return nil, err
		}
		if ok {
			if v.Groups, err = stringList(name, raw); err != nil {
				return nil, err
			}
		}
	}

	for _, attr := range sortedKeys(m.Attributes) {
		a := m.Attributes[attr]
		raw, ok, err := get(a.Claim)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		val, err := attributeValue(a.Claim, a.Type, raw)
		if err != nil {
			return nil, err
		}
		if v.Attributes == nil {
			v.Attributes = make(map[string]any, len(m.Attributes))
		}
		v.Attributes[attr] = val
	}

	if v.SessionKey, err = m.sessionKey(claims, sub, v.ProviderSID, get); err != nil {
		return nil, err
	}
	return v, nil
}

// sessionKey returns the claim SessionKey names, when present; otherwise
// a hash of sub, iat, nonce and the provider's sid (when there is one)
// when at least one of iat and nonce is present; otherwise "".
func (m Mapping) sessionKey(claims map[string]any, sub, sid string, get func(string) (any, bool, error)) (string, error) {
	if name := resolve(m.SessionKey, ""); name != "" {
		raw, ok, err := get(name)
		if err != nil {
			return "", err
		}
		if ok {
			s, isString := raw.(string)
			if !isString {
				return "", wrongType(name, "string", raw)
			}
			if s != "" {
				return s, nil
			}
		}
	}
	var iat, nonce string
	if raw, ok := claims["iat"]; ok && raw != nil {
		if iat = numberText(raw); iat == "" {
			return "", wrongType("iat", "number", raw)
		}
	}
	if raw, ok := claims["nonce"]; ok && raw != nil {
		s, isString := raw.(string)
		if !isString {
			return "", wrongType("nonce", "string", raw)
		}
		nonce = s
	}
	if iat == "" && nonce == "" {
		return "", nil
	}
	h := sha256.New()
	parts := []string{"embedkit/oidcclaims session key", sub, iat, nonce}
	if sid != "" {
		// Two provider sessions that sign in within one second and
		// without a nonce still get two keys. Without a sid the key is
		// what it always was.
		parts = append(parts, sid)
	}
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return "h" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// FromIDToken maps the claims of a verified ID token. Call it with the token
// of the login itself (not one from a refresh), so that the fallback
// session key stays the same for the whole login.
func (m Mapping) FromIDToken(tok *oidc.IDToken) (*middleware.Viewer, error) {
	if tok == nil {
		return nil, errors.New("oidcclaims: nil ID token")
	}
	var raw json.RawMessage
	if err := tok.Claims(&raw); err != nil {
		return nil, fmt.Errorf("oidcclaims: ID token claims: %w", err)
	}
	claims, err := decodeClaims(raw)
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: ID token claims: %w", err)
	}
	return m.Viewer(claims)
}

// FromUserInfo maps the claims of a user info response. The caller checks
// that its subject is the ID token's (OpenID Connect Core 1.0, 5.3.2).
// User info responses carry no sid, iat or nonce, so the Viewer's
// SessionKey and ProviderSID are empty unless the provider adds such
// claims.
func (m Mapping) FromUserInfo(u *oidc.UserInfo) (*middleware.Viewer, error) {
	if u == nil {
		return nil, errors.New("oidcclaims: nil user info")
	}
	claims, err := userInfoClaims(u)
	if err != nil {
		return nil, err
	}
	return m.Viewer(claims)
}

// decodeClaims decodes a JSON object, keeping numbers exact.
func decodeClaims(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil {
		return nil, err
	}
	if claims == nil {
		return nil, errors.New("not a JSON object")
	}
	return claims, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
