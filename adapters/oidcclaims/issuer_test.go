package oidcclaims_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"github.com/embedkit/embedkit/internal/testkit"
)

const testClientID = "embedkit-host"

// testIssuer is an OpenID provider in the test process: discovery, a JWKS
// with one RS256 key, and token signing.
type testIssuer struct {
	t   *testing.T
	URL string
	key *rsa.PrivateKey
	kid string
	// provider is the relying party's view of the issuer.
	provider func() *oidc.Provider

	mu       sync.Mutex
	userInfo string // the /userinfo response body
}

// setUserInfo sets the body the user info endpoint answers.
func (iss *testIssuer) setUserInfo(body string) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.userInfo = body
}

// fetchUserInfo sets the body the user info endpoint answers and asks it,
// as a relying party does with an access token.
func (iss *testIssuer) fetchUserInfo(t *testing.T, body string) *oidc.UserInfo {
	t.Helper()
	iss.setUserInfo(body)
	ctx := oidc.ClientContext(t.Context(), http.DefaultClient)
	u, err := iss.provider().UserInfo(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at"}))
	if err != nil {
		t.Fatalf("UserInfo: %v", err)
	}
	return u
}

type fakeClock = testkit.Clock

func newFakeClock() *fakeClock {
	return testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

// newTestIssuer starts an issuer and returns it with a verifier for
// testClientID whose expiry check uses clock.
func newTestIssuer(t *testing.T, clock *fakeClock) (*testIssuer, *oidc.IDTokenVerifier) {
	t.Helper()
	key := newRSAKey(t)
	var provider *oidc.Provider
	iss := &testIssuer{t: t, key: key, kid: "test-key-1"}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.URL = srv.URL
	iss.provider = func() *oidc.Provider { return provider }
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                iss.URL,
			"authorization_endpoint":                iss.URL + "/authorize",
			"token_endpoint":                        iss.URL + "/token",
			"jwks_uri":                              iss.URL + "/keys",
			"userinfo_endpoint":                     iss.URL + "/userinfo",
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"backchannel_logout_supported":          true,
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: &key.PublicKey, KeyID: iss.kid, Algorithm: "RS256", Use: "sig",
		}}})
	})
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		iss.mu.Lock()
		body := iss.userInfo
		iss.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	})
	ctx := oidc.ClientContext(context.Background(), srv.Client())
	p, err := oidc.NewProvider(ctx, srv.URL)
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	provider = p
	v := p.VerifierContext(ctx, &oidc.Config{ClientID: testClientID, Now: clock.Now})
	return iss, v
}

var (
	rsaKeyOnce sync.Once
	rsaKeys    [2]*rsa.PrivateKey
)

// newRSAKey returns one of two process-wide keys: the issuer's, then a
// stranger's, so that tests do not spend time generating keys.
func newRSAKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	rsaKeyOnce.Do(func() {
		for i := range rsaKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			rsaKeys[i] = k
		}
	})
	return rsaKeys[0]
}

func strangerKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	newRSAKey(t)
	return rsaKeys[1]
}

// sign signs claims with key under the issuer's key id and the given JOSE
// typ ("" leaves typ out).
func (iss *testIssuer) sign(key *rsa.PrivateKey, typ string, claims map[string]any) string {
	iss.t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: jose.RS256,
		Key:       jose.JSONWebKey{Key: key, KeyID: iss.kid},
	}, opts)
	if err != nil {
		iss.t.Fatalf("signer: %v", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		iss.t.Fatalf("claims: %v", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		iss.t.Fatalf("sign: %v", err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		iss.t.Fatalf("serialize: %v", err)
	}
	return s
}

// unsigned builds a token with the given header and claims and a junk
// signature, for alg none and HS256 cases.
func unsigned(t *testing.T, header, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return strings.Join([]string{enc(header), enc(claims), base64.RawURLEncoding.EncodeToString([]byte("sig"))}, ".")
}
