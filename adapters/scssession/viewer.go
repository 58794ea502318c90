package scssession

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/embedkit/embedkit/middleware"
)

// storedViewer is the JSON form of a Viewer in the scs session. It is
// kept as a string, so that it reads back under any scs.Codec (gob, the
// default, or one of the app's own) without a type to register. Groups
// is a pointer so that nil and empty stay distinct.
type storedViewer struct {
	Subject     string                `json:"s"`
	SessionKey  string                `json:"k"`
	ProviderSID string                `json:"d,omitempty"`
	Email       string                `json:"e,omitempty"`
	DisplayName string                `json:"n,omitempty"`
	Picture     string                `json:"p,omitempty"`
	Groups      *[]string             `json:"g,omitempty"`
	Attributes  map[string]storedAttr `json:"a,omitempty"`
	Tenant      string                `json:"t,omitempty"`
	CreatorMode bool                  `json:"c,omitempty"`
	Locale      string                `json:"l,omitempty"`
	TimeZone    string                `json:"z,omitempty"`
}

// storedAttr is one typed attribute value; exactly one field is set, so
// that a []string comes back a []string, not a []any.
type storedAttr struct {
	S  *string    `json:"s,omitempty"`
	N  *float64   `json:"n,omitempty"`
	B  *bool      `json:"b,omitempty"`
	SA *[]string  `json:"sa,omitempty"`
	NA *[]float64 `json:"na,omitempty"`
}

// encodeViewer returns the JSON text of v under key, checking that its attribute values have one of the types the Viewer
// allows.
func encodeViewer(v *middleware.Viewer, key string) (string, error) {
	s := storedViewer{
		Subject: v.Subject, SessionKey: key, ProviderSID: v.ProviderSID,
		Email: v.Email, DisplayName: v.DisplayName, Picture: v.Picture,
		Tenant: v.Tenant, CreatorMode: v.CreatorMode, Locale: v.Locale, TimeZone: v.TimeZone,
	}
	if v.Groups != nil {
		g := slices.Clone(v.Groups)
		s.Groups = &g
	}
	for _, name := range slices.Sorted(maps.Keys(v.Attributes)) {
		var a storedAttr
		switch x := v.Attributes[name].(type) {
		case string:
			a.S = &x
		case float64:
			a.N = &x
		case bool:
			a.B = &x
		case []string:
			c := slices.Clone(x)
			if c == nil {
				c = []string{}
			}
			a.SA = &c
		case []float64:
			c := slices.Clone(x)
			if c == nil {
				c = []float64{}
			}
			a.NA = &c
		default:
			return "", fmt.Errorf("scssession: Viewer.Attributes[%q]: value of type %T; want string, float64, bool, []string or []float64", name, x)
		}
		if s.Attributes == nil {
			s.Attributes = make(map[string]storedAttr, len(v.Attributes))
		}
		s.Attributes[name] = a
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("scssession: encoding the viewer: %w", err)
	}
	return string(b), nil
}

// decodeViewer reads the JSON text of a storedViewer; ok is false for
// anything that is not one (no subject, no key, an attribute with no
// value).
func decodeViewer(raw string) (storedViewer, *middleware.Viewer, bool) {
	var s storedViewer
	if raw == "" || json.Unmarshal([]byte(raw), &s) != nil || s.Subject == "" || s.SessionKey == "" {
		return storedViewer{}, nil, false
	}
	v := &middleware.Viewer{
		Subject: s.Subject, SessionKey: s.SessionKey, ProviderSID: s.ProviderSID,
		Email: s.Email, DisplayName: s.DisplayName, Picture: s.Picture,
		Tenant: s.Tenant, CreatorMode: s.CreatorMode, Locale: s.Locale, TimeZone: s.TimeZone,
	}
	if s.Groups != nil {
		v.Groups = *s.Groups
	}
	for name, a := range s.Attributes {
		var val any
		switch {
		case a.S != nil:
			val = *a.S
		case a.N != nil:
			val = *a.N
		case a.B != nil:
			val = *a.B
		case a.SA != nil:
			val = *a.SA
		case a.NA != nil:
			val = *a.NA
		default:
			return storedViewer{}, nil, false
		}
		if v.Attributes == nil {
			v.Attributes = make(map[string]any, len(s.Attributes))
		}
		v.Attributes[name] = val
	}
	return s, v, true
}
