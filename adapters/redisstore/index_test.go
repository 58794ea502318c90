package redisstore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// keySlot is the Redis Cluster hash slot of a key name: CRC16 (XMODEM)
// of its hash tag, or of the whole name when it has none, modulo 16384.
func keySlot(key string) uint16 {
	if tag, ok := hashTag(key); ok {
		key = tag
	}
	var crc uint16
	for i := range len(key) {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}

func TestKeySlot(t *testing.T) {
	// Values from the Redis Cluster specification and CLUSTER KEYSLOT.
	for key, want := range map[string]uint16{
		"123456789":            0x31c3,
		"foo":                  12182,
		"{user1000}.following": keySlot("user1000"),
	} {
		if got := keySlot(key); got != want {
			t.Errorf("keySlot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestHashTag(t *testing.T) {
	tests := []struct {
		key  string
		tag  string
		want bool
	}{
		{"embedkit:k:abc", "", false},
		{"{app}:k:abc", "app", true},
		{"x:{tenant}:k:{abc}", "tenant", true},
		{"{}:k:abc", "", false},
		{"a{b:k:abc", "", false},
		{"a}b{c}", "c", true},
	}
	for _, tt := range tests {
		tag, ok := hashTag(tt.key)
		if ok != tt.want || (ok && tag != tt.tag) {
			t.Errorf("hashTag(%q) = %q, %v; want %q, %v", tt.key, tag, ok, tt.tag, tt.want)
		}
	}
}

// TestExpiryKeyBesideItsRecords checks, for prefixes with and without a
// hash tag, that a records hash and its expiry index lie in the same
// Redis Cluster slot (a script that touches both fails in Cluster
// otherwise) and that both start with the prefix.
func TestExpiryKeyBesideItsRecords(t *testing.T) {
	for _, prefix := range []string{DefaultPrefix, "app:", "{app}:", "app:{tenant}:", "a:b:c:"} {
		t.Run(prefix, func(t *testing.T) {
			s := New(nil, WithPrefix(prefix))
			for _, key := range []string{"k", "s:host-session", "{braces}"} {
				rk := s.recordsKey(digest(key))
				xk := s.expiryKey(rk)
				if xk == rk {
					t.Fatalf("expiry index and records share the name %q", rk)
				}
				if !strings.HasPrefix(xk, prefix) {
					t.Errorf("expiry index %q does not start with the prefix %q", xk, prefix)
				}
				if a, b := keySlot(rk), keySlot(xk); a != b {
					t.Errorf("records %q in slot %d, expiry index %q in slot %d", rk, a, xk, b)
				}
			}
		})
	}
}

// TestExpiryIndex covers the expiry index's life: it is built when a key
// grows large, also from a hash an earlier version of the store wrote
// without it; an indexed id the hash no longer holds is passed over; and
// it goes when the key is small again.
func TestExpiryIndex(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		type rec struct {
			id string
			h  int // expiry, in hours from now
		}
		tests := []struct {
			name      string
			indexFrom int
			max       int
			hash      []rec // written straight into the records hash
			index     []rec // written straight into the expiry index
			add       rec
			wantKept  []string
			wantLeft  []string
			indexed   bool     // whether the key has an index after the Add
			wantIndex []string // what it indexes then, when not wantKept
		}{
			{
				name:      "a key growing large gets an index",
				indexFrom: 3, max: 10,
				hash:     []rec{{"a", 1}, {"b", 2}, {"c", 3}},
				add:      rec{"d", 4},
				wantKept: []string{"a", "b", "c", "d"},
				indexed:  true,
			},
			{
				name:      "a large hash written without an index gets one and lets the first to expire go",
				indexFrom: 3, max: 4,
				hash:     []rec{{"b", 2}, {"a", 1}, {"d", 4}, {"c", 3}},
				add:      rec{"e", 5},
				wantKept: []string{"b", "c", "d", "e"},
				wantLeft: []string{"a"},
				indexed:  true,
			},
			{
				name:      "an indexed id the hash no longer holds is passed over",
				indexFrom: 2, max: 3,
				hash:     []rec{{"a", 2}, {"b", 3}, {"c", 4}},
				index:    []rec{{"gone", 1}, {"a", 2}, {"b", 3}},
				add:      rec{"d", 5},
				wantKept: []string{"b", "c", "d"},
				wantLeft: []string{"a"},
				indexed:  true,
				// c, which the index missed, is indexed again by the next
				// Add: the index is then one id short of the hash.
				wantIndex: []string{"b", "d"},
			},
			{
				name:      "a key small again loses its index",
				indexFrom: 4, max: 10,
				hash:     []rec{{"a", 1}, {"b", 2}},
				index:    []rec{{"a", 1}, {"b", 2}},
				add:      rec{"c", 3},
				wantKept: []string{"a", "b", "c"},
				indexed:  false,
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, c, clock, _ := newTestStore(t, srv, WithMaxPerKey(tt.max))
				s.indexFrom = tt.indexFrom
				now := clock.Now()
				at := func(h int) time.Time { return now.Add(time.Duration(h) * time.Hour) }
				rk := s.recordsKey(digest("k"))
				xk := s.expiryKey(rk)
				for _, r := range tt.hash {
					v := strconv.FormatInt(at(r.h).UnixMilli(), 10) + " alice"
					if err := c.HSet(ctx, rk, r.id, v).Err(); err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range tt.index {
					if err := c.ZAdd(ctx, xk, redis.Z{Score: float64(at(r.h).UnixMilli()), Member: r.id}).Err(); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Add(ctx, "k", minted(tt.add.id, "alice", at(tt.add.h))); err != nil {
					t.Fatal(err)
				}
				n, err := c.Exists(ctx, xk).Result()
				if err != nil {
					t.Fatal(err)
				}
				if indexed := n == 1; indexed != tt.indexed {
					t.Errorf("key has an expiry index: %v, want %v", indexed, tt.indexed)
				}
				if tt.indexed {
					members, err := c.ZRange(ctx, xk, 0, -1).Result()
					if err != nil {
						t.Fatal(err)
					}
					slices.Sort(members)
					want := tt.wantIndex
					if want == nil {
						want = tt.wantKept
					}
					if !slices.Equal(members, want) {
						t.Errorf("expiry index holds %v, want %v", members, want)
					}
				}
				if left := dueIDs(t, s); !slices.Equal(left, tt.wantLeft) {
					t.Errorf("pushed out to the revoke queue: %v, want %v", left, tt.wantLeft)
				}
				got, err := s.Take(ctx, "k")
				if err != nil {
					t.Fatal(err)
				}
				if g := ids(got); !slices.Equal(g, tt.wantKept) {
					t.Errorf("Take = %v, want %v", g, tt.wantKept)
				}
				if n, err := c.Exists(ctx, rk, xk).Result(); err != nil || n != 0 {
					t.Errorf("after Take, %d of the records hash and its index are left (%v)", n, err)
				}
			})
		}
	})
}

// dueIDs takes every record queued in s and returns their session ids,
// sorted.
func dueIDs(t *testing.T, s *Store) []string {
	t.Helper()
	due, err := s.Due(t.Context(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(due))
	for _, d := range due {
		ids = append(ids, d.SessionID)
	}
	slices.Sort(ids)
	return ids
}

// TestFullKeyAtEveryBound fills a key to its bound and adds past it, in
// mint order and against it, on either side of indexFrom, and checks that
// the records that expire first are the ones that leave.
func TestFullKeyAtEveryBound(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		for _, bound := range []int{1, 2, 15, 16, 17, 40} {
			for _, reverse := range []bool{false, true} {
				t.Run(fmt.Sprintf("bound=%d/reverse=%v", bound, reverse), func(t *testing.T) {
					s, _, clock, _ := newTestStore(t, srv, WithMaxPerKey(bound))
					now := clock.Now()
					const adds = 50
					for i := range adds {
						h := i + 1
						if reverse {
							h = adds - i
						}
						if err := s.Add(ctx, "k", minted(fmt.Sprintf("id-%02d", h), "alice", now.Add(time.Duration(h)*time.Minute))); err != nil {
							t.Fatal(err)
						}
					}
					// Either way the records that expire last, as many as the
					// bound, stay: in mint order each Add pushes the oldest
					// out, against it each new record expires first and is
					// itself the one that leaves.
					var want, wantLeft []string
					for h := 1; h <= adds; h++ {
						if h > adds-bound {
							want = append(want, fmt.Sprintf("id-%02d", h))
						} else {
							wantLeft = append(wantLeft, fmt.Sprintf("id-%02d", h))
						}
					}
					if left := dueIDs(t, s); !slices.Equal(left, wantLeft) {
						t.Errorf("pushed out %v, want %v", left, wantLeft)
					}
					got, err := s.Take(ctx, "k")
					if err != nil {
						t.Fatal(err)
					}
					if g := ids(got); !slices.Equal(g, want) {
						t.Errorf("Take = %v, want %v", g, want)
					}
				})
			}
		}
	})
}

// TestTakeSubjectKeepsTheIndex checks that TakeSubject removes the ids it
// takes from the expiry index too, and that the index then expires with
// the key's last record.
func TestTakeSubjectKeepsTheIndex(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := t.Context()
		s, c, clock, _ := newTestStore(t, srv)
		s.indexFrom = 0
		now := clock.Now()
		bobs := now.Add(2 * time.Hour)
		for _, m := range []struct {
			id, subject string
			exp         time.Time
		}{{"a1", "alice", now.Add(time.Hour)}, {"b1", "bob", bobs}, {"a2", "alice", now.Add(3 * time.Hour)}} {
			if err := s.Add(ctx, "k", minted(m.id, m.subject, m.exp)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.TakeSubject(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		xk := s.expiryKey(s.recordsKey(digest("k")))
		members, err := c.ZRange(ctx, xk, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(members, []string{"b1"}) {
			t.Errorf("expiry index after TakeSubject(alice) holds %v, want [b1]", members)
		}
		at, err := c.PExpireTime(ctx, xk).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := time.UnixMilli(int64(at / time.Millisecond)); !got.Equal(bobs) {
			t.Errorf("expiry index expires at %v, want %v", got, bobs)
		}
	})
}
