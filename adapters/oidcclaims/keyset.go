package oidcclaims

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// DefaultKeyRefreshInterval is the least time between two fetches of a
// KeySet's keys.
const DefaultKeyRefreshInterval = 10 * time.Second

const (
	// keyFetchTimeout bounds one fetch, whatever the client's own timeout,
	// so that a provider that never answers cannot hold the only fetch
	// slot.
	keyFetchTimeout = 10 * time.Second
	// maxKeySetBytes bounds the key set document.
	maxKeySetBytes = 1 << 20
)

// signingAlgs are the JWS algorithms a KeySet verifies: public-key
// signatures only. HMAC and "none" are refused whatever the verifier's
// SupportedSigningAlgs say.
var signingAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// errKeyRefreshLimited marks a signature that no cached key verifies while
// the key set may not be fetched again yet.
var errKeyRefreshLimited = errors.New("oidcclaims: no cached key verifies the signature and the key set was fetched too recently to fetch it again")

// KeySetConfig configures NewKeySet. The zero value is ready to use.
type KeySetConfig struct {
	// Client fetches the key set (default http.DefaultClient). Each fetch
	// also has its own 10 s deadline.
	Client *http.Client
	// RefreshInterval is the least time between two fetches (default
	// DefaultKeyRefreshInterval; zero or less means the default).
	RefreshInterval time.Duration
	// Now is the clock that spaces fetches (default time.Now). Use the
	// verifier's oidc.Config.Now.
	Now func() time.Time
}

// KeySet is an oidc.KeySet that verifies signatures with the keys of a
// provider's JSON Web Key Set (its jwks_uri) and fetches that set at most
// once per RefreshInterval.
//
// go-oidc's RemoteKeySet, which Provider.Verifier uses, fetches the key set
// again for every token that its cached keys do not verify: an unknown kid
// or merely a bad signature. On an endpoint anyone can POST to, such as
// back-channel logout, every forged token then costs an outbound request to
// the provider. KeySet fetches on the first verification, and again when a
// token is not verified by the cached keys, but never twice within
// RefreshInterval: in between, such tokens are refused without a fetch. A
// flood of forged tokens therefore costs at most one fetch per interval,
// and a key the provider rotates in is picked up by the first fetch after
// it is published, so within one interval of the first token signed with
// it. Concurrent verifications share one fetch. A failed fetch keeps the
// previous keys and counts as a fetch.
//
// Only public-key algorithms (RS*, PS*, ES*, EdDSA) verify; a key is used
// for a token when its kid matches (any key when the token has none), its
// alg, if set, is the token's, and its use, if set, is "sig".
//
// Build the verifier on it with oidc.NewVerifier; a KeySet is safe for
// concurrent use.
type KeySet struct {
	url    string
	client *http.Client
	every  time.Duration
	now    func() time.Time

	mu       sync.Mutex
	keys     []jose.JSONWebKey
	gen      uint64    // counts successful fetches
	tried    bool      // a fetch has started
	last     time.Time // when the last fetch started
	inflight *keyFetch
}

// keyFetch is one fetch, waited on by every verification that needs it.
type keyFetch struct {
	done chan struct{}
	err  error // set before done is closed
}

// NewKeySet returns a KeySet for the key set at jwksURL. It fetches nothing
// until the first verification.
func NewKeySet(jwksURL string, cfg KeySetConfig) *KeySet {
	ks := &KeySet{url: jwksURL, client: cfg.Client, every: cfg.RefreshInterval, now: cfg.Now}
	if ks.client == nil {
		ks.client = http.DefaultClient
	}
	if ks.every <= 0 {
		ks.every = DefaultKeyRefreshInterval
	}
	if ks.now == nil {
		ks.now = time.Now
	}
	return ks
}

// VerifySignature verifies the signature of a compact JWS and returns its
// payload. It checks nothing else: the oidc.IDTokenVerifier built on the
// KeySet checks the algorithm against its list and the claims.
func (ks *KeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(jwt, signingAlgs)
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: malformed JWS: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("oidcclaims: JWS must have exactly one signature")
	}
	hdr := jws.Signatures[0].Header
	keys, gen := ks.cached()
	if payload, ok := verifyWith(jws, hdr, keys); ok {
		return payload, nil
	}
	keys, err = ks.refresh(ctx, gen)
	if err != nil {
		return nil, err
	}
	if payload, ok := verifyWith(jws, hdr, keys); ok {
		return payload, nil
	}
	return nil, errors.New("oidcclaims: no key of the provider's key set verifies the signature")
}

// cached returns the keys and the count of fetches they come from.
func (ks *KeySet) cached() ([]jose.JSONWebKey, uint64) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.keys, ks.gen
}

// refresh returns keys newer than those of fetch gen: from a fetch that
// ended since, from the fetch under way, or from a new fetch if the last
// one started at least RefreshInterval ago. Otherwise it fails without a
// fetch.
func (ks *KeySet) refresh(ctx context.Context, gen uint64) ([]jose.JSONWebKey, error) {
	ks.mu.Lock()
	if ks.gen != gen {
		keys := ks.keys
		ks.mu.Unlock()
		return keys, nil
	}
	f := ks.inflight
	if f == nil {
		now := ks.now()
		if ks.tried && now.Before(ks.last.Add(ks.every)) {
			ks.mu.Unlock()
			return nil, errKeyRefreshLimited
		}
		ks.tried, ks.last = true, now
		f = &keyFetch{done: make(chan struct{})}
		ks.inflight = f
		// The fetch is shared, so one caller's cancel must not end it; it
		// keeps the context's values only.
		go ks.fetch(context.WithoutCancel(ctx), f)
	}
	ks.mu.Unlock()

	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-f.done:
	}
	if f.err != nil {
		return nil, f.err
	}
	keys, _ := ks.cached()
	return keys, nil
}

// fetch runs f and records its keys.
func (ks *KeySet) fetch(ctx context.Context, f *keyFetch) {
	ctx, cancel := context.WithTimeout(ctx, keyFetchTimeout)
	defer cancel()
	keys, err := ks.get(ctx)
	ks.mu.Lock()
	if err == nil {
		ks.keys = keys
		ks.gen++
	}
	ks.inflight = nil
	ks.mu.Unlock()
	f.err = err
	close(f.done)
}

// get downloads and parses the key set.
func (ks *KeySet) get(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ks.url, nil)
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: key set URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	// A cache between us and the provider must not hide a rotation.
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: fetching key set: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: reading key set: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("oidcclaims: fetching key set from %s: %s", ks.url, resp.Status)
	}
	if len(body) > maxKeySetBytes {
		return nil, fmt.Errorf("oidcclaims: key set from %s is larger than %d bytes", ks.url, maxKeySetBytes)
	}
	return parseKeySet(body)
}

// parseKeySet reads a JWK Set. Keys that cannot be read (an unknown kty or
// curve), symmetric keys and encryption keys are skipped, as RFC 7517
// section 5 asks; a document that is not a JWK Set is an error.
func parseKeySet(body []byte) ([]jose.JSONWebKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("oidcclaims: key set: %w", err)
	}
	if doc.Keys == nil {
		return nil, errors.New(`oidcclaims: key set: no "keys" member`)
	}
	keys := make([]jose.JSONWebKey, 0, len(doc.Keys))
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := json.Unmarshal(raw, &k); err != nil {
			continue
		}
		k = k.Public() // a private key's public half; nothing of a symmetric key
		if !k.Valid() || (k.Use != "" && k.Use != "sig") {
			continue
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// verifyWith verifies jws with the first key that fits its header.
func verifyWith(jws *jose.JSONWebSignature, hdr jose.Header, keys []jose.JSONWebKey) ([]byte, bool) {
	for i := range keys {
		k := &keys[i]
		if hdr.KeyID != "" && k.KeyID != hdr.KeyID {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != hdr.Algorithm {
			continue
		}
		if payload, err := jws.Verify(k); err == nil {
			return payload, true
		}
	}
	return nil, false
}
