package emulator

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzPagination checks the emulator's paging of lists of n items for any
// query: offset and limit give a page within the list (0 <= lo <= hi <= n,
// at most limit items, starting at offset or at the end) or a 400, never a
// panic; first is 1 to 100; and a cursor the emulator issued decodes to
// the key it was issued for, while any other string decodes to a
// non-negative key or is refused.
func FuzzPagination(f *testing.F) {
	f.Add("0", "20", "20", "", 3, 7)
	f.Add("1", "9223372036854775807", "100", "a2V5OjE", 3, 0)
	f.Add("9223372036854775807", "9223372036854775807", "101", "a2V5Oi0x", 0, 9223372036854775807)
	f.Add("-1", "1.5", "0", "!!", 10, -1)
	f.Add("", "", "", "a2V5OjAwNw", 1000, 1)
	s, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, offset, limit, first, after string, n, key int) {
		n = max(0, min(n, 1000))
		q := url.Values{"offset": {offset}, "limit": {limit}, "first": {first}, "after": {after}}
		r := httptest.NewRequest(http.MethodGet, "/?"+q.Encode(), nil)

		w := httptest.NewRecorder()
		if o, l, ok := s.parseOffsetLimit(w, r); ok {
			lo, hi := window(n, o, l)
			if o < 0 || l < 0 || lo < 0 || lo > hi || hi > n || hi-lo > l || lo != min(o, n) {
				t.Fatalf("offset %d, limit %d of %d items: page [%d, %d)", o, l, n, lo, hi)
			}
		} else if w.Code != http.StatusBadRequest {
			t.Fatalf("offset %q, limit %q refused with %d, want 400", offset, limit, w.Code)
		}

		w = httptest.NewRecorder()
		if fst, aft, ok := s.parseFirstAfter(w, r); ok {
			if fst < 1 || fst > maxFirst || aft < -1 {
				t.Fatalf("first %q, after %q: first %d, after %d", first, after, fst, aft)
			}
		} else if w.Code != http.StatusBadRequest {
			t.Fatalf("first %q, after %q refused with %d, want 400", first, after, w.Code)
		}

		if k, ok := decodeCursor(after); ok && k < 0 {
			t.Fatalf("cursor %q decodes to %d", after, k)
		}
		if key >= 0 {
			if k, ok := decodeCursor(encodeCursor(key)); !ok || k != key {
				t.Fatalf("the cursor issued for %d decodes to %d, %v", key, k, ok)
			}
		}
	})
}
