package memstore

import (
	"encoding/binary"
	"iter"
	"strings"
	"time"
	"unsafe"

	"github.com/embedkit/embedkit/middleware"
)

// rec is one record while the store works on a key. Its strings are
// slices of the key's encoded value, so decoding allocates nothing.
type rec struct {
	id      string
	subject string
	exp     int64 // ExpiresAt in Unix nanoseconds
}

func (r rec) minted() middleware.Minted {
	return middleware.Minted{SessionID: r.id, Subject: r.subject, ExpiresAt: time.Unix(0, r.exp)}
}

// The records of a key are kept as one immutable string, which is the
// smallest thing a cache entry can hold: per record, the expiry as 8 bytes
// big-endian Unix nanoseconds, then the session id and the subject, each
// preceded by its length as a uvarint. A string rather than a slice of
// structs saves two string headers and two allocations per record.

// encode returns the encoding of recs.
func encode(recs []rec) string {
	n := 0
	for _, r := range recs {
		n += r.encodedLen()
	}
	var b strings.Builder
	b.Grow(n)
	for _, r := range recs {
		r.appendTo(&b)
	}
	return b.String()
}

// encodedLen is the length of r's encoding.
func (r rec) encodedLen() int {
	return 8 + uvarintLen(len(r.id)) + len(r.id) + uvarintLen(len(r.subject)) + len(r.subject)
}

// append appends r's encoding to b.
func (r rec) append(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(r.exp))
	b = binary.AppendUvarint(b, uint64(len(r.id)))
	b = append(b, r.id...)
	b = binary.AppendUvarint(b, uint64(len(r.subject)))
	return append(b, r.subject...)
}

// appendTo writes r's encoding to b.
func (r rec) appendTo(b *strings.Builder) {
	var buf [binary.MaxVarintLen64]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(r.exp))
	b.Write(buf[:8])
	b.Write(binary.AppendUvarint(buf[:0], uint64(len(r.id))))
	b.WriteString(r.id)
	b.Write(binary.AppendUvarint(buf[:0], uint64(len(r.subject))))
	b.WriteString(r.subject)
}

// A key's value in the cache is the encoding of its records: a string, or
// a []byte with room to grow (see next).

// view returns the encoding a cache value holds, without copying it. A
// []byte value is read through a string: its bytes are never written
// again once the value is in the cache.
func view(v any) string {
	if b, ok := v.([]byte); ok {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return v.(string)
}

// grows returns the buffer of a []byte cache value, nil for a string.
func grows(v any) []byte {
	b, _ := v.([]byte)
	return b
}

// span is the byte range a record's encoding takes in a value, with the
// record's expiry: all Add needs to keep, drop or evict a record without
// decoding it again.
type span struct {
	exp        int64
	start, end int
}

// rec decodes the record sp spans in v.
func (sp span) rec(v string) rec {
	r, _ := nextRecord(v, sp.start)
	return r
}

// nextRecord decodes the record at offset off of the encoded value v and
// returns it with the offset of the next one. The usual record, whose id
// and subject have one-byte lengths, is read here in one step, any other
// by nextRecordLong.
func nextRecord(v string, off int) (rec, int) {
	rest := v[off:]
	if n := int(rest[8]); n < 0x80 {
		if m := int(rest[9+n]); m < 0x80 {
			return rec{exp: be64(rest), id: rest[9 : 9+n], subject: rest[10+n : 10+n+m]}, off + 10 + n + m
		}
	}
	return nextRecordLong(v, off)
}

// nextRecordLong is nextRecord for any record.
func nextRecordLong(v string, off int) (rec, int) {
	var r rec
	rest := v[off:]
	r.exp = be64(rest)
	r.id, rest = lenPrefixed(rest[8:])
	r.subject, rest = lenPrefixed(rest)
	return r, len(v) - len(rest)
}

// records yields the records of an encoded value, in the order they were
// encoded. The value is written only by encode, so it is well formed.
func records(v string) iter.Seq[rec] {
	return func(yield func(rec) bool) {
		for off := 0; off < len(v); {
			r, end := nextRecord(v, off)
			if !yield(r) {
				return
			}
			off = end
		}
	}
}

// lenPrefixed splits a uvarint-length-prefixed string off the front of v.
func lenPrefixed(v string) (s, rest string) {
	var n uint64
	var shift uint
	i := 0
	for {
		c := v[i]
		i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	end := i + int(n)
	return v[i:end], v[end:]
}

// be64 reads the 8-byte big-endian integer at the front of v.
func be64(v string) int64 {
	_ = v[7]
	return int64(uint64(v[0])<<56 | uint64(v[1])<<48 | uint64(v[2])<<40 | uint64(v[3])<<32 |
		uint64(v[4])<<24 | uint64(v[5])<<16 | uint64(v[6])<<8 | uint64(v[7]))
}

func uvarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}
