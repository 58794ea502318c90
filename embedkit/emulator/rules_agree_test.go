package emulator

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/internal/ruletest"
)

// The emulator keeps its own code for the platform's rules, as the
// platform's independent implementation; these tests hold it to the same
// cases as the kit's (package embedkit runs them too), so the two cannot
// disagree.

func TestPictureRuleAgreesWithTheKit(t *testing.T) {
	for _, c := range ruletest.PictureURLs {
		if got := absoluteHTTPURL(c.In); got != c.Want {
			t.Errorf("absoluteHTTPURL(%q) = %v, want %v (%s)", c.In, got, c.Want, c.Why)
		}
	}
}

// TestLoopbackRulesAgreeWithTheKit runs the cases through each place the
// emulator asks "is this host this machine": the listen address, and the
// control API's Host header (reached on an address no case names, so
// only the loopback rule can let a host in).
func TestLoopbackRulesAgreeWithTheKit(t *testing.T) {
	srv, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ruletest.LoopbackHosts {
		if c.In == "" {
			continue // no address or Host header to put it in
		}
		host := c.In
		if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			host = "[" + host + "]" // an IPv6 literal takes brackets before a port
		}
		if err := checkLoopback(host + ":7070"); (err == nil) != c.Want {
			t.Errorf("checkLoopback(%q) = %v, want ok %v (%s)", host+":7070", err, c.Want, c.Why)
		}
		r := httptest.NewRequest("GET", "/_emulator/state", nil)
		r.Host = host + ":7070"
		if got := srv.controlHostAllowed(r); got != c.Want {
			t.Errorf("control API Host %q allowed = %v, want %v (%s)", r.Host, got, c.Want, c.Why)
		}
	}
}
