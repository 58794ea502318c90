package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/middleware"
)

// FuzzParseDashboards holds the -dashboards flag's parser to its rule:
// every accepted target is a dashboard whose public id matches publicIDRE,
// under a non-empty name without surrounding space, and written back as
// "name=publicId,..." the list parses to the same targets. A refused list
// is an error quoting what was wrong.
func FuzzParseDashboards(f *testing.F) {
	for _, s := range []string{
		"sales=sales-overview,ops=ops-1", "sales-overview", "sales-overview:Sales", " a = b : c ", "=x", "a=b,a=c",
		"", " , ", "a=bad id", "a=b=c", "ü=x", "a\x00=b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		targets, err := parseDashboards(s)
		if err != nil {
			if !strings.Contains(err.Error(), `"`) {
				t.Fatalf("parseDashboards(%q): error %q quotes nothing", s, err)
			}
			return
		}
		names := make([]string, 0, len(targets))
		for name, tg := range targets {
			if name == "" || name != strings.TrimSpace(name) || strings.ContainsAny(name, "=,") {
				t.Fatalf("parseDashboards(%q): target name %q", s, name)
			}
			if tg.Kind != middleware.KindDashboard || !publicIDRE.MatchString(tg.PublicID) {
				t.Fatalf("parseDashboards(%q): target %q is %+v", s, name, tg)
			}
			names = append(names, name)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + "=" + targets[n].PublicID
		}
		again, err := parseDashboards(strings.Join(parts, ","))
		if err != nil || len(again) != len(targets) {
			t.Fatalf("parseDashboards(%q) = %v, which written back parses as %v, %v", s, targets, again, err)
		}
		for n, tg := range targets {
			if again[n].Kind != tg.Kind || again[n].PublicID != tg.PublicID {
				t.Fatalf("parseDashboards(%q) = %v, which written back parses as %v", s, targets, again)
			}
		}
	})
}
