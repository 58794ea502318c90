package loopbackhost

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/embedkit/embedkit/internal/ruletest"
)

func TestAllowed(t *testing.T) {
	extra := func(name string) bool { return name == "emulator.internal" }
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"localhost", true},
		{"LOCALHOST:9", true},
		{"emulator.internal:7171", true},
		{"rebound.attacker.example", false},
		{"127.0.0.1.attacker.example", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			r.Host = tt.host
			if got := Allowed(r, extra); got != tt.want {
				t.Errorf("Allowed(Host %q) = %v, want %v", tt.host, got, tt.want)
			}
			w := httptest.NewRecorder()
			Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
			if refused := w.Code == http.StatusForbidden; refused != (!tt.want || tt.host == "emulator.internal:7171") {
				t.Errorf("Handler with Host %q: %d", tt.host, w.Code)
			}
		})
	}
}

// TestIsLoopbackAgreesWithTheKit runs the cases embedkit.IsLoopbackHost
// is held to (internal/ruletest).
func TestIsLoopbackAgreesWithTheKit(t *testing.T) {
	for _, c := range ruletest.LoopbackHosts {
		if got := IsLoopback(c.In); got != c.Want {
			t.Errorf("IsLoopback(%q) = %v, want %v (%s)", c.In, got, c.Want, c.Why)
		}
	}
}
