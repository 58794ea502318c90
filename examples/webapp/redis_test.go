package webapp

import (
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/internal/testredis"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
}

// TestRedisStore runs the demo with REDIS_ADDR: minted ids are kept in
// Redis, and logout still revokes every one of them.
func TestRedisStore(t *testing.T) {
	f := startFlow(t, envOf(map[string]string{EnvRedisAddr: testredis.Addr(t)}))
	ana := f.browser()
	ana.login("ana", "ana-dev-pass")
	ana.frameRedirect("/embed/frame/dashboard/sales-overview")
	ana.frameRedirect("/embed/frame/dashboard/regional-performance")
	_, page := ana.get(f.d.AppURL + "/dashboards")
	resp, _ := ana.post(f.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", resp.StatusCode)
	}
	n := 0
	for _, s := range f.sessions() {
		if s.ExternalID == "ana" {
			n++
			if s.State != "revoked" {
				t.Errorf("ana's session %s after logout", s.State)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d sessions of ana, want 2", n)
	}
}

func TestRedisUnreachable(t *testing.T) {
	_, err := RunDemo(t.Context(), DemoOptions{Listen: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Getenv: envOf(map[string]string{EnvRedisAddr: "127.0.0.1:1"})})
	if err == nil {
		t.Fatal("RunDemo succeeded with Redis unreachable")
	}
	if want := "REDIS_ADDR"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not name %s", err, want)
	}
}
