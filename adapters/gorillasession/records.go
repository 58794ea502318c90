package gorillasession

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The records of a session are kept as JSON text in the cookie:
//
//	{"<key>":[["<id>",<expiry ms>],["<id>",<expiry ms>,"<subject>"]],...}
//
// a record's subject written only when it differs from the previous
// record's (see recordList). encodeRecords and decodeRecords read and
// write that one shape by hand, with no reflection; a value of any other
// shape (or any JSON the hand decoder does not take, such as a string with
// escapes it leaves to the standard library) is decoded by encoding/json,
// so every value the cookie ever held still reads.

// encodeRecords returns the JSON text of recs, keys in sorted order, as
// json.Marshal writes it (FuzzRecords holds the two to the same value).
func encodeRecords(recs map[string]recordList) string {
	keys := make([]string, 0, len(recs))
	n := 2
	for k, list := range recs {
		keys = append(keys, k)
		n += len(k) + 6
		for _, r := range list {
			n += len(r.I) + len(r.S) + 30
		}
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':', '[')
		prev := ""
		for j, r := range recs[k] {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendJSONString(b, r.I)
			b = append(b, ',')
			b = strconv.AppendInt(b, r.E, 10)
			if r.S != prev {
				b = append(b, ',')
				b = appendJSONString(b, r.S)
			}
			b = append(b, ']')
			prev = r.S
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	return string(b)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, <, > and & escaped as encoding/json does,
// invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeRecords reads a value written by encodeRecords, or by an earlier
// version with encoding/json. ok is false when the value is not records at
// all.
func decodeRecords(s string) (map[string]recordList, bool) {
	return scanOrUnmarshal(s, scanRecords)
}

// scanOrUnmarshal reads the JSON text s with the hand decoder scan, or,
// when scan refuses it, with encoding/json; ok is false when neither
// reads it as a T.
func scanOrUnmarshal[T any](s string, scan func(string) (T, bool)) (T, bool) {
	if v, ok := scan(s); ok {
		return v, true
	}
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// scanRecords is the hand decoder of the one shape encodeRecords writes,
// strings without escapes only; ok is false for anything else, which the
// caller then gives to encoding/json.
func scanRecords(s string) (map[string]recordList, bool) {
	p := scanner{s: s}
	recs := map[string]recordList{}
	ok := p.object(func(key string) bool {
		if _, dup := recs[key]; dup {
			return false // encoding/json keeps the last; let it decide
		}
		prev := ""
		list, ok := array(&p, func() (storedMinted, bool) {
			r := storedMinted{S: prev}
			if !p.eat('[') {
				return r, false
			}
			var ok bool
			if r.I, ok = p.str(); !ok || !p.eat(',') {
				return r, false
			}
			if r.E, ok = p.int(); !ok {
				return r, false
			}
			if p.eat(',') {
				if r.S, ok = p.str(); !ok {
					return r, false
				}
			}
			prev = r.S
			return r, p.eat(']')
		})
		if len(list) == 0 {
			list = nil // an empty list reads as none, as it always has
		}
		recs[key] = list
		return ok
	})
	if !ok || !p.done() {
		return nil, false
	}
	return recs, true
}

// scanner reads the compact JSON encodeRecords writes: no whitespace.
type scanner struct {
	s string
	i int
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) done() bool { return p.i == len(p.s) }

// str reads a string without escapes or control characters, of valid
// UTF-8.
func (p *scanner) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			v := p.s[start:p.i]
			p.i++
			return v, utf8.ValidString(v)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// int reads an integer without sign, fraction or exponent, as
// strconv.AppendInt writes one (a negative expiry is left to
// encoding/json).
func (p *scanner) int() (int64, bool) {
	start := p.i
	if !p.digits() {
		return 0, false
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	return n, err == nil
}

// digits reads the digits of a JSON integer part: at least one, and no
// leading zero.
func (p *scanner) digits() bool {
	start := p.i
	p.digitRun()
	return p.i > start && (p.s[start] != '0' || p.i-start == 1)
}

// digitRun reads a run of digits, possibly empty, and reports whether it
// read any (the digits of a fraction or an exponent may start with 0).
func (p *scanner) digitRun() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// bool reads true or false.
func (p *scanner) bool() (bool, bool) {
	switch {
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, true
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, true
	}
	return false, false
}

// float reads a JSON number as encoding/json reads one into a float64.
func (p *scanner) float() (float64, bool) {
	start := p.i
	p.eat('-')
	if !p.digits() {
		return 0, false
	}
	if p.eat('.') && !p.digitRun() {
		return 0, false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.digitRun() {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	return f, err == nil
}

// object reads a JSON object: for each member, its name, then field,
// which reads the value. ok is false when field returns false.
func (p *scanner) object(field func(name string) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		name, ok := p.str()
		if !ok || !p.eat(':') || !field(name) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// array reads a JSON array whose elements elem reads; an empty array is
// an empty, non-nil slice, as encoding/json makes it.
func array[T any](p *scanner, elem func() (T, bool)) ([]T, bool) {
	if !p.eat('[') {
		return nil, false
	}
	out := []T{}
	if p.eat(']') {
		return out, true
	}
	for {
		v, ok := elem()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.eat(']') {
			return out, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}
