package webapp

import (
	"strings"
	"testing"

	"github.com/embedkit/embedkit/middleware"
)

// FuzzParseDashboards holds the -dashboards flag's parser to its rule: an
// accepted list has 1 to maxDashboards entries, each with a public id
// matching middleware.PublicIDPattern, listed once, and a title of at most
// maxDashboardName bytes, never empty; written back as "id:title,..." it
// parses to the same list. A refused list is an error naming the entry or
// the limit.
func FuzzParseDashboards(f *testing.F) {
	for _, s := range []string{
		"sales-overview:Sales,ops:Operations", "sales-overview", " a : b : c ", "a,,b", "a,a",
		"", ",", "bad id:x", "a:" + strings.Repeat("x", 201), strings.Repeat("a,", 100) + "b", "a:\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ds, err := ParseDashboards(s)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "entry ") && !strings.HasPrefix(msg, "more than ") {
				t.Fatalf("ParseDashboards(%q): error %q names no entry", s, msg)
			}
			return
		}
		if len(ds) == 0 || len(ds) > maxDashboards {
			t.Fatalf("ParseDashboards(%q) gave %d dashboards", s, len(ds))
		}
		seen := map[string]bool{}
		parts := make([]string, len(ds))
		for i, d := range ds {
			if !middleware.PublicIDPattern.MatchString(d.PublicID) || seen[d.PublicID] {
				t.Fatalf("ParseDashboards(%q): public id %q is invalid or listed twice", s, d.PublicID)
			}
			seen[d.PublicID] = true
			if d.Title == "" || len(d.Title) > maxDashboardName || d.Title != strings.TrimSpace(d.Title) {
				t.Fatalf("ParseDashboards(%q): title %q", s, d.Title)
			}
			parts[i] = d.PublicID + ":" + d.Title
		}
		again, err := ParseDashboards(strings.Join(parts, ","))
		if err != nil || len(again) != len(ds) {
			t.Fatalf("ParseDashboards(%q) = %+v, which written back parses as %+v, %v", s, ds, again, err)
		}
		for i := range ds {
			if again[i].PublicID != ds[i].PublicID || again[i].Title != ds[i].Title {
				t.Fatalf("ParseDashboards(%q) = %+v, which written back parses as %+v", s, ds, again)
			}
		}
	})
}
