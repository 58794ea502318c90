package emulator

// Sample data and row-level security.
//
// Every dashboard of the emulator shows the same kind of data: monthly
// revenue and orders by sales region (EMEA, AMER, APAC) for the first six
// months of 2025. The figures are derived from the dashboard's public id
// alone, so a dashboard shows the same rows on every run and in every
// export, and two dashboards differ.
//
// The rows a viewer sees follow the identity signed into the embed token,
// the same way a data-model access policy would filter them:
//
//  0. A dashboard whose fixture names RequiredSecurityContext keys shows
//     no rows to a session whose security context lacks one of them (or
//     holds null or "" for it): its data model's access policy filters
//     rows by that key and denies them all when it is missing, as a policy
//     scoping rows by a key must. A session is bound to its deployment
//     only, so a plain embed can open such a dashboard through the embed's
//     own navigation; this is what it then shows. Without the rule, a
//     missing key would read as "no filter", every project's rows.
//  1. A "region" key in the user attributes or in the security context
//     (a string, or an array of strings; compared case-insensitively)
//     limits the rows to that region. When both carry one, both apply, so
//     the viewer sees only regions named by each. A region key of any other
//     type, or naming no known region, shows no rows: a restriction that
//     cannot be read fails closed. A null region is no restriction (null
//     clears an attribute).
//  2. Otherwise the global groups in securityContext.platformCloud.groups
//     that name a region group ("emea", "amer", "apac", case-insensitive)
//     limit the rows to those regions.
//  3. Otherwise every row is shown.
//
// A "project" string in the security context (a host scoping an embed by
// its own route) selects that project's figures: the rows are derived from
// the dashboard's public id and the project, and carry the project.

import (
	"hash/fnv"
	"strings"
	"time"
)

// sampleRegions are the sales regions of the sample data, in display order.
var sampleRegions = []string{"EMEA", "AMER", "APAC"}

// sampleMonths is how many months of data each dashboard has, from January
// 2025 on.
const sampleMonths = 6

// sampleRow is one row of a dashboard's sample data: one region's figures
// for one calendar month.
type sampleRow struct {
	// Region is EMEA, AMER or APAC.
	Region string `json:"region"`
	// Month is the first day of the month, as an ISO 8601 date.
	Month string `json:"month"`
	// Revenue is in currency units, with cents, so locale formatting shows.
	Revenue float64 `json:"revenue"`
	// Orders is the number of orders in the month.
	Orders int `json:"orders"`
	// UpdatedAt is when the month's figures were last refreshed, a moment
	// whose calendar date differs between time zones.
	UpdatedAt time.Time `json:"updatedAt"`
	// Project is the project of a security context scoped to one.
	Project string `json:"project,omitempty"`
}

// rowsFor returns the sample rows of dashboard publicID that a session
// with securityContext and attributes may see: none when the dashboard's
// data model requires a security-context key the session lacks (rule 0 of
// the file comment), else those of sampleRowsFor.
func (s *Server) rowsFor(publicID string, securityContext, attributes map[string]any) []sampleRow {
	s.mu.Lock()
	var required []string
	if d := s.st.byPublicID[publicID]; d != nil {
		required = d.RequiredSecurityContext
	}
	s.mu.Unlock()
	for _, key := range required {
		if v, ok := securityContext[key]; !ok || v == nil || v == "" {
			return []sampleRow{}
		}
	}
	return sampleRowsFor(publicID, securityContext, attributes)
}

// sampleRowsFor returns the rows of dashboard publicID that the viewer
// described by securityContext and attributes may see, ordered by month
// and then region. See the file comment for the filtering rule.
func sampleRowsFor(publicID string, securityContext map[string]any, attributes map[string]any) []sampleRow {
	allowed := visibleRegions(securityContext, attributes)
	project, _ := securityContext["project"].(string)
	h := fnv.New64a()
	h.Write([]byte(publicID))
	if project != "" {
		h.Write([]byte("\x00project\x00" + project))
	}
	seed := h.Sum64()

	rows := make([]sampleRow, 0, sampleMonths*len(sampleRegions))
	for m := range sampleMonths {
		first := time.Date(2025, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
		for ri, region := range sampleRegions {
			// Advance the generator for every cell, shown or not, so a
			// filtered view shows the same figures as the full one.
			seed = splitmix(seed)
			if !allowed[region] {
				continue
			}
			// 8,000.00 to 29,749.99, trending up month by month.
			cents := 800_000 + seed%2_000_000 + uint64(m)*35_000
			orders := 40 + int(cents/25_000) + ri*3
			rows = append(rows, sampleRow{
				Region:  region,
				Month:   first.Format(time.DateOnly),
				Revenue: float64(cents) / 100,
				Orders:  orders,
				// The last day of the month, 23:30 UTC plus a few minutes:
				// already the next month east of UTC.
				UpdatedAt: first.AddDate(0, 1, 0).Add(-30*time.Minute + time.Duration(seed%17)*time.Minute),
				Project:   project,
			})
		}
	}
	return rows
}

// splitmix advances a SplitMix64 state; a small, fixed generator keeps the
// sample data identical across Go releases.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// visibleRegions applies the row-level security rule to the signed identity
// and returns the set of regions the viewer may see.
func visibleRegions(securityContext, attributes map[string]any) map[string]bool {
	all := make(map[string]bool, len(sampleRegions))
	for _, r := range sampleRegions {
		all[r] = true
	}

	restricted := false
	allowed := all
	for _, src := range []map[string]any{attributes, securityContext} {
		v, ok := src["region"]
		if !ok || v == nil {
			continue
		}
		restricted = true
		named := regionsNamed(v)
		next := make(map[string]bool, len(named))
		for r := range named {
			if allowed[r] {
				next[r] = true
			}
		}
		allowed = next
	}
	if restricted {
		return allowed
	}

	pc, _ := securityContext["platformCloud"].(map[string]any)
	if fromGroups := regionsNamed(pc["groups"]); len(fromGroups) > 0 {
		return fromGroups
	}
	return all
}

// regionsNamed reads a region restriction: a string or an array of
// strings. Anything else names no region.
func regionsNamed(v any) map[string]bool {
	out := make(map[string]bool)
	switch v := v.(type) {
	case string:
		if r := regionOf(v); r != "" {
			out[r] = true
		}
	case []string:
		for _, s := range v {
			if r := regionOf(s); r != "" {
				out[r] = true
			}
		}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				if r := regionOf(s); r != "" {
					out[r] = true
				}
			}
		}
	}
	return out
}

// regionOf returns the sample region named by s (case-insensitive, spaces
// trimmed), or "" when s names none.
func regionOf(s string) string {
	s = strings.TrimSpace(s)
	for _, r := range sampleRegions {
		if strings.EqualFold(s, r) {
			return r
		}
	}
	return ""
}
