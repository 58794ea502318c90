package emulator

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

func regionsOf(rows []sampleRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Region) {
			out = append(out, r.Region)
		}
	}
	return out
}

func TestSampleRowsFiltering(t *testing.T) {
	groups := func(g ...any) map[string]any {
		return map[string]any{"platformCloud": map[string]any{"groups": g}}
	}
	all := []string{"EMEA", "AMER", "APAC"}
	tests := []struct {
		name  string
		sc    map[string]any
		attrs map[string]any
		want  []string
	}{
		{"no restriction", nil, nil, all},
		{"empty maps", map[string]any{}, map[string]any{}, all},
		{"attribute region", nil, map[string]any{"region": "EMEA"}, []string{"EMEA"}},
		{"attribute region case-insensitive", nil, map[string]any{"region": "apac"}, []string{"APAC"}},
		{"security context region", map[string]any{"region": " Amer "}, nil, []string{"AMER"}},
		{"both agree", map[string]any{"region": "emea"}, map[string]any{"region": "EMEA"}, []string{"EMEA"}},
		{"both differ: nothing", map[string]any{"region": "AMER"}, map[string]any{"region": "EMEA"}, nil},
		{"region array", nil, map[string]any{"region": []any{"emea", "apac"}}, []string{"EMEA", "APAC"}},
		{"region string slice", map[string]any{"region": []string{"AMER"}}, nil, []string{"AMER"}},
		{"unknown region fails closed", nil, map[string]any{"region": "LATAM"}, nil},
		{"non-string region fails closed", nil, map[string]any{"region": 7}, nil},
		{"null region is no restriction", map[string]any{"region": nil}, nil, all},
		{"null attribute, context region", map[string]any{"region": "amer"}, map[string]any{"region": nil}, []string{"AMER"}},
		{"region outranks groups", map[string]any{"region": "APAC", "platformCloud": map[string]any{"groups": []any{"emea"}}}, nil, []string{"APAC"}},
		{"one region group", groups("sales", "emea"), nil, []string{"EMEA"}},
		{"two region groups", groups("AMER", "apac"), nil, []string{"AMER", "APAC"}},
		{"groups as string slice", map[string]any{"platformCloud": map[string]any{"groups": []string{"apac"}}}, nil, []string{"APAC"}},
		{"groups without a region", groups("sales", "analysts"), nil, all},
		{"groups of the wrong type", map[string]any{"platformCloud": map[string]any{"groups": "emea"}}, nil, []string{"EMEA"}},
		{"platformCloud not an object", map[string]any{"platformCloud": "emea"}, nil, all},
		{"non-string group ignored", groups(1, true, "amer"), nil, []string{"AMER"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := sampleRowsFor("sales-overview", tt.sc, tt.attrs)
			if got := regionsOf(rows); !slices.Equal(got, tt.want) {
				t.Fatalf("regions = %v, want %v", got, tt.want)
			}
			if tt.want != nil && len(rows) != sampleMonths*len(tt.want) {
				t.Errorf("%d rows, want %d", len(rows), sampleMonths*len(tt.want))
			}
		})
	}
}

func TestSampleRowsDeterministic(t *testing.T) {
	a := sampleRowsFor("sales-overview", nil, nil)
	b := sampleRowsFor("sales-overview", nil, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls differ")
	}
	if reflect.DeepEqual(a, sampleRowsFor("regional-performance", nil, nil)) {
		t.Error("two dashboards have the same rows")
	}
	// A filtered view shows exactly the full view's rows of that region.
	var emea []sampleRow
	for _, r := range a {
		if r.Region == "EMEA" {
			emea = append(emea, r)
		}
	}
	if got := sampleRowsFor("sales-overview", nil, map[string]any{"region": "emea"}); !reflect.DeepEqual(got, emea) {
		t.Errorf("filtered rows differ from the full view:\n got %v\nwant %v", got, emea)
	}
}

func TestSampleRowsShape(t *testing.T) {
	rows := sampleRowsFor("", nil, nil)
	if len(rows) != 18 {
		t.Fatalf("%d rows, want 18", len(rows))
	}
	fractional := false
	for i, r := range rows {
		m, err := time.Parse(time.DateOnly, r.Month)
		if err != nil || m.Day() != 1 || m.Year() != 2025 {
			t.Errorf("row %d: month %q", i, r.Month)
		}
		if r.Revenue < 8000 || r.Revenue >= 30000 || r.Orders <= 0 {
			t.Errorf("row %d: revenue %v orders %d", i, r.Revenue, r.Orders)
		}
		if r.Revenue != float64(int64(r.Revenue*100+0.5))/100 {
			t.Errorf("row %d: revenue %v has more than two decimals", i, r.Revenue)
		}
		if r.Revenue != float64(int64(r.Revenue)) {
			fractional = true
		}
		// Updated late on the month's last day, UTC: the next day east of it.
		if u := r.UpdatedAt; u.Month() != m.Month() || !u.AddDate(0, 0, 1).After(m.AddDate(0, 1, 0)) {
			t.Errorf("row %d: updatedAt %v for month %v", i, u, m)
		}
	}
	if !fractional {
		t.Error("no revenue has cents; locale formatting would not show")
	}
	b, err := json.Marshal(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal(b, &fields)
	for _, k := range []string{"region", "month", "revenue", "orders", "updatedAt"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON row lacks %q: %s", k, b)
		}
	}
}

// TestSampleRowsScopedToAProject: a project in the security context (a host
// scoping an embed by its route) gives that project's own figures, marked
// with the project, and row-level security still applies.
func TestSampleRowsScopedToAProject(t *testing.T) {
	plain := sampleRowsFor("sales-overview", nil, map[string]any{"region": "EMEA"})
	a := sampleRowsFor("sales-overview", map[string]any{"project": "alpha"}, map[string]any{"region": "EMEA"})
	b := sampleRowsFor("sales-overview", map[string]any{"project": "beta"}, map[string]any{"region": "EMEA"})
	if len(a) != len(plain) || len(b) != len(plain) {
		t.Fatalf("%d and %d rows, want %d like the unscoped view", len(a), len(b), len(plain))
	}
	for i := range a {
		if a[i].Project != "alpha" || b[i].Project != "beta" || plain[i].Project != "" {
			t.Fatalf("row %d projects %q %q %q", i, a[i].Project, b[i].Project, plain[i].Project)
		}
		if a[i].Region != "EMEA" || b[i].Region != "EMEA" {
			t.Fatalf("row %d leaks region %s/%s", i, a[i].Region, b[i].Region)
		}
	}
	if a[0].Revenue == b[0].Revenue && a[1].Revenue == b[1].Revenue {
		t.Error("two projects show the same figures")
	}
	if again := sampleRowsFor("sales-overview", map[string]any{"project": "alpha"}, map[string]any{"region": "EMEA"}); again[0] != a[0] {
		t.Error("a project's figures change between calls")
	}
}
