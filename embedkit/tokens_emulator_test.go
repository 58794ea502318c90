package embedkit_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorTokens(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	metaTests := []struct {
		name string
		req  embedkit.MetaTokenRequest
		want time.Duration
	}{
		{"default lifetime", embedkit.MetaTokenRequest{SecurityContext: map[string]any{}}, 86400 * time.Second},
		{"ten minutes", embedkit.MetaTokenRequest{SecurityContext: map[string]any{"tenant": "globex"}, ExpiresIn: 600}, 10 * time.Minute},
	}
	for _, tt := range metaTests {
		t.Run("meta token "+tt.name, func(t *testing.T) {
			tok, err := c.CreateMetaToken(ctx, 1, "env-prod", &tt.req)
			if err != nil {
				t.Fatalf("CreateMetaToken: %v", err)
			}
			if !tok.CreatedAt.Equal(emuStart) {
				t.Errorf("created_at = %v, want %v", tok.CreatedAt, emuStart)
			}
			if got := tok.ExpiresAt.Sub(tok.CreatedAt); got != tt.want {
				t.Errorf("expires_at − created_at = %v, want %v", got, tt.want)
			}
			if got := lifetime(t, tok.Token); got != int64(tt.want/time.Second) {
				t.Errorf("token lifetime = %ds, want %v", got, tt.want)
			}
			if strings.Contains(tok.String(), tok.Token) {
				t.Errorf("MetaToken.String prints the token")
			}
		})
	}

	dataTests := []struct {
		name string
		req  *embedkit.DataAPITokenRequest
		want int64
	}{
		{"no body", nil, 86400},
		{"lower bound", &embedkit.DataAPITokenRequest{ExpiresIn: 60}, 60},
		{"upper bound", &embedkit.DataAPITokenRequest{ExpiresIn: 86400}, 86400},
		{"default", &embedkit.DataAPITokenRequest{}, 86400},
	}
	for _, tt := range dataTests {
		t.Run("data token "+tt.name, func(t *testing.T) {
			tok, err := c.CreateDataAPIToken(ctx, 1, tt.req)
			if err != nil {
				t.Fatalf("CreateDataAPIToken: %v", err)
			}
			if got := lifetime(t, tok.Token); got != tt.want {
				t.Errorf("token lifetime = %ds, want %ds", got, tt.want)
			}
			if strings.Contains(tok.String(), tok.Token) {
				t.Errorf("DataAPIToken.String prints the token")
			}
		})
	}

	t.Run("data token survives session revocation", func(t *testing.T) {
		tok, err := c.CreateDataAPIToken(ctx, 1, nil)
		if err != nil {
			t.Fatalf("CreateDataAPIToken: %v", err)
		}
		s := e.mustSession(t, c, "data-user")
		if err := c.RevokeSession(ctx, s.SessionID); err != nil {
			t.Fatalf("RevokeSession: %v", err)
		}
		// A data token is not an embed token: it never authenticates a
		// management call.
		err = e.client(t, tok.Token).RevokeSession(ctx, s.SessionID)
		wantAPIError(t, err, http.StatusUnauthorized, "invalid credential")
	})

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"meta token for an unknown environment", func() error {
			_, err := c.CreateMetaToken(ctx, 1, "env-nope", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		}, http.StatusNotFound, "environment env-nope"},
		{"meta token outside the key's scope", func() error {
			_, err := e.client(t, keyAdminD1).CreateMetaToken(ctx, 2, "env-prod", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		}, http.StatusForbidden, "not scoped"},
		{"data token for an unknown deployment", func() error {
			_, err := c.CreateDataAPIToken(ctx, 77, nil)
			return err
		}, http.StatusNotFound, "deployment 77"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad lifetimes before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.CreateDataAPIToken(ctx, 1, &embedkit.DataAPITokenRequest{ExpiresIn: 59})
		wantValidation(t, err, "expiresIn")
		_, err = c.CreateDataAPIToken(ctx, 1, &embedkit.DataAPITokenRequest{ExpiresIn: 86401})
		wantValidation(t, err, "expiresIn")
		_, err = c.CreateMetaToken(ctx, 1, "env-prod", &embedkit.MetaTokenRequest{})
		wantValidation(t, err, "security_context")
		_, err = c.CreateMetaToken(ctx, 1, "env-prod", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}, ExpiresIn: -1})
		wantValidation(t, err, "expires_in")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
		// The emulator agrees on the bounds when sent them directly.
		for _, v := range []int{59, 86401} {
			hreq, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/deployments/1/token", map[string]int{"expiresIn": v})
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			_, err = c.Do(hreq, nil)
			wantAPIError(t, err, http.StatusBadRequest, "expiresIn")
		}
	})
}
