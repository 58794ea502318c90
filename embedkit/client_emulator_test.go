package embedkit_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorRawRequests(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
		msg    string
	}{
		{"operation listed by path only", http.MethodGet, "/api/v1/users/me", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"data model operation listed by path only", http.MethodGet, "/build/api/v1/deployments/1/data-model/files", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"SCIM operation listed by path only", http.MethodGet, "/api/scim/v2/Users", nil, http.StatusNotImplemented, "not implemented by the emulator"},
		{"unknown path", http.MethodGet, "/api/v1/no-such-thing", nil, http.StatusNotFound, "not found"},
		{"wrong method", http.MethodDelete, "/api/v1/spec", nil, http.StatusMethodNotAllowed, "not allowed"},
		{"unknown body member", http.MethodPost, "/api/v1/deployments/1/token", map[string]any{"expiresIn": 60, "scope": "all"}, http.StatusBadRequest, "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := c.NewRequest(ctx, tt.method, tt.path, tt.body)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			var v map[string]any
			resp, err := c.Do(req, &v)
			ae := wantAPIError(t, err, tt.status, tt.msg)
			if resp == nil {
				t.Errorf("Do returned no response with its APIError, want one with status %d", tt.status)
			} else if resp.StatusCode != tt.status {
				t.Errorf("Do returned a response with status %d, want %d", resp.StatusCode, tt.status)
			}
			if ae.Method != tt.method || ae.Path != tt.path {
				t.Errorf("APIError names %s %s, want %s %s", ae.Method, ae.Path, tt.method, tt.path)
			}
			if tt.status == http.StatusNotImplemented && !errors.Is(err, embedkit.ErrServer) {
				t.Errorf("a 501 does not match ErrServer")
			}
		})
	}

	t.Run("raw call of an implemented operation", func(t *testing.T) {
		req, err := c.NewRequest(ctx, http.MethodGet, "/api/v1/deployments/1/versions", nil)
		if err != nil {
			t.Fatalf("NewRequest: %v", err)
		}
		var out struct {
			Data []embedkit.DeploymentVersion `json:"data"`
		}
		resp, err := c.Do(req, &out)
		if err != nil {
			t.Fatalf("Do: %v", err)
		}
		if resp.StatusCode != http.StatusOK || len(out.Data) != 3 {
			t.Errorf("status %d, %d versions; want 200, 3", resp.StatusCode, len(out.Data))
		}
	})

	t.Run("501 is not retried", func(t *testing.T) {
		rc := e.client(t, keyAdminAll, embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 4, MinDelay: time.Millisecond, MaxDelay: time.Millisecond}))
		before := len(e.emu.Requests())
		req, err := rc.NewRequest(ctx, http.MethodGet, "/api/v1/users/me", nil)
		if err != nil {
			t.Fatalf("NewRequest: %v", err)
		}
		_, err = rc.Do(req, nil)
		wantAPIError(t, err, http.StatusNotImplemented, "")
		if n := len(e.emu.Requests()) - before; n != 1 {
			t.Errorf("a 501 was sent %d times, want once", n)
		}
	})
}
