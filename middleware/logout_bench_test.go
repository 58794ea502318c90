package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// revokeLatency is the latency the emulator adds to every revoke in the
// logout benchmarks, standing in for a platform across the internet.
const revokeLatency = 20 * time.Millisecond

// revokeCounter counts successful revokes.
type revokeCounter struct {
	middleware.NopMetrics
	ok atomic.Int64
}

func (c *revokeCounter) Revoke(o middleware.Outcome, _ time.Duration) {
	if o == middleware.OutcomeOK {
		c.ok.Add(1)
	}
}

// benchLogout measures the logout of a host session that minted sessions
// embeds, with the emulator taking revokeLatency to answer each revoke.
// The embeds are minted through the frame endpoint with the timer
// stopped; only the logout request is timed. concurrency is
// Config.Revoke.Concurrency (0 is the default).
func benchLogout(b *testing.B, sessions, concurrency int) {
	p := newBenchPlatform(b)
	p.em.InjectFault(emulator.Fault{
		Method: http.MethodPost,
		Path:   "/api/v1/embed/session/revoke",
		Delay:  revokeLatency, // Status 0: answered normally after the delay
	})
	h := newBenchHost()
	metrics := &revokeCounter{}
	k, store := newBenchKit(b, p, h, func(c *middleware.Config) {
		c.Revoke.Concurrency = concurrency
		c.Metrics = metrics
	})
	frame := k.FrameHandler()
	hostLogout := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.identity.Clear(w, r); err != nil {
			http.Error(w, "logout failed", http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	logout := k.Logout(hostLogout)
	c := h.cookie(b, benchViewer(0))
	frameTmpl := frameRequest(c)
	logoutTmpl := httptest.NewRequest(http.MethodPost, "https://host.example/logout", nil)
	logoutTmpl.Header.Set("Origin", "https://host.example")
	logoutTmpl.Header.Set("Sec-Fetch-Site", "same-origin")
	logoutTmpl.AddCookie(c)

	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for range sessions {
			serveFrame(b, frame, frameTmpl)
		}
		b.StartTimer()
		w := httptest.NewRecorder()
		logout.ServeHTTP(w, loadRequest(logoutTmpl))
		if w.Code != http.StatusSeeOther {
			b.Fatalf("logout: status %d, body %q", w.Code, w.Body)
		}
	}
	if want := int64(b.N * sessions); metrics.ok.Load() != want {
		b.Fatalf("%d sessions revoked, want %d", metrics.ok.Load(), want)
	}
	if n, err := store.Pending(b.Context()); err != nil || n != 0 {
		b.Fatalf("%d revokes queued for retry (%v), want none", n, err)
	}
}

// BenchmarkLogout measures a logout that revokes 1 and 50 sessions, each
// revoke taking revokeLatency, with the default Revoke.Concurrency. The
// revokes run concurrently, DefaultRevokeConcurrency (64) at a time, so
// 50 sessions take about one revoke latency, like 1.
func BenchmarkLogout(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) { benchLogout(b, n, 0) })
	}
}
