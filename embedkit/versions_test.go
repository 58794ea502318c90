package embedkit

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in, want string
		rule     string
	}{
		{in: "1.7.20", want: "1.7.20"},
		{in: "v1.7.20", want: "1.7.20"},
		{in: "platform/runtime:v1.7.20", want: "1.7.20"},
		{in: "platform/runtime:v0.0.0", want: "0.0.0"},
		{in: "registry.example.com:5000/org/img:v1.2.3", want: "1.2.3"},
		{in: "localhost:5000/img:v10.20.30-rc.1+build.5", want: "10.20.30-rc.1+build.5"},
		{in: "my_org/sub-img__x/a.b:v1.0.0-alpha-1", want: "1.0.0-alpha-1"},
		{in: "1.0.0-0A.is.legal", want: "1.0.0-0A.is.legal"},
		{in: "1.0.0+001", want: "1.0.0+001"},
		{in: "", rule: ruleVersion},
		{in: "v", rule: ruleVersion},
		{in: "1.7", rule: ruleVersion},
		{in: "1.7.20.1", rule: ruleVersion},
		{in: "01.7.20", rule: ruleVersion},
		{in: "1.7.20-01", rule: ruleVersion},
		{in: "1.7.20-", rule: ruleVersion},
		{in: "1.7.20+", rule: ruleVersion},
		{in: "V1.7.20", rule: ruleVersion},
		{in: "vv1.7.20", rule: ruleVersion},
		{in: " 1.7.20", rule: ruleVersion},
		{in: "platform/runtime:1.7.20", rule: ruleVersion},
		{in: "platform/runtime:latest", rule: ruleVersion},
		{in: "registry.example.com:5000/org/img", rule: ruleVersion},
		{in: ":v1.7.20", rule: ruleVersionImage},
		{in: "Platform/Runtime:v1.7.20", rule: ruleVersionImage},
		{in: "platform//runtime:v1.7.20", rule: ruleVersionImage},
		{in: "platform/runtime/:v1.7.20", rule: ruleVersionImage},
		{in: "host:port/img:v1.7.20", rule: ruleVersionImage},
		{in: "1.2.3-" + strings.Repeat("a", 600), rule: ruleVersion},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseVersion(tt.in)
			if tt.rule == "" {
				if err != nil || got != tt.want {
					t.Errorf("ParseVersion(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				return
			}
			if got != "" {
				t.Errorf("ParseVersion(%q) = %q", tt.in, got)
			}
			valCheck(t, "version", err, []FieldError{fe("releaseChannelVersion", tt.rule)})
		})
	}
}
