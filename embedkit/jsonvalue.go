package embedkit

import (
	"encoding"
	"encoding/json"
	"iter"
	"maps"
	"math"
	"reflect"
	"slices"
)

// This file holds the JSON value checks: the kind of a user attribute
// value, and whether a free-form value (a security context) encodes as
// JSON within the platform's depth and size limits, without encoding it.

// valueKind is the JSON shape of a user attribute value.
type valueKind uint8

const (
	kindInvalid valueKind = iota
	kindNull
	kindString
	kindNumber
	kindBool
	kindStringArray
	kindNumberArray
	kindEmptyArray // fits both array types
)

// fits reports whether a value of kind k may be given for an attribute of
// type t.
func (k valueKind) fits(t AttributeType) bool {
	switch t {
	case AttributeString:
		return k == kindString
	case AttributeNumber:
		return k == kindNumber
	case AttributeBoolean:
		return k == kindBool
	case AttributeStringArray:
		return k == kindStringArray || k == kindEmptyArray
	case AttributeNumberArray:
		return k == kindNumberArray || k == kindEmptyArray
	}
	return false
}

// known reports whether t is one of the attribute types.
func (t AttributeType) known() bool {
	switch t {
	case AttributeString, AttributeNumber, AttributeBoolean, AttributeStringArray, AttributeNumberArray:
		return true
	}
	return false
}

// attributeKind classifies a user attribute value by the JSON it encodes
// to, or kindInvalid when that is not a shape the platform accepts.
func attributeKind(v any) valueKind {
	if k := scalarKind(v); k != kindInvalid {
		return k
	}
	switch x := v.(type) {
	case []string:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindStringArray)
	case []float64:
		if x == nil {
			return kindNull
		}
		for _, f := range x {
			if !isFinite(f) {
				return kindInvalid
			}
		}
		return arrayKind(len(x), kindNumberArray)
	case []int:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindNumberArray)
	case []int64:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindNumberArray)
	case json.Number:
		return kindInvalid // not a number literal, so it cannot be encoded
	case []any:
		if x == nil {
			return kindNull
		}
		if len(x) == 0 {
			return kindEmptyArray
		}
		first := scalarKind(x[0])
		if first != kindString && first != kindNumber {
			return kindInvalid
		}
		for _, e := range x[1:] {
			if scalarKind(e) != first {
				return kindInvalid
			}
		}
		if first == kindString {
			return kindStringArray
		}
		return kindNumberArray
	}
	return reflectedKind(v)
}

// arrayKind is the kind of a non-nil slice of n elements of kind k.
func arrayKind(n int, k valueKind) valueKind {
	if n == 0 {
		return kindEmptyArray
	}
	return k
}

// scalarKind classifies the built-in scalar types and nil; anything else
// is kindInvalid.
func scalarKind(v any) valueKind {
	switch x := v.(type) {
	case nil:
		return kindNull
	case string:
		return kindString
	case bool:
		return kindBool
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return kindNumber
	case float64:
		if isFinite(x) {
			return kindNumber
		}
	case float32:
		if isFinite(float64(x)) {
			return kindNumber
		}
	case json.Number:
		if isJSONNumber(string(x)) {
			return kindNumber
		}
	}
	return kindInvalid
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
)

// reflectedKind classifies named types (type Region string, []Score) by
// their underlying kind. Types with their own JSON or text encoding are
// invalid: what they encode to cannot be known here.
func reflectedKind(v any) valueKind {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || encodesItself(rv.Type()) {
		return kindInvalid
	}
	if k := reflectedScalarKind(rv); k != kindInvalid {
		return k
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return kindInvalid
	}
	et := rv.Type().Elem()
	if rv.Kind() == reflect.Slice && (rv.IsNil() || et.Kind() == reflect.Uint8) {
		// A nil slice encodes as null; a byte slice as a base64 string,
		// which is not what a caller giving numbers means.
		if rv.IsNil() {
			return kindNull
		}
		return kindInvalid
	}
	if encodesItself(et) {
		return kindInvalid
	}
	if et == jsonNumberType {
		for i := range rv.Len() {
			if !isJSONNumber(rv.Index(i).String()) {
				return kindInvalid
			}
		}
		return arrayKind(rv.Len(), kindNumberArray)
	}
	var want valueKind
	switch et.Kind() {
	case reflect.String:
		want = kindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		want = kindNumber
	default:
		return kindInvalid
	}
	for i := range rv.Len() {
		if reflectedScalarKind(rv.Index(i)) != want {
			return kindInvalid
		}
	}
	if want == kindString {
		return arrayKind(rv.Len(), kindStringArray)
	}
	return arrayKind(rv.Len(), kindNumberArray)
}

// reflectedScalarKind classifies a string, bool or number of any type.
func reflectedScalarKind(rv reflect.Value) valueKind {
	switch rv.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindNumber
	case reflect.Float32, reflect.Float64:
		if isFinite(rv.Float()) {
			return kindNumber
		}
	}
	return kindInvalid
}

// encodesItself reports whether values of t (or pointers to them, as
// slice elements are encoded) have their own JSON or text encoding.
func encodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
		pt.Implements(jsonMarshalerType) || pt.Implements(textMarshalerType)
}

// isFinite reports whether f is neither NaN nor infinite.
func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// isJSONNumber reports whether s is a JSON number literal.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// checkEncodable reports field when v cannot be encoded as JSON, nests
// deeper than MaxSecurityContextDepth or holds more than maxJSONValues
// values. An object or array v is level 1 itself.
func checkEncodable(p *problems, field string, v any) {
	switch encodable(v) {
	case encodeFails:
		p.add(field, ruleEncodable)
	case encodeTooDeep:
		p.add(field, ruleDepth)
	case encodeTooLarge:
		p.add(field, ruleTooLarge)
	}
}

// maxJSONValues bounds how many values a security context, template
// variables or filter value may hold. It stops a hostile value (a slice
// holding the same slice twice, nested 32 times) from taking 2^32 steps.
const maxJSONValues = 1 << 20

// encodeResult is the outcome of encodable, worst last: a value that
// fails to encode anywhere fails, otherwise one that is cut off too large
// or too deep is reported as such.
type encodeResult uint8

const (
	encodeOK encodeResult = iota
	encodeTooDeep
	encodeTooLarge
	encodeFails
)

// encodable reports whether v encodes to JSON within
// MaxSecurityContextDepth levels and maxJSONValues values. The common
// shapes of decoded JSON are walked directly, without allocating; other
// types are encoded with encoding/json and the result is measured. Nesting
// is bounded, so a map or slice that contains itself ends as too deep.
func encodable(v any) encodeResult {
	w := jsonWalker{budget: maxJSONValues}
	return w.walk(v, 0)
}

// jsonWalker walks a value; budget is how many more values it may visit.
type jsonWalker struct{ budget int }

// walk checks v, found inside depth enclosing objects and arrays.
func (w *jsonWalker) walk(v any, depth int) encodeResult {
	w.budget--
	if w.budget < 0 {
		return encodeTooLarge
	}
	switch x := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return encodeOK
	case float64:
		if isFinite(x) {
			return encodeOK
		}
		return encodeFails
	case float32:
		if isFinite(float64(x)) {
			return encodeOK
		}
		return encodeFails
	case json.Number:
		if x == "" || isJSONNumber(string(x)) {
			return encodeOK
		}
		return encodeFails
	case map[string]any:
		if x == nil {
			return encodeOK
		}
		return w.walkEach(maps.Values(x), depth)
	case []any:
		if x == nil {
			return encodeOK
		}
		return w.walkEach(slices.Values(x), depth)
	case []string, map[string]string, []int, []int64:
		if depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		return encodeOK
	case []float64:
		for _, f := range x {
			if !isFinite(f) {
				return encodeFails
			}
		}
		if x != nil && depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		return encodeOK
	}
	b, err := json.Marshal(v)
	if err != nil {
		return encodeFails
	}
	if depth+rawJSONDepth(b) > MaxSecurityContextDepth {
		return encodeTooDeep
	}
	return encodeOK
}

// walkEach walks the members of a container at depth, and returns the
// worst of their results.
func (w *jsonWalker) walkEach(values iter.Seq[any], depth int) encodeResult {
	if depth >= MaxSecurityContextDepth {
		return encodeTooDeep
	}
	worst := encodeOK
	for e := range values {
		if worst = max(worst, w.walk(e, depth+1)); worst == encodeFails {
			break
		}
	}
	return worst
}

// rawJSONDepth returns the deepest nesting of objects and arrays in the
// valid JSON text b.
func rawJSONDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
