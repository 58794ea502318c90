// Package storedattr is the typed JSON form in which the kit's session
// adapters (gorillasession's cookie, scssession's server-side session)
// keep a middleware.Viewer's attributes: one object per attribute with
// exactly one of s, n, b, sa and na set, so that a []string reads back a
// []string, not a []any. One form, so that the two adapters allow the
// same attribute types and read them back the same way.
package storedattr

import (
	"fmt"
	"maps"
	"slices"
)

// Attr is one stored attribute value; exactly one field is set.
type Attr struct {
	S  *string    `json:"s,omitempty"`
	N  *float64   `json:"n,omitempty"`
	B  *bool      `json:"b,omitempty"`
	SA *[]string  `json:"sa,omitempty"`
	NA *[]float64 `json:"na,omitempty"`
}

// FromViewer converts attrs, a Viewer's Attributes, to their stored form,
// nil when there are none. A value of a type the Viewer does not allow is
// an error naming the attribute and the types it may have. Slices are
// copied, and a nil slice is stored empty.
func FromViewer(attrs map[string]any) (map[string]Attr, error) {
	var out map[string]Attr
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		var a Attr
		switch x := attrs[name].(type) {
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
			return nil, fmt.Errorf("Viewer.Attributes[%q]: value of type %T; want string, float64, bool, []string or []float64", name, x)
		}
		if out == nil {
			out = make(map[string]Attr, len(attrs))
		}
		out[name] = a
	}
	return out, nil
}

// Value returns the attribute's value, the first set of s, n, b, sa and
// na; ok is false when none is set.
func (a Attr) Value() (v any, ok bool) {
	switch {
	case a.S != nil:
		return *a.S, true
	case a.N != nil:
		return *a.N, true
	case a.B != nil:
		return *a.B, true
	case a.SA != nil:
		return *a.SA, true
	case a.NA != nil:
		return *a.NA, true
	}
	return nil, false
}

// ToViewer converts stored attributes back to a Viewer's Attributes, nil
// when there are none; ok is false when one of them has no value.
func ToViewer(stored map[string]Attr) (map[string]any, bool) {
	var out map[string]any
	for name, a := range stored {
		v, ok := a.Value()
		if !ok {
			return nil, false
		}
		if out == nil {
			out = make(map[string]any, len(stored))
		}
		out[name] = v
	}
	return out, true
}
