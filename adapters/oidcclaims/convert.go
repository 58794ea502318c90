package oidcclaims

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/embedkit/embedkit/embedkit"
)

// typeName names the JSON type of a decoded claim value for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, json.Number, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return "number"
	case []any, []string, []float64:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// number converts a decoded JSON number to float64. Strings are not numbers,
// even when they look like one.
func number(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case json.Number:
		x, err := n.Float64()
		if err != nil {
			return 0, false
		}
		f = x
	case int:
		f = float64(n)
	case int8:
		f = float64(n)
	case int16:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint8:
		f = float64(n)
	case uint16:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// numberText formats a JSON number claim canonically, for hashing.
func numberText(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	f, ok := number(v)
	if !ok {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// elements returns the items of a decoded JSON array.
func elements(v any) ([]any, bool) {
	switch a := v.(type) {
	case []any:
		return a, true
	case []string:
		out := make([]any, len(a))
		for i, s := range a {
			out[i] = s
		}
		return out, true
	case []float64:
		out := make([]any, len(a))
		for i, f := range a {
			out[i] = f
		}
		return out, true
	}
	return nil, false
}

// wrongType is the error for a claim whose value has another type than the
// mapping expects.
func wrongType(claim, want string, got any) error {
	return fmt.Errorf("oidcclaims: claim %q: want %s, got %s", claim, want, typeName(got))
}

// stringList converts a groups-style claim: a JSON array of strings, or one
// string whose items are separated by spaces or commas. Empty items are
// dropped and duplicates removed, keeping the first occurrence's order.
func stringList(claim string, v any) ([]string, error) {
	const want = "array of strings or string"
	var items []string
	switch x := v.(type) {
	case string:
		items = strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	default:
		elems, ok := elements(v)
		if !ok {
			return nil, wrongType(claim, want, v)
		}
		items = make([]string, 0, len(elems))
		for i, e := range elems {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("oidcclaims: claim %q: want %s, got array with %s at index %d", claim, want, typeName(e), i)
			}
			items = append(items, strings.TrimSpace(s))
		}
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for _, s := range items {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// attributeValue converts a claim to the Go value of the declared attribute
// type: string, float64, bool, []string or []float64.
func attributeValue(claim string, t embedkit.AttributeType, v any) (any, error) {
	switch t {
	case embedkit.AttributeString:
		s, ok := v.(string)
		if !ok {
			return nil, wrongType(claim, "string", v)
		}
		return s, nil
	case embedkit.AttributeNumber:
		f, ok := number(v)
		if !ok {
			return nil, wrongType(claim, "number", v)
		}
		return f, nil
	case embedkit.AttributeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, wrongType(claim, "boolean", v)
		}
		return b, nil
	case embedkit.AttributeStringArray:
		elems, ok := elements(v)
		if !ok {
			return nil, wrongType(claim, "array of strings", v)
		}
		out := make([]string, len(elems))
		for i, e := range elems {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("oidcclaims: claim %q: want array of strings, got array with %s at index %d", claim, typeName(e), i)
			}
			out[i] = s
		}
		return out, nil
	case embedkit.AttributeNumberArray:
		elems, ok := elements(v)
		if !ok {
			return nil, wrongType(claim, "array of numbers", v)
		}
		out := make([]float64, len(elems))
		for i, e := range elems {
			f, ok := number(e)
			if !ok {
				return nil, fmt.Errorf("oidcclaims: claim %q: want array of numbers, got array with %s at index %d", claim, typeName(e), i)
			}
			out[i] = f
		}
		return out, nil
	}
	return nil, fmt.Errorf("oidcclaims: claim %q: unknown attribute type %q", claim, t)
}
