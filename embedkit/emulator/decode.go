package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The emulator decodes every request body and fixture in two passes. The
// first decodes into a generic tree and checks it against the destination
// Go type (closed objects, JSON types, integers), so that every error names
// the exact path of the offending field, such as
// "userAttributes[1].value" or "deployments[0].branches[2].kind". The
// second pass is a plain json.Unmarshal, which then cannot fail on shape.
//
// null is accepted for every object member and means the same as omitting
// it; inside arrays, null is accepted only where the element type is a
// pointer or free-form.

// maxBodyBytes bounds every request body of the management API.
const maxBodyBytes = 1 << 20

// maxFixtureBytes bounds a fixture (file, reader or control API body).
const maxFixtureBytes = 16 << 20

// fieldError is a decoding or validation error that names the field.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

func errAt(path, msg string) error { return &fieldError{path: path, msg: msg} }

func joinPath(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

func indexPath(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

// jsonDuration is a duration written as a Go duration string ("50ms").
type jsonDuration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = jsonDuration(v)
	return nil
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	durationType = reflect.TypeFor[jsonDuration]()
)

// fieldCache maps a struct type to its JSON member names.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

func structFields(t reflect.Type) map[string]reflect.Type {
	if v, ok := fieldCache.Load(t); ok {
		return v.(map[string]reflect.Type)
	}
	m := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		m[name] = f.Type
	}
	fieldCache.Store(t, m)
	return m
}

func typeName(t reflect.Type) string {
	switch t {
	case timeType:
		return "an RFC 3339 time"
	case durationType:
		return "a duration such as \"5m\""
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value"
}

// checkShape checks the generic JSON value v (decoded with UseNumber)
// against the Go type t and returns the first mismatch, named by path.
func checkShape(v any, t reflect.Type, path string) error {
	if v == nil {
		return nil
	}
	mismatch := func() error { return errAt(path, "must be "+typeName(t)) }
	switch t {
	case timeType:
		s, ok := v.(string)
		if !ok {
			return mismatch()
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return mismatch()
		}
		return nil
	case durationType:
		s, ok := v.(string)
		if !ok {
			return mismatch()
		}
		if _, err := time.ParseDuration(s); err != nil {
			return mismatch()
		}
		return nil
	case rawType:
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return checkShape(v, t.Elem(), path)
	case reflect.Interface:
		return nil
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch()
		}
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch()
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return mismatch()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch()
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			return mismatch()
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		et := t.Elem()
		for i, e := range arr {
			p := indexPath(path, i)
			if e == nil && et.Kind() != reflect.Pointer && et.Kind() != reflect.Interface && et != rawType {
				return errAt(p, "must be "+typeName(et))
			}
			if err := checkShape(e, et, p); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		if t.Elem().Kind() == reflect.Interface {
			return nil
		}
		for _, k := range sortedKeys(obj) {
			if err := checkShape(obj[k], t.Elem(), joinPath(path, k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		fields := structFields(t)
		for _, k := range sortedKeys(obj) {
			ft, ok := fields[k]
			if !ok {
				return errAt(joinPath(path, k), "unknown field")
			}
			if err := checkShape(obj[k], ft, joinPath(path, k)); err != nil {
				return err
			}
		}
	default:
		return mismatch()
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeStrict decodes data into dst (a pointer to a struct). Empty input
// (only white space) decodes as an empty object.
func decodeStrict(data []byte, dst any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return errAt("", "body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errAt("", "body is not valid JSON: data after the top-level value")
	}
	if v != nil {
		if _, ok := v.(map[string]any); !ok {
			return errAt("", "body must be a JSON object")
		}
	}
	if err := checkShape(v, reflect.TypeOf(dst).Elem(), ""); err != nil {
		return err
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return errAt("", "body is not valid JSON for this operation")
	}
	return nil
}

// readBody reads a request body bounded by limit. It writes the error
// response itself (413 when too large) and reports whether to go on.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeError(w, http.StatusRequestEntityTooLarge, "request body too large (limit "+strconv.FormatInt(limit, 10)+" bytes)")
			return nil, false
		}
		s.writeError(w, http.StatusBadRequest, "cannot read request body")
		return nil, false
	}
	return data, true
}

// decodeBody reads and strictly decodes a JSON request body into dst,
// writing a 400 or 413 response on failure.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, dst any) bool {
	data, ok := s.readBody(w, r, maxBodyBytes)
	if !ok {
		return false
	}
	if err := decodeStrict(data, dst); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}
