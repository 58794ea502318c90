package middleware

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// jsonRequest builds a same-origin POST to the session endpoint.
func jsonRequest(body, user string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://host.example/embed/session", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Origin", "http://host.example")
	if user != "" {
		r.Header.Set("X-User", user)
		r.Header.Set("X-Session", "hs-"+user)
	}
	return r
}

func TestSessionHandler(t *testing.T) {
	tk := newTestKit(t, nil)
	w := serve(tk.SessionHandler(), jsonRequest(`{"target":"sales","locale":"ja","timezone":"Asia/Tokyo"}`, "ana"))
	if w.Code != http.StatusOK {
		t.Fatalf("status %d body %q", w.Code, w.Body)
	}
	if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", w.Header())
	}
	var got struct {
		URL       string    `json:"url"`
		SessionID string    `json:"sessionId"`
		ExpiresAt time.Time `json:"expiresAt"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	ids := tk.platform.mintedIDs()
	if len(ids) != 1 || got.SessionID != ids[0] || !strings.Contains(got.URL, "session="+ids[0]) {
		t.Errorf("answer does not carry the minted id")
	}
	if !strings.Contains(got.URL, "locale=ja-JP") || !strings.Contains(got.URL, "timezone=Asia%2FTokyo") {
		t.Errorf("url %q lacks the chosen locale or zone", strings.ReplaceAll(got.URL, ids[0], "…"))
	}
	if got.ExpiresAt.IsZero() {
		t.Error("expiresAt missing")
	}
}

func TestSessionHandlerRefusals(t *testing.T) {
	tk := newTestKit(t, nil)
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"GET", func() *http.Request {
			r := jsonRequest("", "ana")
			r.Method = http.MethodGet
			return r
		}, 405},
		{"cross-site", func() *http.Request {
			r := jsonRequest(`{"target":"sales"}`, "ana")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			r.Header.Set("Origin", "https://evil.example")
			return r
		}, 403},
		{"foreign origin without fetch metadata", func() *http.Request {
			r := jsonRequest(`{"target":"sales"}`, "ana")
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Set("Origin", "https://evil.example")
			return r
		}, 403},
		{"identity in the body", func() *http.Request { return jsonRequest(`{"target":"sales","externalId":"admin"}`, "ana") }, 400},
		{"groups in the body", func() *http.Request { return jsonRequest(`{"target":"sales","groups":["admins"]}`, "ana") }, 400},
		{"not JSON", func() *http.Request { return jsonRequest(`target=sales`, "ana") }, 400},
		{"trailing data", func() *http.Request { return jsonRequest(`{"target":"sales"} {}`, "ana") }, 400},
		{"too large", func() *http.Request {
			return jsonRequest(`{"target":"`+strings.Repeat("a", 2000)+`"}`, "ana")
		}, 400},
		{"unknown target", func() *http.Request { return jsonRequest(`{"target":"hr"}`, "ana") }, 404},
		{"no viewer", func() *http.Request { return jsonRequest(`{"target":"sales"}`, "") }, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(tk.SessionHandler(), tt.req())
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d; body %q", w.Code, tt.status, w.Body)
			}
			var body map[string]string
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body["error"] == "" {
				t.Errorf("error body %q is not {\"error\": ...}", w.Body)
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Error("error answer is cacheable")
			}
		})
	}
	if n := len(tk.platform.mintedIDs()); n != 0 {
		t.Errorf("%d sessions minted by refused requests", n)
	}
}

func TestSessionHandlerTrustedOrigin(t *testing.T) {
	tk := newTestKit(t, func(c *Config) { c.Origins.Trusted = []string{"https://app.example.com"} })
	r := jsonRequest(`{"target":"chat"}`, "ana")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.Header.Set("Origin", "https://app.example.com")
	if w := serve(tk.SessionHandler(), r); w.Code != http.StatusOK {
		t.Fatalf("trusted origin refused: %d", w.Code)
	}
}
