package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// TestServeError answers each way a server-rendered page's FrameURL fails,
// as the frame endpoint answers the same failure.
func TestServeError(t *testing.T) {
	sales := Target{Kind: KindDashboard, PublicID: "dash-sales"}
	navigate := func(r *http.Request) {
		r.Header.Set("Sec-Fetch-Mode", "navigate")
		r.Header.Set("Sec-Fetch-Dest", "document")
	}
	tests := []struct {
		name       string
		login      string
		user       string
		prepare    func(*http.Request)
		platform   error
		handler    bool // a Config.ErrorHandler that names FailureReason
		wantStatus int
		wantHeader map[string]string
		wantBody   string
	}{
		{name: "signed out, a page load, Paths.Login set", login: "/login", prepare: navigate,
			wantStatus: http.StatusSeeOther, wantHeader: map[string]string{"Location": "/login?next=%2Freports%2Fsales%3Fq%3D1"}},
		{name: "signed out, no Paths.Login", prepare: navigate,
			wantStatus: http.StatusUnauthorized, wantBody: "Please sign in"},
		{name: "signed out, a script's request", login: "/login",
			prepare:    func(r *http.Request) { r.Header.Set("Sec-Fetch-Mode", "cors"); r.Header.Set("Sec-Fetch-Dest", "empty") },
			wantStatus: http.StatusUnauthorized, wantBody: "Please sign in"},
		{name: "platform down", user: "ana", prepare: navigate, platform: fmt.Errorf("mint: %w", embedkit.ErrServer),
			wantStatus: http.StatusServiceUnavailable, wantHeader: map[string]string{"Retry-After": "30"}, wantBody: "temporarily unavailable"},
		{name: "platform refuses the key", user: "ana", prepare: navigate, platform: fmt.Errorf("mint: %w", embedkit.ErrForbidden),
			wantStatus: http.StatusForbidden, wantBody: "do not have access"},
		{name: "the ErrorHandler answers", user: "ana", prepare: navigate, platform: fmt.Errorf("mint: %w", embedkit.ErrServer), handler: true,
			wantStatus: http.StatusServiceUnavailable, wantHeader: map[string]string{"Retry-After": "30"}, wantBody: "handler: outcome unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk := newTestKit(t, func(c *Config) {
				c.Paths.Login = tc.login
				if tc.handler {
					c.ErrorHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						status, _ := ErrorStatus(FailureReason(r))
						w.WriteHeader(status)
						fmt.Fprintf(w, "handler: outcome %s", OutcomeOf(FailureReason(r)))
					})
				}
			})
			tk.platform.generateErr = tc.platform
			r := request(http.MethodGet, "/reports/sales?q=1", tc.user)
			if tc.prepare != nil {
				tc.prepare(r)
			}
			w := httptest.NewRecorder()
			w.Header().Set("Cache-Control", "public, max-age=60") // the page's own, before the mint
			src, err := tk.FrameURL(w, r, sales)
			if err == nil {
				t.Fatalf("FrameURL = %q, want an error", src)
			}
			tk.ServeError(w, r, err)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %q", w.Code, tc.wantStatus, w.Body)
			}
			if got := w.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			for k, v := range tc.wantHeader {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(w.Body.String(), tc.wantBody) {
				t.Errorf("body %q, want it to contain %q", w.Body, tc.wantBody)
			}
		})
	}
}

// TestServeErrorNil answers a host's nil error as the host's own
// misconfiguration, not as success.
func TestServeErrorNil(t *testing.T) {
	tk := newTestKit(t, nil)
	var got error
	tk.cfg.ErrorHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = FailureReason(r)
		w.WriteHeader(http.StatusInternalServerError)
	})
	w := httptest.NewRecorder()
	tk.ServeError(w, request(http.MethodGet, "/reports", "ana"), nil)
	if w.Code != http.StatusInternalServerError || !errors.Is(got, ErrMisconfigured) || !strings.Contains(got.Error(), "nil error") {
		t.Errorf("status %d, reason %v; want 500 and ErrMisconfigured naming the nil error", w.Code, got)
	}
}
