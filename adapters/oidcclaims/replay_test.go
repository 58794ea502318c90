package oidcclaims

import (
	"encoding/base64"
	"fmt"
	"testing"
	"time"
)

func TestReplayCache(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	clock := func() time.Time { return now }
	tests := []struct {
		name string
		run  func(t *testing.T, c *replayCache)
	}{
		{"second add refused", func(t *testing.T, c *replayCache) {
			if !c.add("a", t0.Add(time.Minute)) {
				t.Fatal("first add refused")
			}
			if c.add("a", t0.Add(time.Minute)) {
				t.Fatal("second add accepted")
			}
		}},
		{"forgotten after expiry", func(t *testing.T, c *replayCache) {
			c.add("a", t0.Add(time.Minute))
			now = t0.Add(time.Minute)
			if c.len() != 1 {
				t.Fatalf("len = %d before the next add, want 1", c.len())
			}
			if !c.add("b", t0.Add(2*time.Minute)) {
				t.Fatal("add b refused")
			}
			if c.len() != 1 {
				t.Fatalf("len = %d, want 1: expired id kept", c.len())
			}
		}},
		{"removed id can be added again", func(t *testing.T, c *replayCache) {
			c.add("a", t0.Add(time.Minute))
			c.remove("a")
			if !c.add("a", t0.Add(time.Minute)) {
				t.Fatal("add after remove refused")
			}
		}},
		{"full cache evicts the soonest expiry", func(t *testing.T, c *replayCache) {
			for i := range 4 {
				c.add(fmt.Sprint("id", i), t0.Add(time.Duration(10-i)*time.Minute))
			}
			// Cache size 4: adding a fifth evicts id3, which expires first.
			if !c.add("id4", t0.Add(time.Hour)) {
				t.Fatal("add to full cache refused")
			}
			if c.len() != 4 {
				t.Fatalf("len = %d, want 4", c.len())
			}
			if !c.add("id3", t0.Add(time.Hour)) {
				t.Error("id3 still remembered; want it evicted")
			}
			if c.add("id0", t0.Add(time.Hour)) {
				t.Error("id0 forgotten; want it kept")
			}
		}},
		{"remove churn keeps the heap bounded", func(t *testing.T, c *replayCache) {
			for i := range 100 {
				id := fmt.Sprint("id", i)
				c.add(id, t0.Add(time.Hour))
				c.remove(id)
			}
			if len(c.q) > 2*c.max+1 {
				t.Errorf("heap holds %d entries for max %d", len(c.q), c.max)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = t0
			tt.run(t, newReplayCache(4, clock))
		})
	}
}

func TestCheckLogoutTyp(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		wantErr bool
	}{
		{"logout+jwt", `{"alg":"RS256","typ":"logout+jwt"}`, false},
		{"application/logout+jwt", `{"alg":"RS256","typ":"application/logout+jwt"}`, false},
		{"mixed case", `{"alg":"RS256","typ":"Logout+JWT"}`, false},
		{"JWT", `{"alg":"RS256","typ":"JWT"}`, true},
		{"no typ", `{"alg":"RS256"}`, true},
		{"typ a number", `{"alg":"RS256","typ":1}`, true},
		{"header not JSON", `not json`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := base64.RawURLEncoding.EncodeToString([]byte(tt.header)) + ".e30.c2ln"
			if err := checkLogoutTyp(raw); (err != nil) != tt.wantErr {
				t.Errorf("checkLogoutTyp = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
