package gorillasession

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/embedkit/embedkit/internal/storedattr"
	"github.com/embedkit/embedkit/middleware"
)

// storedViewer is the compact JSON form of a Viewer in the session. Groups
// is a pointer so that nil and empty stay distinct.
type storedViewer struct {
	Subject     string                     `json:"s"`
	SessionKey  string                     `json:"k"`
	ProviderSID string                     `json:"d,omitempty"`
	Issued      int64                      `json:"i"` // unix milliseconds of Save
	Email       string                     `json:"e,omitempty"`
	DisplayName string                     `json:"n,omitempty"`
	Picture     string                     `json:"p,omitempty"`
	Groups      *[]string                  `json:"g,omitempty"`
	Attributes  map[string]storedattr.Attr `json:"a,omitempty"`
	Tenant      string                     `json:"t,omitempty"`
	CreatorMode bool                       `json:"c,omitempty"`
	Locale      string                     `json:"l,omitempty"`
	TimeZone    string                     `json:"z,omitempty"`

	// attrs is what the hand decoder reads from "a": the attributes as
	// the Viewer holds them, with Attributes left nil. It is nil when
	// there are none.
	attrs map[string]any
}

// toStored converts v, checking that attribute values have one of the types
// the Viewer allows.
func toStored(v *middleware.Viewer, key string, issued time.Time) (storedViewer, error) {
	s := storedViewer{
		Subject: v.Subject, SessionKey: key, ProviderSID: v.ProviderSID, Issued: issued.UnixMilli(),
		Email: v.Email, DisplayName: v.DisplayName, Picture: v.Picture,
		Tenant: v.Tenant, CreatorMode: v.CreatorMode, Locale: v.Locale, TimeZone: v.TimeZone,
	}
	if v.Groups != nil {
		g := slices.Clone(v.Groups)
		s.Groups = &g
	}
	attrs, err := storedattr.FromViewer(v.Attributes)
	if err != nil {
		return storedViewer{}, fmt.Errorf("gorillasession: %w", err)
	}
	s.Attributes = attrs
	return s, nil
}

// viewer converts back; ok is false for a record that is not a viewer.
func (s storedViewer) viewer() (*middleware.Viewer, bool) {
	if s.Subject == "" {
		return nil, false
	}
	v := &middleware.Viewer{
		Subject: s.Subject, SessionKey: s.SessionKey, ProviderSID: s.ProviderSID,
		Email: s.Email, DisplayName: s.DisplayName, Picture: s.Picture,
		Tenant: s.Tenant, CreatorMode: s.CreatorMode, Locale: s.Locale, TimeZone: s.TimeZone,
		Attributes: s.attrs,
	}
	if s.Groups != nil {
		v.Groups = *s.Groups
	}
	if s.attrs == nil {
		var ok bool
		if v.Attributes, ok = s.attributes(); !ok {
			return nil, false
		}
	}
	return v, true
}

// attributes converts Attributes, as encoding/json reads them, to the
// Viewer's form; ok is false when one of them has no value. An attribute
// with several values takes the first of s, n, b, sa and na, as
// scanner.attr does. No attributes give a nil map.
func (s storedViewer) attributes() (map[string]any, bool) {
	return storedattr.ToViewer(s.Attributes)
}

// decodeViewer reads the JSON text of a storedViewer. The shape Save
// writes is read by hand (scanViewer), with no reflection; anything else
// (escapes in a string, a field written by another version, a null) goes
// to encoding/json, so every value a session ever held reads as it did.
// FuzzStoredViewer holds the two decoders to the same answer.
func decodeViewer(raw string) (storedViewer, bool) {
	return scanOrUnmarshal(raw, scanViewer)
}

// viewerFields are the JSON names of storedViewer's fields.
const viewerFields = "skdienpgatclz"

// scanViewer is the hand decoder of the compact JSON json.Marshal writes
// for a storedViewer: no whitespace, each field at most once, strings
// without escapes. ok is false for anything else, which the caller gives
// to encoding/json.
func scanViewer(s string) (storedViewer, bool) {
	p := scanner{s: s}
	var rec storedViewer
	var seen uint16
	ok := p.object(func(name string) (ok bool) {
		// One letter per field, each at most once (encoding/json would
		// also take "S" for "s", and keep the last of two).
		i := -1
		if len(name) == 1 {
			i = strings.IndexByte(viewerFields, name[0])
		}
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		switch name {
		case "s":
			rec.Subject, ok = p.str()
		case "k":
			rec.SessionKey, ok = p.str()
		case "d":
			rec.ProviderSID, ok = p.str()
		case "i":
			rec.Issued, ok = p.int()
		case "e":
			rec.Email, ok = p.str()
		case "n":
			rec.DisplayName, ok = p.str()
		case "p":
			rec.Picture, ok = p.str()
		case "g":
			var g []string
			g, ok = array(&p, p.str)
			rec.Groups = &g
		case "a":
			rec.attrs, ok = p.attrs()
		case "t":
			rec.Tenant, ok = p.str()
		case "c":
			rec.CreatorMode, ok = p.bool()
		case "l":
			rec.Locale, ok = p.str()
		case "z":
			rec.TimeZone, ok = p.str()
		}
		return ok
	})
	if !ok || !p.done() {
		return storedViewer{}, false
	}
	return rec, true
}

// attrs reads the attributes object of a storedViewer into the Viewer's
// form, as storedViewer.attributes converts what encoding/json reads; an
// empty object gives nil.
func (p *scanner) attrs() (map[string]any, bool) {
	var out map[string]any
	ok := p.object(func(name string) bool {
		if _, dup := out[name]; dup {
			return false
		}
		v, ok := p.attr()
		if out == nil {
			out = map[string]any{}
		}
		out[name] = v
		return ok
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// attrFields are the JSON names of storedattr.Attr's fields, in the order
// storedViewer.attributes prefers them.
var attrFields = [...]string{"s", "n", "b", "sa", "na"}

// attr reads one attribute, an object of storedattr.Attr's typed fields, and
// returns the value of the field storedViewer.attributes would take. ok
// is false for an object with no field, an unknown or repeated one, or a
// value of the wrong type.
func (p *scanner) attr() (any, bool) {
	var (
		val  any
		rank = len(attrFields) // val's field; a lower one replaces it
		seen uint8
	)
	ok := p.object(func(name string) (ok bool) {
		i := slices.Index(attrFields[:], name)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		var v any
		switch i {
		case 0:
			v, ok = p.str()
		case 1:
			v, ok = p.float()
		case 2:
			v, ok = p.bool()
		case 3:
			v, ok = array(p, p.str)
		case 4:
			v, ok = array(p, p.float)
		}
		if ok && i < rank {
			val, rank = v, i
		}
		return ok
	})
	if !ok || seen == 0 {
		return nil, false
	}
	return val, true
}
