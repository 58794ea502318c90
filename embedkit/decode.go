package embedkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file holds the decoding helpers every response shares: lenient
// number, string and time fields, and the platform's list and data
// envelopes. The platform documents several response shapes for the same
// data: the specification's examples ({"data": {"deployments": [...]}},
// string ids, api_credentials as an object) and the platform's OpenAPI
// schema ({"items": [...], "data": [...]}, integer ids, api_credentials as
// an array of typed entries). The decoders next to each operation accept
// both.

// flexInt64 is an integer sent as a JSON number or a decimal string.
type flexInt64 int64

// UnmarshalJSON accepts 12, "12" and null.
func (f *flexInt64) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*f = 0
			return nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// 12.0 is a number too.
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int64(fl)) {
			return fmt.Errorf("id %s is not an integer", quoteBody(b))
		}
		n = int64(fl)
	}
	*f = flexInt64(n)
	return nil
}

// flexString is a string sent as a JSON string or a number.
type flexString string

// UnmarshalJSON accepts "a", 12 and null.
func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("value %s is neither a string nor a number", quoteBody(b))
	}
	*f = flexString(n.String())
	return nil
}

// flexTime is a timestamp in RFC 3339, or a bare ISO 8601 date; empty and
// null are the zero time.
type flexTime time.Time

// UnmarshalJSON accepts RFC 3339 timestamps, dates, "" and null.
func (f *flexTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp %s is not a string", quoteBody(b))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			*f = flexTime(t)
			return nil
		}
	}
	return fmt.Errorf("timestamp %s is not ISO 8601", quoteBody([]byte(s)))
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// listOf decodes a list that is sent as "items": [...], as "data": [...]
// or as "data": {"<key>": [...]}, preferring items.
func listOf[T any](items, data json.RawMessage, key string) ([]T, error) {
	var out []T
	if !isNull(items) {
		if err := json.Unmarshal(items, &out); err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		return out, nil
	}
	d := bytes.TrimSpace(data)
	if isNull(d) {
		return nil, fmt.Errorf("neither items nor data present")
	}
	if d[0] == '[' {
		if err := json.Unmarshal(d, &out); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(d, &obj); err != nil {
		return nil, fmt.Errorf("data is neither a list nor an object")
	}
	inner, ok := obj[key]
	if !ok || isNull(inner) {
		return nil, fmt.Errorf("data.%s missing", key)
	}
	if err := json.Unmarshal(inner, &out); err != nil {
		return nil, fmt.Errorf("data.%s: %w", key, err)
	}
	return out, nil
}

// listEnvelope is the outside of every list response.
type listEnvelope struct {
	Items      json.RawMessage `json:"items"`
	Data       json.RawMessage `json:"data"`
	Pagination *Pagination     `json:"pagination"`
	PageInfo   *PageInfo       `json:"pageInfo"`
	Count      *int            `json:"count"`
}

// dataKey is the envelope's key as it appears in a body.
var dataKey = []byte(`"data"`)

// unwrapData returns the object under "data" when body is {"data": {...}},
// and body itself otherwise.
func unwrapData(body []byte) []byte {
	// Most answers have no envelope: a body without the key costs no
	// decoding. (A "data" key spelled with escapes is not unwrapped.)
	if !bytes.Contains(body, dataKey) {
		return body
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return body
	}
	d, ok := env["data"]
	if !ok {
		return body
	}
	d = bytes.TrimSpace(d)
	if len(d) > 0 && d[0] == '{' {
		return d
	}
	return body
}
