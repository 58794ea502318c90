package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// limitMetrics counts mints by outcome.
type limitMetrics struct {
	NopMetrics
	mu  sync.Mutex
	got map[Outcome]int
}

func (m *limitMetrics) Mint(o Outcome, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.got == nil {
		m.got = map[Outcome]int{}
	}
	m.got[o]++
}

func (m *limitMetrics) count(o Outcome) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.got[o]
}

// TestMintLimit: through HTTP, one viewer's mints beyond Config.MintLimit
// answer 429 with Retry-After and reach neither the platform nor the
// store, on the frame endpoint and the JSON endpoint alike; another
// viewer is not affected; the viewer mints again once the wait is over;
// refusals are counted as OutcomeLimited.
func TestMintLimit(t *testing.T) {
	var offset atomic.Int64 // nanoseconds added to testNow
	clock := func() time.Time { return testNow.Add(time.Duration(offset.Load())) }
	tests := []struct {
		name       string
		limit      MintLimitOptions
		allowed    int    // mints that pass at once
		retryAfter string // of the first refusal
		refill     time.Duration
	}{
		{"a small limit", MintLimitOptions{Burst: 3, Interval: 10 * time.Second}, 3, "10", 10 * time.Second},
		{"the default", MintLimitOptions{}, DefaultMintBurst, "2", DefaultMintInterval},
		{"a fraction of a second is rounded up", MintLimitOptions{Burst: 2, Interval: 300 * time.Millisecond}, 2, "1", 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offset.Store(0)
			metrics := &limitMetrics{}
			tk := newTestKit(t, func(c *Config) { c.MintLimit, c.Metrics, c.Now = tt.limit, metrics, clock })
			mux := http.NewServeMux()
			mux.Handle("GET /embed/frame/", tk.FrameHandler())
			mux.Handle("POST /embed/session", tk.SessionHandler())
			srv := httptest.NewServer(mux)
			defer srv.Close()
			c := srv.Client()
			c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			get := func(user string) *http.Response {
				t.Helper()
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/embed/frame/sales", nil)
				req.Header.Set("X-User", user)
				req.Header.Set("X-Session", "hs-"+user)
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp
			}
			post := func(user string) *http.Response {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/embed/session", strings.NewReader(`{"target":"sales"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-User", user)
				req.Header.Set("X-Session", "hs-2-"+user)
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp
			}
			for i := range tt.allowed {
				if resp := get("ana"); resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("mint %d of %d: %d, want 303", i+1, tt.allowed, resp.StatusCode)
				}
			}
			resp := get("ana")
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != tt.retryAfter {
				t.Errorf("mint %d: %d with Retry-After %q, want 429 with %q", tt.allowed+1, resp.StatusCode, resp.Header.Get("Retry-After"), tt.retryAfter)
			}
			// Another host session of the same user shares the limit.
			if resp := post("ana"); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
				t.Errorf("JSON mint over the limit: %d with Retry-After %q, want 429", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			if n := len(tk.platform.mintedIDs()); n != tt.allowed {
				t.Errorf("%d sessions minted on the platform, want %d", n, tt.allowed)
			}
			if n := metrics.count(OutcomeLimited); n != 2 {
				t.Errorf("%d mints counted as %q, want 2", n, OutcomeLimited)
			}
			if !strings.Contains(tk.logs.String(), `"outcome":"limited"`) {
				t.Errorf("the refusal is not logged:\n%s", tk.logs.String())
			}
			if resp := get("ben"); resp.StatusCode != http.StatusSeeOther {
				t.Errorf("another viewer: %d, want 303", resp.StatusCode)
			}
			offset.Add(int64(tt.refill))
			if resp := get("ana"); resp.StatusCode != http.StatusSeeOther {
				t.Errorf("after the wait: %d, want 303", resp.StatusCode)
			}
			if resp := get("ana"); resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("a second mint after one interval: %d, want 429", resp.StatusCode)
			}
		})
	}
}

// TestMintLimitOff: with MintLimit.Off, a viewer mints as often as it
// asks.
func TestMintLimitOff(t *testing.T) {
	tk := newTestKit(t, func(c *Config) { c.MintLimit.Off = true })
	for i := range DefaultMintBurst + 50 {
		if w := serve(tk.FrameHandler(), request(http.MethodGet, "/embed/frame/sales", "ana")); w.Code != http.StatusSeeOther {
			t.Fatalf("mint %d: %d, want 303", i+1, w.Code)
		}
	}
}

func TestMintLimitConfig(t *testing.T) {
	tests := []struct {
		name  string
		limit MintLimitOptions
		want  string
	}{
		{"negative burst", MintLimitOptions{Burst: -1}, "Config.MintLimit.Burst"},
		{"negative interval", MintLimitOptions{Interval: -time.Second}, "Config.MintLimit.Interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Config{Platform: &fakePlatform{}, Identity: headerIdentity, Store: newMapStore(), Policy: Policy{DeploymentID: 1},
				PlatformURL: "https://acme.example.com", MintLimit: tt.limit})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

// TestMintLimiterPrunes: buckets that have filled up again are dropped,
// so the limiter holds only viewers who minted lately.
func TestMintLimiterPrunes(t *testing.T) {
	l := newMintLimiter(MintLimitOptions{Burst: 2, Interval: time.Second})
	const old = 3 * minPruneSize
	for i := range old {
		l.take("old-"+time.Duration(i).String(), testNow)
	}
	later := testNow.Add(10 * time.Second) // every old bucket is full again
	for i := 0; len(l.buckets) >= old; i++ {
		if i > 10*old {
			t.Fatalf("%d buckets after %d more takes: full buckets are never dropped", len(l.buckets), i)
		}
		l.take("late-"+time.Duration(i).String(), later)
	}
	for k := range l.buckets {
		if strings.HasPrefix(k, "old-") {
			t.Fatalf("the full bucket %s was kept", k)
		}
	}
}
