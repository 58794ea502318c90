package emulator

import (
	"encoding/base64"
	"net/http"
	"strconv"
)

// Pagination, as the specification's Limits part has it.
//
// Offset style (deployment and environment lists): query offset (default
// 0) and limit (default 20), both non-negative integers; the response
// carries pagination {offset, limit, total}. limit=0 returns no items and
// the total.
//
// Cursor style (embed-tenant groups): query first (1 to 100, default 20)
// and after (the endCursor of the previous page); the response carries
// items and pageInfo {startCursor, endCursor, hasNextPage,
// hasPreviousPage}, plus the deprecated data, count and pagination fields.
// A cursor is opaque; one the emulator did not issue gives 400. The
// specification gives first no default, and states the cap of 100 for
// transform-sync history only: default 20 and cap 100 for embed-tenant
// groups are the emulator's own choice (docs/emulator.md says so).

const (
	defaultLimit = 20
	maxFirst     = 100
)

type offsetPage struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  int `json:"total"`
}

// parseOffsetLimit reads offset and limit, writing a 400 when malformed.
func (s *Server) parseOffsetLimit(w http.ResponseWriter, r *http.Request) (offset, limit int, ok bool) {
	offset, limit = 0, defaultLimit
	q := r.URL.Query()
	for _, f := range []struct {
		name string
		dst  *int
	}{{"offset", &offset}, {"limit", &limit}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.writeError(w, http.StatusBadRequest, f.name+": must be a non-negative integer")
			return 0, 0, false
		}
		*f.dst = n
	}
	return offset, limit, true
}

// window returns the bounds of the offset page within n items. offset
// and limit are non-negative, and may be as large as an int holds: lo+limit
// is never computed, since it could overflow.
func window(n, offset, limit int) (lo, hi int) {
	lo = min(offset, n)
	hi = lo + min(limit, n-lo)
	return lo, hi
}

type pageInfo struct {
	StartCursor     *string `json:"startCursor"`
	EndCursor       *string `json:"endCursor"`
	HasNextPage     bool    `json:"hasNextPage"`
	HasPreviousPage bool    `json:"hasPreviousPage"`
}

// parseFirstAfter reads first and after; after is decoded to the key of
// the last item already seen (-1 when absent). Lists are ordered by key.
func (s *Server) parseFirstAfter(w http.ResponseWriter, r *http.Request) (first, after int, ok bool) {
	first, after = defaultLimit, -1
	q := r.URL.Query()
	if v := q.Get("first"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.writeError(w, http.StatusBadRequest, "first: must be a positive integer")
			return 0, 0, false
		}
		first = min(n, maxFirst)
	}
	if v := q.Get("after"); v != "" {
		pos, okc := decodeCursor(v)
		if !okc {
			s.writeError(w, http.StatusBadRequest, "after: not a cursor issued by this list")
			return 0, 0, false
		}
		after = pos
	}
	return first, after, true
}

func encodeCursor(pos int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("key:" + strconv.Itoa(pos)))
}

func decodeCursor(c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 5 || string(b[:4]) != "key:" {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[4:]))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// cursorPage builds the cursor-style page info of a page whose first and
// last items have the given keys (the page may be empty).
func cursorPage(keys []int, hasNext, hasPrev bool) pageInfo {
	pi := pageInfo{HasNextPage: hasNext, HasPreviousPage: hasPrev}
	if len(keys) > 0 {
		sc, ec := encodeCursor(keys[0]), encodeCursor(keys[len(keys)-1])
		pi.StartCursor, pi.EndCursor = &sc, &ec
	}
	return pi
}
