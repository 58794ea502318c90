package oidcclaims_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/embedkit/embedkit/adapters/oidcclaims"
)

// keyServer serves a JWK Set that tests change, and counts its fetches.
type keyServer struct {
	*httptest.Server
	fetches atomic.Int64

	mu   sync.Mutex
	body string // the answer; status 200 unless status is set
	code int
}

func newKeyServer(t *testing.T, keys ...jose.JSONWebKey) *keyServer {
	t.Helper()
	ks := &keyServer{}
	ks.setKeys(t, keys...)
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.fetches.Add(1)
		ks.mu.Lock()
		body, code := ks.body, ks.code
		ks.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if code != 0 {
			w.WriteHeader(code)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(ks.Close)
	return ks
}

// setKeys makes the server answer keys.
func (ks *keyServer) setKeys(t *testing.T, keys ...jose.JSONWebKey) {
	t.Helper()
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
	if err != nil {
		t.Fatalf("key set: %v", err)
	}
	ks.setAnswer(0, string(b))
}

// setAnswer makes the server answer code (0 for 200) and body.
func (ks *keyServer) setAnswer(code int, body string) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.code, ks.body = code, body
}

// keySet returns a KeySet on ks's keys with clock and interval.
func (ks *keyServer) keySet(clock *fakeClock, interval time.Duration) *oidcclaims.KeySet {
	return oidcclaims.NewKeySet(ks.URL+"/keys", oidcclaims.KeySetConfig{
		Client: ks.Client(), RefreshInterval: interval, Now: clock.Now,
	})
}

// signJWS signs claims as a logout+jwt with key under kid ("" leaves kid
// out).
func signJWS(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("logout+jwt"))
	if err != nil {
		t.Fatalf("signer: %v", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatalf("claims: %v", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatalf("serialize: %v", err)
	}
	return s
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("key: %v", err)
	}
	return k
}

// forgedTokens returns n tokens an attacker can make without a key: unknown
// kids, the provider's own kid, no kid, with junk signatures, and a few
// really signed by a stranger's key.
func forgedTokens(t *testing.T, issuer, knownKid string, now time.Time, n int) []string {
	t.Helper()
	iss := &testIssuer{t: t, URL: issuer}
	out := make([]string, n)
	for i := range out {
		claims := logoutClaims(iss, now, fmt.Sprintf("forged-%d", i))
		hdr := map[string]any{"alg": "RS256", "typ": "logout+jwt"}
		switch i % 4 {
		case 0:
			hdr["kid"] = fmt.Sprintf("unknown-%d", i)
		case 1:
			hdr["kid"] = knownKid
		case 2: // no kid
		case 3:
			if i < 16 {
				out[i] = signJWS(t, jose.RS256, strangerKey(t), fmt.Sprintf("stranger-%d", i), claims)
				continue
			}
			hdr["kid"] = knownKid
		}
		out[i] = unsigned(t, hdr, claims)
	}
	return out
}

// TestBackChannelLogoutKeyFetchLimit floods the handler with forged tokens
// and counts the fetches of the provider's key set: at most one per
// interval, while a key rotated in at the provider is accepted once the
// interval has passed.
func TestBackChannelLogoutKeyFetchLimit(t *testing.T) {
	const (
		flood      = 200
		maxFetches = 2 // the first fetch, and one more at most
	)
	tests := []struct {
		name     string
		interval time.Duration // 0: the default
		wait     time.Duration // the interval in effect
	}{
		{"default interval", 0, oidcclaims.DefaultKeyRefreshInterval},
		{"one minute", time.Minute, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			oldKey, newKey := newRSAKey(t), newECKey(t)
			srv := newKeyServer(t, jose.JSONWebKey{Key: &oldKey.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"})
			verifier := oidc.NewVerifier(srv.URL, srv.keySet(clock, tt.interval), &oidc.Config{
				ClientID: testClientID, SupportedSigningAlgs: []string{"RS256", "ES256"}, Now: clock.Now,
			})
			rev := &recordingRevoker{}
			h := oidcclaims.BackChannelLogout(verifier, rev, oidcclaims.WithClock(clock.Now), quiet())
			iss := &testIssuer{t: t, URL: srv.URL}
			post := func(token string) int { return postLogout(t, h, token).Code }
			// postFlood sends n forged tokens, half one after the other,
			// half at once, and checks that each is refused.
			postFlood := func() {
				t.Helper()
				tokens := forgedTokens(t, srv.URL, "k1", clock.Now(), flood)
				var accepted atomic.Int64
				for _, tok := range tokens[:flood/2] {
					if post(tok) != http.StatusBadRequest {
						accepted.Add(1)
					}
				}
				var wg sync.WaitGroup
				for _, tok := range tokens[flood/2:] {
					wg.Go(func() {
						if post(tok) != http.StatusBadRequest {
							accepted.Add(1)
						}
					})
				}
				wg.Wait()
				if n := accepted.Load(); n != 0 {
					t.Fatalf("%d forged tokens not refused with 400", n)
				}
			}

			if got := post(signJWS(t, jose.RS256, oldKey, "k1", logoutClaims(iss, clock.Now(), "genuine-1"))); got != http.StatusOK {
				t.Fatalf("genuine token: status = %d, want 200", got)
			}
			postFlood()
			if n := srv.fetches.Load(); n > maxFetches {
				t.Fatalf("%d forged tokens caused %d key set fetches, want at most %d", flood, n, maxFetches)
			}

			// The provider rotates to a new key. Within the interval of the
			// last fetch, a token signed with it is refused without a fetch.
			srv.setKeys(t, jose.JSONWebKey{Key: &newKey.PublicKey, KeyID: "k2", Algorithm: "ES256", Use: "sig"})
			before := srv.fetches.Load()
			clock.Advance(tt.wait - time.Second)
			if got := post(signJWS(t, jose.ES256, newKey, "k2", logoutClaims(iss, clock.Now(), "genuine-2"))); got != http.StatusBadRequest {
				t.Fatalf("rotated key within the interval: status = %d, want 400", got)
			}
			if n := srv.fetches.Load(); n != before {
				t.Fatalf("fetches = %d within the interval, want %d", n, before)
			}
			// Once the interval has passed, the next token fetches the
			// new key set.
			clock.Advance(time.Second)
			if got := post(signJWS(t, jose.ES256, newKey, "k2", logoutClaims(iss, clock.Now(), "genuine-3"))); got != http.StatusOK {
				t.Fatalf("rotated key after the interval: status = %d, want 200", got)
			}
			if n := srv.fetches.Load(); n != before+1 {
				t.Fatalf("fetches = %d after the interval, want %d", n, before+1)
			}
			// And a flood right after costs nothing more.
			before = srv.fetches.Load()
			postFlood()
			if n := srv.fetches.Load(); n != before {
				t.Fatalf("flood after the rotation: fetches = %d, want %d", n, before)
			}
			if got := rev.revoked(); len(got) != 2 {
				t.Errorf("revoked %q, want two genuine logouts", got)
			}
		})
	}
}

// TestKeySetKeySelection checks which keys of a set verify which tokens.
func TestKeySetKeySelection(t *testing.T) {
	rsaKey, ecKey := newRSAKey(t), newECKey(t)
	claims := map[string]any{"sub": "user-42"}
	tests := []struct {
		name    string
		keys    []jose.JSONWebKey
		token   func(t *testing.T) string
		ok      bool
		fetches int64 // fetches the verification causes
	}{
		{"kid matches", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a", Algorithm: "RS256", Use: "sig"}},
			func(t *testing.T) string { return signJWS(t, jose.RS256, rsaKey, "a", claims) }, true, 1},
		{"no kid tries every key", []jose.JSONWebKey{
			{Key: &ecKey.PublicKey, KeyID: "x"}, {Key: &rsaKey.PublicKey, KeyID: "y"}},
			func(t *testing.T) string { return signJWS(t, jose.RS256, rsaKey, "", claims) }, true, 1},
		{"a private key in the set verifies by its public half", []jose.JSONWebKey{{Key: ecKey, KeyID: "e"}},
			func(t *testing.T) string { return signJWS(t, jose.ES256, ecKey, "e", claims) }, true, 1},
		{"kid differs", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a"}},
			func(t *testing.T) string { return signJWS(t, jose.RS256, rsaKey, "b", claims) }, false, 1},
		{"key for encryption", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a", Use: "enc"}},
			func(t *testing.T) string { return signJWS(t, jose.RS256, rsaKey, "a", claims) }, false, 1},
		{"key for another alg", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a", Algorithm: "PS256"}},
			func(t *testing.T) string { return signJWS(t, jose.RS256, rsaKey, "a", claims) }, false, 1},
		{"HS256 signed with a shared key", []jose.JSONWebKey{{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "s"}},
			func(t *testing.T) string {
				return signJWS(t, jose.HS256, []byte("0123456789abcdef0123456789abcdef"), "s", claims)
			}, false, 0},
		{"alg none", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a"}},
			func(t *testing.T) string { return unsigned(t, map[string]any{"alg": "none", "kid": "a"}, claims) }, false, 0},
		{"JSON serialisation", []jose.JSONWebKey{{Key: &rsaKey.PublicKey, KeyID: "a"}},
			func(t *testing.T) string { return `{"payload":"e30","signatures":[]}` }, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newKeyServer(t, tt.keys...)
			ks := srv.keySet(newFakeClock(), 0)
			payload, err := ks.VerifySignature(context.Background(), tt.token(t))
			if tt.ok && (err != nil || !strings.Contains(string(payload), "user-42")) {
				t.Errorf("VerifySignature = %q, %v; want the payload", payload, err)
			}
			if !tt.ok && err == nil {
				t.Errorf("VerifySignature succeeded, want an error")
			}
			if n := srv.fetches.Load(); n != tt.fetches {
				t.Errorf("fetches = %d, want %d", n, tt.fetches)
			}
		})
	}
}

// TestKeySetFetchFailure checks that a failed fetch counts as a fetch, keeps
// the keys it had, and is tried again after the interval only.
func TestKeySetFetchFailure(t *testing.T) {
	key := newRSAKey(t)
	good := jose.JSONWebKey{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256"}
	tests := []struct {
		name string
		code int
		body string
	}{
		{"server error", http.StatusInternalServerError, `{"error":"down"}`},
		{"not JSON", 0, `<html>maintenance</html>`},
		{"no keys member", 0, `{"jwks":[]}`},
		{"too large", 0, `{"keys":[],"pad":"` + strings.Repeat("x", 1<<20) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			srv := newKeyServer(t)
			srv.setAnswer(tt.code, tt.body)
			ks := srv.keySet(clock, 0)
			token := signJWS(t, jose.RS256, key, "k1", map[string]any{"sub": "user-42"})
			ctx := context.Background()
			for i := range 3 {
				if _, err := ks.VerifySignature(ctx, token); err == nil {
					t.Fatalf("attempt %d: verified without keys", i)
				}
			}
			if n := srv.fetches.Load(); n != 1 {
				t.Fatalf("fetches = %d after a failed fetch, want 1", n)
			}
			srv.setKeys(t, good)
			clock.Advance(oidcclaims.DefaultKeyRefreshInterval)
			if _, err := ks.VerifySignature(ctx, token); err != nil {
				t.Fatalf("after the interval: %v", err)
			}
			// A later failure keeps the keys fetched before.
			srv.setAnswer(tt.code, tt.body)
			clock.Advance(oidcclaims.DefaultKeyRefreshInterval)
			if _, err := ks.VerifySignature(ctx, signJWS(t, jose.RS256, key, "k9", map[string]any{})); err == nil {
				t.Fatalf("unknown kid verified")
			}
			if _, err := ks.VerifySignature(ctx, token); err != nil {
				t.Fatalf("cached key lost after a failed fetch: %v", err)
			}
			if n := srv.fetches.Load(); n != 3 {
				t.Errorf("fetches = %d, want 3", n)
			}
		})
	}
}

// TestKeySetSharesOneFetch starts many verifications on an empty KeySet at
// once: they share one fetch.
func TestKeySetSharesOneFetch(t *testing.T) {
	key := newRSAKey(t)
	srv := newKeyServer(t, jose.JSONWebKey{Key: &key.PublicKey, KeyID: "k1"})
	ks := srv.keySet(newFakeClock(), 0)
	token := signJWS(t, jose.RS256, key, "k1", map[string]any{"sub": "user-42"})
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := ks.VerifySignature(context.Background(), token); err != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d verifications failed", n)
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("fetches = %d, want 1", n)
	}
}
