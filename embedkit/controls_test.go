package embedkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestDashboardControlsAddTo(t *testing.T) {
	tests := []struct {
		name string
		c    DashboardControls
		want url.Values
	}{
		{"none", DashboardControls{}, url.Values{}},
		{"string filter", DashboardControls{Filters: []DashboardFilter{{Member: "orders.status", Value: "completed"}}},
			url.Values{"f_orders.status": {`{"value":"completed"}`}}},
		{"explicit equals", DashboardControls{Filters: []DashboardFilter{{Member: "orders.status", Operator: "equals", Value: "a"}}},
			url.Values{"f_orders.status": {`{"value":"a"}`}}},
		{"list, number, bool", DashboardControls{Filters: []DashboardFilter{
			{Member: "sales.region", Value: []string{"EMEA", "APAC"}},
			{Member: "sales.year", Value: 2025},
			{Member: "sales.open", Value: true},
		}}, url.Values{
			"f_sales.region": {`{"value":["EMEA","APAC"]}`},
			"f_sales.year":   {`{"value":2025}`},
			"f_sales.open":   {`{"value":true}`},
		}},
		{"characters the URL must escape", DashboardControls{Filters: []DashboardFilter{{Member: "c.name", Value: `a&b=c+d%e "q" ü`}}},
			url.Values{"f_c.name": {`{"value":"a\u0026b=c+d%e \"q\" ü"}`}}},
		{"grain and switcher", DashboardControls{
			TimeGrains:      []DashboardTimeGrain{{Member: "orders.created_at", Grain: "week"}},
			MemberSwitchers: []DashboardMemberSwitcher{{Member: "orders.count", Selected: "orders.total"}},
		}, url.Values{"tg_orders.created_at": {"week"}, "ms_orders.count": {"orders.total"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{}
			if err := tt.c.AddTo(q); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(q, tt.want) {
				t.Errorf("got %v, want %v", q, tt.want)
			}
			// What a browser decodes from the encoded query is what was set.
			back, err := url.ParseQuery(q.Encode())
			if err != nil || !reflect.DeepEqual(back, tt.want) {
				t.Errorf("round trip through the URL: %v (%v)", back, err)
			}
		})
	}
}

func TestDashboardControlsValidate(t *testing.T) {
	tests := []struct {
		name  string
		c     DashboardControls
		field string
		rule  string
	}{
		{"member without a view", DashboardControls{Filters: []DashboardFilter{{Member: "status", Value: "x"}}}, "filters[0].member", ruleMember},
		{"no member", DashboardControls{Filters: []DashboardFilter{{Value: "x"}}}, "filters[0].member", ruleRequired},
		{"no value", DashboardControls{Filters: []DashboardFilter{{Member: "a.b"}}}, "filters[0].value", ruleURLValue},
		{"operator the URL cannot carry", DashboardControls{Filters: []DashboardFilter{{Member: "a.b", Operator: "contains", Value: "x"}}}, "filters[0].operator", ruleURLOperator},
		{"unknown operator", DashboardControls{Filters: []DashboardFilter{{Member: "a.b", Operator: "like", Value: "x"}}}, "filters[0].operator", ruleFilterOp},
		{"value JSON cannot hold", DashboardControls{Filters: []DashboardFilter{{Member: "a.b", Value: math.NaN()}}}, "filters[0].value", ""},
		{"value too long", DashboardControls{Filters: []DashboardFilter{{Member: "a.b", Value: strings.Repeat("x", 3000)}}}, "filters[0].value", ruleURLTooLong},
		{"member filtered twice", DashboardControls{Filters: []DashboardFilter{{Member: "a.b", Value: 1}, {Member: "a.b", Value: 2}}}, "filters[1].member", "is preset twice; each control takes one value"},
		{"upper-case grain", DashboardControls{TimeGrains: []DashboardTimeGrain{{Member: "a.day", Grain: "Week"}}}, "timeGrains[0].grain", ruleURLGrain},
		{"no grain", DashboardControls{TimeGrains: []DashboardTimeGrain{{Member: "a.day"}}}, "timeGrains[0].grain", ruleRequired},
		{"switcher without selection", DashboardControls{MemberSwitchers: []DashboardMemberSwitcher{{Member: "a.b"}}}, "memberSwitchers[0].selected", ruleRequired},
		{"switcher member", DashboardControls{MemberSwitchers: []DashboardMemberSwitcher{{Member: "ab", Selected: "a.c"}}}, "memberSwitchers[0].member", ruleMember},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			p, ok := ve.Field(tt.field)
			if !ok {
				t.Fatalf("no problem for %s in %v", tt.field, err)
			}
			if tt.rule != "" && p.Rule != tt.rule {
				t.Errorf("%s: rule %q, want %q", tt.field, p.Rule, tt.rule)
			}
			if err := tt.c.AddTo(url.Values{}); err == nil {
				t.Error("AddTo accepted what Validate refused")
			}
		})
	}
}

func TestDashboardFilterURLParameter(t *testing.T) {
	got, err := DashboardFilter{Member: "orders.status", Value: "a&b"}.URLParameter()
	if err != nil {
		t.Fatal(err)
	}
	if want := "f_orders.status=%7B%22value%22%3A%22a%5Cu0026b%22%7D"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := (DashboardFilter{Member: "x"}).URLParameter(); err == nil {
		t.Error("a filter without a view or value was encoded")
	}
}

// FuzzDashboardFilter holds the URL form to its contract: what Validate
// accepts encodes into a parameter that a browser decodes back to the
// same member and value.
func FuzzDashboardFilter(f *testing.F) {
	f.Add("orders.status", `"completed"`)
	f.Add("sales.region", `["EMEA","APAC"]`)
	f.Add("a.b", `12.5`)
	f.Add("a.b", `"a&b=c+d%25 ü \"q\""`)
	f.Add("no-dot", `true`)
	f.Add("x.y", `{"nested":1}`)
	f.Fuzz(func(t *testing.T, member, valueJSON string) {
		var v any
		if json.Unmarshal([]byte(valueJSON), &v) != nil {
			v = valueJSON
		}
		filter := DashboardFilter{Member: member, Value: v}
		param, err := filter.URLParameter()
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("error %v is not a *ValidationError with problems", err)
			}
			return
		}
		q, err := url.ParseQuery(param)
		if err != nil || len(q) != 1 {
			t.Fatalf("%q does not parse as one parameter: %v", param, err)
		}
		raw := q.Get("f_" + member)
		var back struct{ Value any }
		if err := json.Unmarshal([]byte(raw), &back); err != nil {
			t.Fatalf("%q: value is not JSON: %v", param, err)
		}
		want, _ := json.Marshal(v)
		got, _ := json.Marshal(back.Value)
		if string(got) != string(want) {
			t.Fatalf("%q decodes to %s, want %s", param, got, want)
		}
	})
}

func ExampleDashboardControls() {
	c := DashboardControls{
		Filters:    []DashboardFilter{{Member: "orders.status", Value: "completed"}},
		TimeGrains: []DashboardTimeGrain{{Member: "orders.created_at", Grain: "week"}},
	}
	q := url.Values{}
	if err := c.AddTo(q); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.Encode())

	bad := DashboardControls{Filters: []DashboardFilter{{Member: "status", Value: "completed"}}}
	fmt.Println(bad.Validate())
	// Output:
	// f_orders.status=%7B%22value%22%3A%22completed%22%7D&tg_orders.created_at=week
	// embedkit: invalid dashboard controls request: filters[0].member: must match .+\..+ (view.member)
}
