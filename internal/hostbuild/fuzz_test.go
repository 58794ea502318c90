package hostbuild

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// FuzzGlobalTypes: any module declarations give an error or global
// declarations with the namespace, no module-only marker and no
// `declare global` block.
func FuzzGlobalTypes(f *testing.F) {
	f.Add("// ---- declarations ----\nexport interface A {}\n\ndeclare global {\n  interface X {}\n}\n")
	f.Fuzz(func(t *testing.T, in string) {
		out, err := GlobalTypes([]byte(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hostbuild: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		s := string(out)
		if !strings.Contains(s, "declare namespace embedkit {\n") || strings.Contains(s, "<module-only>") {
			t.Fatalf("output without the namespace or with a marker:\n%s", s)
		}
	})
}

// FuzzNavigatePathRules: any URL form gives an error or anchored rules
// that compile and match no query, fragment or dot segment.
func FuzzNavigatePathRules(f *testing.F) {
	f.Add("/embed/dashboard/{publicId}?session={sessionId}")
	f.Fuzz(func(t *testing.T, form string) {
		raw, _ := json.Marshal(form)
		rules, err := NavigatePathRules(map[string]json.RawMessage{"x": raw})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hostbuild: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		for _, r := range rules {
			re := regexp.MustCompile(r)
			if !strings.HasPrefix(r, "^/embed/") || !strings.HasSuffix(r, "$") {
				t.Fatalf("rule %q is not anchored on /embed/", r)
			}
			for _, bad := range []string{"/embed/dashboard/x?y=1", "/embed/dashboard/x#y", "/embed/dashboard/..", "/embed/dashboard/."} {
				if re.MatchString(bad) && !strings.ContainsAny(form, "?#.") {
					t.Fatalf("rule %q of %q matches %q", r, form, bad)
				}
			}
		}
	})
}

// FuzzJSRegexp: a translated rule compiles in Go too (the translation is
// a subset of both dialects) and matches what the Go rule matches on
// single-line text.
func FuzzJSRegexp(f *testing.F) {
	f.Add(`.+\..+`, "orders.status")
	f.Fuzz(func(t *testing.T, rule, text string) {
		js, err := jsRegexp(rule)
		if err != nil {
			return
		}
		re, err := regexp.Compile("^(?:" + js + ")$")
		if err != nil {
			t.Fatalf("translation %q of %q does not compile: %v", js, rule, err)
		}
		orig := regexp.MustCompile("^(?:" + rule + ")$")
		if !strings.ContainsAny(text, "\n") && re.MatchString(text) != orig.MatchString(text) {
			t.Fatalf("%q and its translation %q disagree on %q", rule, js, text)
		}
	})
}
