package scssession

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/embedkit/embedkit/internal/storedattr"
	"github.com/embedkit/embedkit/middleware"
)

// storedViewer is the JSON form of a Viewer in the scs session. It is
// kept as a string, so that it reads back under any scs.Codec (gob, the
// default, or one of the app's own) without a type to register. Groups
// is a pointer so that nil and empty stay distinct.
type storedViewer struct {
	Subject     string                     `json:"s"`
	SessionKey  string                     `json:"k"`
	ProviderSID string                     `json:"d,omitempty"`
	Email       string                     `json:"e,omitempty"`
	DisplayName string                     `json:"n,omitempty"`
	Picture     string                     `json:"p,omitempty"`
	Groups      *[]string                  `json:"g,omitempty"`
	Attributes  map[string]storedattr.Attr `json:"a,omitempty"`
	Tenant      string                     `json:"t,omitempty"`
	CreatorMode bool                       `json:"c,omitempty"`
	Locale      string                     `json:"l,omitempty"`
	TimeZone    string                     `json:"z,omitempty"`
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
	attrs, err := storedattr.FromViewer(v.Attributes)
	if err != nil {
		return "", fmt.Errorf("scssession: %w", err)
	}
	s.Attributes = attrs
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
	attrs, ok := storedattr.ToViewer(s.Attributes)
	if !ok {
		return storedViewer{}, nil, false
	}
	v.Attributes = attrs
	return s, v, true
}
