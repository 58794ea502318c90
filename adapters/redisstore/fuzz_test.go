package redisstore

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseRecord checks the decoders of what the store reads back from
// Redis (parseRecord, parseQueued, parsePairs): no input makes them
// panic, a value they accept encodes back to itself, and every value the
// store writes, "<expiry in Unix ms> <subject>" with any subject (spaces
// included), decodes to the expiry and subject written.
func FuzzParseRecord(f *testing.F) {
	f.Add("sid-1", "1767225600000 alice", "1767225600000", int64(1767225600000), "alice", 2)
	f.Add("sid-2", "1767225600000 2 bob smith", "1.7672256e+12", int64(-1), "bob smith", 0)
	f.Add("", "", "", int64(0), "", -1)
	f.Add("x", "12", "nan", int64(9223372036854775807), " ", 1)
	f.Add("x", "-0 ", "-1e300", int64(-9223372036854775808), "\x00é", 7)
	f.Fuzz(func(t *testing.T, id, v, due string, exp int64, subject string, attempts int) {
		if m, err := parseRecord(id, v); err == nil {
			if m.SessionID != id {
				t.Fatalf("parseRecord(%q, %q) has session id %q", id, v, m.SessionID)
			}
			again, err := parseRecord(id, strconv.FormatInt(m.ExpiresAt.UnixMilli(), 10)+" "+m.Subject)
			if err != nil || again != m {
				t.Fatalf("parseRecord(%q, %q) = %+v, which encodes to one that decodes to %+v, %v", id, v, m, again, err)
			}
			if _, rest, _ := strings.Cut(v, " "); m.Subject != rest {
				t.Fatalf("parseRecord(%q, %q): subject %q, want %q", id, v, m.Subject, rest)
			}
			ms, err := parsePairs([]string{id, v})
			if err != nil || len(ms) != 1 || ms[0] != m {
				t.Fatalf("parsePairs of the pair parseRecord takes: %+v, %v", ms, err)
			}
		} else if _, err := parsePairs([]string{id, v}); err == nil {
			t.Fatalf("parsePairs took the pair (%q, %q) parseRecord refuses", id, v)
		}
		written := strconv.FormatInt(exp, 10) + " " + subject
		m, err := parseRecord(id, written)
		if err != nil || m.Subject != subject || m.ExpiresAt.UnixMilli() != exp || m.SessionID != id {
			t.Fatalf("the store's own value %q decodes to %+v, %v", written, m, err)
		}
		if d, err := parseQueued(id, v, due); err == nil {
			again, err := parseQueued(id, strconv.FormatInt(d.ExpiresAt.UnixMilli(), 10)+" "+strconv.Itoa(d.Attempts)+" "+d.Subject,
				strconv.FormatInt(d.Due.UnixMilli(), 10))
			if err != nil || again != d {
				t.Fatalf("parseQueued(%q, %q, %q) = %+v, which encodes to one that decodes to %+v, %v", id, v, due, d, again, err)
			}
		}
		queued := strconv.FormatInt(exp, 10) + " " + strconv.Itoa(attempts) + " " + subject
		d, err := parseQueued(id, queued, strconv.FormatInt(exp, 10))
		if err != nil || d.Subject != subject || d.Attempts != attempts || d.ExpiresAt.UnixMilli() != exp {
			t.Fatalf("the store's own queue entry %q decodes to %+v, %v", queued, d, err)
		}
	})
}
