package gorillasession

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gorilla/securecookie"
)

// compactMagic starts every value CompactSerializer writes. A gob stream
// never starts with a zero byte (its first byte is a message length), so
// the two formats cannot be confused.
var compactMagic = []byte{0x00, 'e', 'k', 0x01}

// errCompactMalformed is returned for a compact value that does not parse.
// The cookie was authenticated before it was deserialized, so this means
// a bug or a key shared with another program, not an attacker.
var errCompactMalformed = errors.New("gorillasession: malformed compact session value")

// CompactSerializer is the cookie format of SecureCookieStore: a session's
// values (string keys; string, []byte, bool, int, int64 and float64
// values) in a small binary form that encodes and decodes without
// reflection. securecookie's default, encoding/gob, builds a new decoder
// and compiles type information for every cookie it reads, which was the
// largest single cost of an iframe load.
//
// It reads cookies written by encoding/gob too, so cookies issued before a
// host moved to it keep working until they are next saved (then in the
// compact form) or expire. A session holding a value of another type is
// written with encoding/gob, as before, rather than refused.
type CompactSerializer struct{}

var _ securecookie.Serializer = CompactSerializer{}

// Serialize encodes src, a session's Values.
func (CompactSerializer) Serialize(src any) ([]byte, error) {
	m, ok := src.(map[any]any)
	if !ok {
		return securecookie.GobEncoder{}.Serialize(src)
	}
	keys := make([]string, 0, len(m))
	size := len(compactMagic) + binary.MaxVarintLen64
	for k, v := range m {
		s, ok := k.(string)
		if !ok {
			return securecookie.GobEncoder{}.Serialize(src)
		}
		keys = append(keys, s)
		// Room for the key, the tag, the lengths and a number; strings
		// and bytes add their own length.
		size += len(s) + 1 + 2*binary.MaxVarintLen64
		switch v := v.(type) {
		case string:
			size += len(v)
		case []byte:
			size += len(v)
		}
	}
	slices.Sort(keys)
	b := make([]byte, 0, size)
	b = append(b, compactMagic...)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendBytes(b, k)
		switch v := m[k].(type) {
		case string:
			b = appendBytes(append(b, 's'), v)
		case []byte:
			b = appendBytes(append(b, 'y'), v)
		case bool:
			if v {
				b = append(b, 't')
			} else {
				b = append(b, 'f')
			}
		case int:
			b = binary.AppendVarint(append(b, 'i'), int64(v))
		case int64:
			b = binary.AppendVarint(append(b, 'l'), v)
		case float64:
			b = binary.BigEndian.AppendUint64(append(b, 'd'), math.Float64bits(v))
		default:
			return securecookie.GobEncoder{}.Serialize(src)
		}
	}
	return b, nil
}

// Deserialize decodes src into dst, a *map[any]any (a session's Values),
// from the compact form or, for an older cookie, from encoding/gob.
func (CompactSerializer) Deserialize(src []byte, dst any) error {
	if !bytes.HasPrefix(src, compactMagic) {
		return securecookie.GobEncoder{}.Deserialize(src, dst)
	}
	p, ok := dst.(*map[any]any)
	if !ok {
		return fmt.Errorf("gorillasession: compact session values decode into *map[any]any, not %T", dst)
	}
	src = src[len(compactMagic):]
	n, src, ok := uvarint(src)
	if !ok || n > uint64(len(src)) {
		return errCompactMalformed
	}
	if *p == nil {
		*p = make(map[any]any, n)
	}
	m := *p
	for range n {
		var k []byte
		if k, src, ok = bytesField(src); !ok || len(src) == 0 {
			return errCompactMalformed
		}
		tag := src[0]
		src = src[1:]
		var v any
		switch tag {
		case 's', 'y':
			var raw []byte
			if raw, src, ok = bytesField(src); !ok {
				return errCompactMalformed
			}
			if tag == 's' {
				v = string(raw)
			} else {
				v = bytes.Clone(raw)
			}
		case 't', 'f':
			v = tag == 't'
		case 'i', 'l':
			x, w := binary.Varint(src)
			if w <= 0 {
				return errCompactMalformed
			}
			src = src[w:]
			if tag == 'i' {
				if int64(int(x)) != x {
					return errCompactMalformed
				}
				v = int(x)
			} else {
				v = x
			}
		case 'd':
			if len(src) < 8 {
				return errCompactMalformed
			}
			v = math.Float64frombits(binary.BigEndian.Uint64(src))
			src = src[8:]
		default:
			return errCompactMalformed
		}
		m[string(k)] = v
	}
	if len(src) != 0 {
		return errCompactMalformed
	}
	return nil
}

// appendBytes appends s with its length.
func appendBytes[T string | []byte](b []byte, s T) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// uvarint reads a length.
func uvarint(b []byte) (uint64, []byte, bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 {
		return 0, nil, false
	}
	return n, b[w:], true
}

// bytesField reads a length and that many bytes.
func bytesField(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := uvarint(b)
	if !ok || n > uint64(len(rest)) {
		return nil, nil, false
	}
	return rest[:n], rest[n:], true
}
