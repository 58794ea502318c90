package webapp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// TestPlatformURLRuleAgrees: the client, the middleware and the demo's
// configuration accept and refuse the same platform URLs, since they share
// one rule (embedkit.ParseBaseURL). http://127.0.0.2 and http://LOCALHOST
// once passed the client and failed the middleware.
func TestPlatformURLRuleAgrees(t *testing.T) {
	platform, err := embedkit.New("https://acme.example.com", "ek_test_key")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://acme.example.com", true},
		{"https://acme.example.com/base/", true},
		{"HTTPS://acme.example.com", true},
		{"http://127.0.0.1:7070", true},
		{"http://127.0.0.2:7070", true},
		{"http://LOCALHOST:7070", true},
		{"http://[::1]:7070", true},
		{"http://emulator.localhost:7070", true},
		{"http://acme.example.com", false},
		{"http://127.0.0.1.nip.io:7070", false},
		{"http://localhost.example.com", false},
		{"https://acme.example.com/?k=v", false},
		{"https://acme.example.com/#f", false},
		{"https://user:pass@acme.example.com", false},
		{"ftp://acme.example.com", false},
		{"acme.example.com", false},
		{"", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, clientErr := embedkit.New(tc.url, "ek_test_key")
			_, kitErr := middleware.New(middleware.Config{
				Platform:    platform,
				Identity:    middleware.IdentityFunc(func(*http.Request) (*middleware.Viewer, error) { return nil, middleware.ErrNoViewer }),
				Store:       memstore.New(),
				Policy:      middleware.Policy{DeploymentID: 1},
				PlatformURL: tc.url,
				Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales"}},
			})
			demoErr := checkPlatformURL(tc.url)
			got := map[string]bool{"embedkit.New": clientErr == nil, "middleware.New": kitErr == nil, "the demo's config": demoErr == nil}
			for who, ok := range got {
				if ok != tc.ok {
					t.Errorf("%s accepts it: %v, want %v (client %v; kit %v; demo %v)", who, ok, tc.ok, clientErr, kitErr, demoErr)
				}
			}
			if kitErr != nil && !strings.Contains(kitErr.Error(), "PlatformURL") {
				t.Errorf("the middleware's error does not name the field: %v", kitErr)
			}
		})
	}
}
