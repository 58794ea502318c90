package gorillasession

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// storedViewer is the compact JSON form of a Viewer in the session. Groups
// is a pointer so that nil and empty stay distinct.
type storedViewer struct {
	Subject     string                `json:"s"`
	SessionKey  string                `json:"k"`
	Issued      int64                 `json:"i"` // unix milliseconds of Save
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

// storedAttr is one typed attribute value; exactly one field is set.
type storedAttr struct {
	S  *string    `json:"s,omitempty"`
	N  *float64   `json:"n,omitempty"`
	B  *bool      `json:"b,omitempty"`
	SA *[]string  `json:"sa,omitempty"`
	NA *[]float64 `json:"na,omitempty"`
}

// toStored converts v, checking that attribute values have one of the types
// the Viewer allows.
func toStored(v *middleware.Viewer, key string, issued time.Time) (storedViewer, error) {
	s := storedViewer{
		Subject: v.Subject, SessionKey: key, Issued: issued.UnixMilli(),
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
			return storedViewer{}, fmt.Errorf("gorillasession: attribute %q: value of type %T; want string, float64, bool, []string or []float64", name, x)
		}
		if s.Attributes == nil {
			s.Attributes = make(map[string]storedAttr, len(v.Attributes))
		}
		s.Attributes[name] = a
	}
	return s, nil
}

// viewer converts back; ok is false for a record that is not a viewer.
func (s storedViewer) viewer() (*middleware.Viewer, bool) {
	if s.Subject == "" {
		return nil, false
	}
	v := &middleware.Viewer{
		Subject: s.Subject, SessionKey: s.SessionKey,
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
			return nil, false
		}
		if v.Attributes == nil {
			v.Attributes = make(map[string]any, len(s.Attributes))
		}
		v.Attributes[name] = val
	}
	return v, true
}
