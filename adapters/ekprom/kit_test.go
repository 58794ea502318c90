package ekprom_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/embedkit/embedkit/adapters/ekprom"
	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/middleware"
)

// fakePlatform is a middleware.Platform in memory: it mints ids of the
// platform's shape and fails revokes while down is set.
type fakePlatform struct {
	n    atomic.Int64
	down atomic.Bool
}

func (p *fakePlatform) GenerateSession(context.Context, *embedkit.GenerateSessionRequest) (*embedkit.Session, error) {
	id := fmt.Sprintf("%032x", p.n.Add(1))
	return &embedkit.Session{SessionID: id, ExpiresAt: time.Now().Add(embedkit.SessionLifetime)}, nil
}

func (p *fakePlatform) RevokeSession(context.Context, string) error {
	if p.down.Load() {
		return errors.New("fake platform: down")
	}
	return nil
}

// stepClock is a clock that moves 10ms forward each time it is read, so
// that every platform call the kit times takes exactly 10ms.
type stepClock struct{ ns atomic.Int64 }

const step = 10 * time.Millisecond

func (c *stepClock) Now() time.Time {
	return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(c.ns.Add(int64(step))))
}

// userHeader takes the viewer from a test header.
var userHeader = middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
	u := r.Header.Get("X-User")
	if u == "" {
		return nil, middleware.ErrNoViewer
	}
	return &middleware.Viewer{Subject: u, SessionKey: "login-of-" + u}, nil
})

// TestKitReportsToMetrics runs a real Kit with Metrics registered on a
// registry: a frame load, a logout while the platform is down, and the
// retry once it is back.
func TestKitReportsToMetrics(t *testing.T) {
	metrics := ekprom.New(ekprom.WithBuckets(0.005, 0.05))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics)

	platform := &fakePlatform{}
	clock := &stepClock{}
	kit, err := middleware.New(middleware.Config{
		Platform:    platform,
		Identity:    userHeader,
		Store:       memstore.New(memstore.WithClock(clock.Now)),
		Policy:      middleware.Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com",
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "dash-sales"}},
		Metrics:     metrics,
		Now:         clock.Now,
		// A queued revoke is due within a millisecond: one clock step.
		Revoke: middleware.RevokeOptions{Backoff: embedkit.Backoff{Min: time.Millisecond, Max: time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	browser := func(method, path string) *http.Request {
		r := httptest.NewRequest(method, path, nil)
		r.Header.Set("X-User", "ana")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		return r
	}
	gatherAndCompare := func(t *testing.T, want string, names ...string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
			t.Error(err)
		}
	}

	w := httptest.NewRecorder()
	kit.FrameHandler().ServeHTTP(w, browser(http.MethodGet, "/embed/frame/sales"))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("frame load: status %d, body %q", w.Code, w.Body)
	}
	gatherAndCompare(t, mintsHelp+`
embedkit_mints_total{outcome="denied"} 0
embedkit_mints_total{outcome="error"} 0
embedkit_mints_total{outcome="invalid"} 0
embedkit_mints_total{outcome="limited"} 0
embedkit_mints_total{outcome="ok"} 1
embedkit_mints_total{outcome="unavailable"} 0
`, "embedkit_mints_total")
	if n := histogramCount(t, metrics, "embedkit_mint_duration_seconds", "ok"); n != 1 {
		t.Errorf(`mint_duration_seconds_count{outcome="ok"} = %d, want 1`, n)
	}
	if out := exposition(t, metrics, "embedkit_mint_duration_seconds"); !strings.Contains(out, `embedkit_mint_duration_seconds_sum{outcome="ok"} 0.01`+"\n") {
		t.Errorf("the mint's 10ms are not observed:\n%s", out)
	}

	platform.down.Store(true)
	w = httptest.NewRecorder()
	kit.Logout(http.RedirectHandler("/", http.StatusSeeOther)).ServeHTTP(w, browser(http.MethodPost, "/logout"))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("logout: status %d, body %q", w.Code, w.Body)
	}
	gatherAndCompare(t, revokesHelp+`
embedkit_revokes_total{outcome="expired"} 0
embedkit_revokes_total{outcome="invalid"} 0
embedkit_revokes_total{outcome="ok"} 0
embedkit_revokes_total{outcome="queued"} 1
`+depthHelp+`
embedkit_revoke_queue_depth 1
`, "embedkit_revokes_total", "embedkit_revoke_queue_depth")

	platform.down.Store(false)
	if pending, err := kit.FlushRevokes(context.Background()); pending != 0 || err != nil {
		t.Fatalf("FlushRevokes = %d, %v", pending, err)
	}
	gatherAndCompare(t, revokesHelp+`
embedkit_revokes_total{outcome="expired"} 0
embedkit_revokes_total{outcome="invalid"} 0
embedkit_revokes_total{outcome="ok"} 1
embedkit_revokes_total{outcome="queued"} 1
`+depthHelp+`
embedkit_revoke_queue_depth 0
`, "embedkit_revokes_total", "embedkit_revoke_queue_depth")
	gatherAndCompare(t, `
# HELP embedkit_revoke_duration_seconds Duration of the platform's revoke call, retries included, by outcome; observed only when the call was made.
# TYPE embedkit_revoke_duration_seconds histogram
embedkit_revoke_duration_seconds_bucket{outcome="ok",le="0.005"} 0
embedkit_revoke_duration_seconds_bucket{outcome="ok",le="0.05"} 1
embedkit_revoke_duration_seconds_bucket{outcome="ok",le="+Inf"} 1
embedkit_revoke_duration_seconds_sum{outcome="ok"} 0.01
embedkit_revoke_duration_seconds_count{outcome="ok"} 1
embedkit_revoke_duration_seconds_bucket{outcome="queued",le="0.005"} 0
embedkit_revoke_duration_seconds_bucket{outcome="queued",le="0.05"} 1
embedkit_revoke_duration_seconds_bucket{outcome="queued",le="+Inf"} 1
embedkit_revoke_duration_seconds_sum{outcome="queued"} 0.01
embedkit_revoke_duration_seconds_count{outcome="queued"} 1
`, "embedkit_revoke_duration_seconds")
}
