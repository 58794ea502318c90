package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Summary names the configuration a report checked: whose it is and what
// of it the checks read, so a report can never be taken for another
// app's.
type Summary struct {
	// Name is Config.Name: the app or set-up the Config belongs to.
	Name string `json:"name"`
	// Targets are the Config's targets, by name.
	Targets []TargetSummary `json:"targets"`
	// AllowedGroups is Policy.Groups.Allowed; null (nil) means every host
	// group is sent as it is, [] (empty) that none is.
	AllowedGroups []string `json:"allowedGroups"`
	// AllowedAttributes is Policy.Attributes.Allowed; null (nil) means
	// every attribute of a viewer is sent, [] (empty) that none is.
	AllowedAttributes []string `json:"allowedAttributes"`
	// HostOrigin is Origins.Host; empty means the kit derives the origin
	// it names to the platform from each request.
	HostOrigin string `json:"hostOrigin,omitempty"`
}

// TargetSummary is one target of a Summary.
type TargetSummary struct {
	// Name is the target's name in Config.Targets.
	Name string `json:"name"`
	// Kind is its Kind: dashboard, app or chat.
	Kind string `json:"kind"`
	// PublicID is a dashboard target's public id.
	PublicID string `json:"publicId,omitempty"`
}

// unnamed is the Summary name of a Config without Config.Name.
const unnamed = "(unnamed: set doctor.Config.Name)"

// summarize describes cfg for the report.
func summarize(cfg Config) Summary {
	s := Summary{
		Name:              cfg.Name,
		AllowedGroups:     sortedCopy(cfg.Kit.Policy.Groups.Allowed),
		AllowedAttributes: sortedCopy(cfg.Kit.Policy.Attributes.Allowed),
		HostOrigin:        strings.TrimSuffix(cfg.Kit.Origins.Host, "/"),
		Targets:           []TargetSummary{},
	}
	if s.Name == "" {
		s.Name = unnamed
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Kit.Targets)) {
		t := cfg.Kit.Targets[name]
		s.Targets = append(s.Targets, TargetSummary{Name: name, Kind: string(t.Kind), PublicID: t.PublicID})
	}
	return s
}

// sortedCopy returns a sorted copy of list, keeping nil and empty apart:
// the two mean opposite things to an allow-list (every entry, none).
// slices.Sorted of an empty list is nil, so the empty case is its own.
func sortedCopy(list []string) []string {
	switch {
	case list == nil:
		return nil
	case len(list) == 0:
		return []string{}
	}
	return slices.Sorted(slices.Values(list))
}

// writeText writes the summary's lines under the report's heading.
func (s Summary) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "configuration checked: %s\n", s.Name)
	var targets []string
	for _, t := range s.Targets {
		d := t.Name + " (" + t.Kind
		if t.PublicID != "" {
			d += " " + t.PublicID
		}
		targets = append(targets, d+")")
	}
	if len(targets) == 0 {
		targets = []string{"none"}
	}
	fmt.Fprintf(b, "  targets:     %s\n", strings.Join(targets, ", "))
	fmt.Fprintf(b, "  groups:      %s\n", listOrAny(s.AllowedGroups, "Policy.Groups.Allowed", "host group"))
	fmt.Fprintf(b, "  attributes:  %s\n", listOrAny(s.AllowedAttributes, "Policy.Attributes.Allowed", "attribute"))
	if s.HostOrigin != "" {
		fmt.Fprintf(b, "  host origin: %s (Origins.Host)\n", s.HostOrigin)
	} else {
		fmt.Fprintf(b, "  host origin: derived from each request (Origins.Host is unset)\n")
	}
}

// listOrAny describes an allow-list: its entries, none, or any when nil.
func listOrAny(list []string, field, what string) string {
	switch {
	case list == nil:
		return fmt.Sprintf("any %s (%s is nil)", what, field)
	case len(list) == 0:
		return fmt.Sprintf("none (%s is empty)", field)
	}
	return strings.Join(list, ", ") + " (" + field + ")"
}
