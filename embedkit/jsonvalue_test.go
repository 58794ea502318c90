package embedkit

import (
	"encoding/json"
	"testing"
)

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e9": true, "-1.5E-3": true, "1e+2": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false,
		"NaN": false, "0x10": false, "1 ": false,
	} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
		if want {
			if !json.Valid([]byte(s)) {
				t.Errorf("json.Valid(%q) = false", s)
			}
		}
	}
}
