package embedkit

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Dashboard controls preset from the iframe URL.
//
// A published dashboard's filter controls, time-grain switchers and member
// switchers can be preset by query parameters of its embed URL:
//
//	f_<view>.<dimension>=<JSON>     a filter, e.g. f_orders.status={"value":"completed"}
//	tg_<view>.<dimension>=<grain>   a time-grain switcher, e.g. tg_orders.created_at=week
//	ms_<view>.<member>=<member>     a member switcher, e.g. ms_orders.count=orders.total
//
// The JSON is percent-encoded, the grain lower-case, and a parameter
// applies only when the dashboard has a matching control. The embedded
// page reads them once, at load, and the viewer can change them
// afterwards: they are viewer-side controls, not security. Rows a viewer
// must not see are kept out by the signed security context
// (GenerateSessionRequest.SecurityContext), never by a URL filter.
//
// The controls use the same types, and the same member rule, as a
// dashboard export's overrides (DashboardExportRequest).

// maxFilterJSON bounds the encoded JSON of one filter, so that an embed
// URL stays well within what browsers and proxies accept.
const maxFilterJSON = 2048

// Rules of the URL form that the export overrides do not have.
const (
	ruleURLOperator = `must be empty or "equals": the URL filter form documents only the default type`
	ruleURLValue    = "is required: a filter with no value is left out of the URL"
	ruleURLGrain    = "must be a lower-case granularity from the switcher's allowed list, such as day or month"
	ruleURLTooLong  = "must encode to at most 2048 bytes of JSON"
	ruleURLUTF8     = "must hold UTF-8 text only (JSON would replace the other bytes)"
)

// DashboardControls are the control presets of one embed URL. The zero
// value presets none.
type DashboardControls struct {
	// Filters preset filter controls (f_ parameters). Operator stays
	// empty: the URL form has only the default type, equals. Value is
	// required.
	Filters []DashboardFilter
	// TimeGrains preset time-grain switchers (tg_ parameters).
	TimeGrains []DashboardTimeGrain
	// MemberSwitchers preset member switchers (ms_ parameters).
	MemberSwitchers []DashboardMemberSwitcher
}

// IsZero reports whether c presets nothing.
func (c DashboardControls) IsZero() bool {
	return len(c.Filters) == 0 && len(c.TimeGrains) == 0 && len(c.MemberSwitchers) == 0
}

// Validate reports every broken rule of c, as a *ValidationError with
// fields such as "filters[1].member" and "timeGrains[0].grain".
func (c DashboardControls) Validate() error {
	p := problems{op: "dashboard controls"}
	checkControls(&p, c.Filters, c.TimeGrains, c.MemberSwitchers)
	seen := make(map[string]bool, len(c.Filters)+len(c.TimeGrains)+len(c.MemberSwitchers))
	once := func(field string, i int, key string) {
		if seen[key] {
			p.add(indexField(field, i, ".member"), "is preset twice; each control takes one value")
		}
		seen[key] = true
	}
	for i, f := range c.Filters {
		once("filters", i, "f_"+f.Member)
		if f.Operator != "" && f.Operator != "equals" {
			p.add(indexField("filters", i, ".operator"), ruleURLOperator)
		}
		switch {
		case f.Value == nil:
			p.add(indexField("filters", i, ".value"), ruleURLValue)
		case !utf8Value(f.Value):
			p.add(indexField("filters", i, ".value"), ruleURLUTF8)
		case encodable(f.Value) == encodeOK:
			if j, err := filterJSON(f.Value); err != nil || len(j) > maxFilterJSON {
				p.add(indexField("filters", i, ".value"), ruleURLTooLong)
			}
		}
	}
	for i, g := range c.TimeGrains {
		once("timeGrains", i, "tg_"+g.Member)
		if g.Grain != "" && (g.Grain != strings.ToLower(g.Grain) || strings.ContainsAny(g.Grain, " \t")) {
			p.add(indexField("timeGrains", i, ".grain"), ruleURLGrain)
		}
	}
	for i, m := range c.MemberSwitchers {
		once("memberSwitchers", i, "ms_"+m.Member)
	}
	return p.err()
}

// AddTo validates c and sets its parameters on q.
func (c DashboardControls) AddTo(q url.Values) error {
	if err := c.Validate(); err != nil {
		return err
	}
	for _, f := range c.Filters {
		j, err := filterJSON(f.Value)
		if err != nil {
			return err
		}
		q.Set("f_"+f.Member, j)
	}
	for _, g := range c.TimeGrains {
		q.Set("tg_"+g.Member, g.Grain)
	}
	for _, m := range c.MemberSwitchers {
		q.Set("ms_"+m.Member, m.Selected)
	}
	return nil
}

// URLParameter returns f as the iframe URL parameter
// "f_<member>=<percent-encoded JSON>": the text the browser protocol's
// cube:action:set-filter carries as filterUrlParameter.
func (f DashboardFilter) URLParameter() (string, error) {
	if err := (DashboardControls{Filters: []DashboardFilter{f}}).Validate(); err != nil {
		return "", err
	}
	j, err := filterJSON(f.Value)
	if err != nil {
		return "", err
	}
	return url.QueryEscape("f_"+f.Member) + "=" + url.QueryEscape(j), nil
}

// filterJSON is a filter value as the URL form carries it, {"value": v}.
func filterJSON(v any) (string, error) {
	b, err := json.Marshal(struct {
		Value any `json:"value"`
	}{v})
	if err != nil {
		return "", fmt.Errorf("embedkit: encoding a dashboard filter value: %w", err)
	}
	return string(b), nil
}

// utf8Value reports whether every string in v, a value of the shapes
// decoded JSON takes ([]string too), is valid UTF-8. JSON encoding would
// quietly replace the other bytes, and the viewer would see a filter on a
// value nobody chose.
func utf8Value(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case []string:
		for _, s := range x {
			if !utf8.ValidString(s) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !utf8Value(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !utf8Value(e) {
				return false
			}
		}
	}
	return true
}
