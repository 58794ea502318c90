package scssession_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"
	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
	"github.com/embedkit/embedkit/embedkittest"
)

// TestOIDCBackChannelLogout: oidcclaims.BackChannelLogout with
// Identity.EndingLogins(kit) as its revoker ends the logins a logout
// token names, by sub or by sid alone, and revokes their embeds; with a
// store that cannot list its sessions it answers 400, so the provider
// hears that the host's logins were not ended.
func TestOIDCBackChannelLogout(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const issuer, clientID = "https://idp.example.com", "app"
	verifier := oidc.NewVerifier(issuer, &oidc.StaticKeySet{PublicKeys: []crypto.PublicKey{key.Public()}}, &oidc.Config{ClientID: clientID})
	token := func(t *testing.T, claims map[string]any) string {
		t.Helper()
		now := time.Now()
		claims["iss"], claims["aud"], claims["iat"], claims["exp"] = issuer, clientID, now.Unix(), now.Add(2*time.Minute).Unix()
		claims["jti"] = rand.Text()
		claims["events"] = map[string]any{oidcclaims.BackChannelLogoutEvent: map[string]any{}}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("logout+jwt"))
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(claims)
		jws, err := signer.Sign(payload)
		if err != nil {
			t.Fatal(err)
		}
		s, err := jws.CompactSerialize()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	post := func(h http.Handler, tok string) int {
		req := httptest.NewRequest(http.MethodPost, "/backchannel-logout", strings.NewReader(url.Values{"logout_token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	tests := []struct {
		name   string
		claims map[string]any
	}{
		{"by sub", map[string]any{"sub": "ana"}},
		{"by sid alone", map[string]any{"sid": "sid-ana"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t, memstore.New(), inside)
			ana, ben := a.browser(), a.browser()
			a.signIn(ana, "ana", "sid-ana")
			a.signIn(ben, "ben", "sid-ben")
			for _, c := range []*http.Client{ana, ben} {
				if code := a.load(c); code != http.StatusOK {
					t.Fatalf("page: %d", code)
				}
			}
			h := oidcclaims.BackChannelLogout(verifier, a.id.EndingLogins(a.kit))
			if code := post(h, token(t, tt.claims)); code != http.StatusOK {
				t.Fatalf("back-channel logout: %d, want 200", code)
			}
			embedkittest.AssertRevoked(t, a.p, "ana")
			embedkittest.AssertLive(t, a.p, "ben")
			if code := a.load(ana); code == http.StatusOK {
				t.Error("ana still loads a page after the back-channel logout")
			}
			if code := a.load(ben); code != http.StatusOK {
				t.Errorf("ben's page after ana's back-channel logout: %d", code)
			}
		})
	}
	t.Run("a store that cannot list its sessions answers 400", func(t *testing.T) {
		a := newApp(t, noIteration{memstore.New()}, inside)
		ana := a.browser()
		a.signIn(ana, "ana", "sid-ana")
		h := oidcclaims.BackChannelLogout(verifier, a.id.EndingLogins(a.kit))
		if code := post(h, token(t, map[string]any{"sub": "ana"})); code != http.StatusBadRequest {
			t.Errorf("back-channel logout on a store without All: %d, want 400", code)
		}
	})
}
