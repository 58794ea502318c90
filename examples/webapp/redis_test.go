package webapp

import (
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/internal/testredis"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testredis.Stop()
	os.Exit(code)
}

// TestRedisStore runs the demo with REDIS_ADDR: minted ids and the logout
// hint are kept in Redis, and logout still revokes every one of them.
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
	// The logout hint was kept in Redis since sign-in.
	end, _ := url.Parse(resp.Header.Get("Location"))
	if hint := end.Query().Get("id_token_hint"); f.secrets.label(hint) != "ID token" {
		t.Errorf("id_token_hint is not the login's ID token (present: %t)", hint != "")
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

// TestLogoutSurvivesRestart: with REDIS_ADDR, a copy of a cookie saved
// before logout stays signed out on another instance sharing the Redis and
// after the app restarts with the same SESSION_KEYS.
func TestLogoutSurvivesRestart(t *testing.T) {
	env := envOf(map[string]string{EnvSessionKeys: sessionKeys(), EnvRedisAddr: testredis.Addr(t)})
	first := startFlow(t, env)
	other := startFlow(t, env)
	b := first.browser()
	b.login("ana", "ana-dev-pass")
	saved := b.sessionCookie()
	signedIn := func(f *flow) bool { t.Helper(); return f.signedInWith(saved) }
	if !signedIn(other) {
		t.Fatal("the other instance does not accept the cookie before logout")
	}

	_, page := b.get(first.d.AppURL + "/dashboards")
	if resp, _ := b.post(first.d.AppURL+LogoutPath, url.Values{"csrf_token": {csrfOf(t, page)}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", resp.StatusCode)
	}
	if signedIn(first) || signedIn(other) {
		t.Error("a cookie saved before logout still signs in on an instance sharing the Redis")
	}
	if err := first.d.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	restarted := startFlow(t, env)
	if signedIn(restarted) {
		t.Error("a cookie saved before logout signs in again after a restart")
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

// TestRedisHangsAnswersOutage: with REDIS_ADDR, a Redis that hangs
// (SIGSTOP) answers the demo's pages as the kit answers its frames: the
// outage page, 503 with Retry-After, within the Redis timeout, not 500
// "internal" after go-redis's own 35 s. Once Redis resumes, the same
// instance serves again.
func TestRedisHangsAnswersOutage(t *testing.T) {
	srv := testredis.NewServer(t)
	f := startFlow(t, envOf(map[string]string{EnvRedisAddr: srv.Addr}))
	ana := f.browser()
	ana.login("ana", "ana-dev-pass")
	if resp, _ := ana.get(f.d.AppURL + "/dashboards"); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /dashboards before the outage: %d", resp.StatusCode)
	}
	srv.Pause(t)
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			srv.Resume(t)
		}
	})
	start := time.Now()
	resp, _ := ana.get(f.d.AppURL + "/dashboards")
	took := time.Since(start)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("GET /dashboards with Redis hung: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if bound := redisstore.DefaultTimeout + 3*time.Second; took > bound {
		t.Errorf("GET /dashboards with Redis hung answered after %s, beyond %s", took, bound)
	}
	srv.Resume(t)
	resumed = true
	if resp, _ := ana.get(f.d.AppURL + "/dashboards"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /dashboards once Redis resumed: %d", resp.StatusCode)
	}
}
