package gorillasession_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/middleware"
)

// cookiePayload undoes securecookie's encodings around a cookie value
// (base64 of "date|value|mac", value in base64 again) and returns the
// value's bytes: the serialized session, or its ciphertext.
func cookiePayload(t *testing.T, cookie string) []byte {
	t.Helper()
	outer, err := base64.URLEncoding.DecodeString(cookie)
	if err != nil {
		t.Fatalf("the cookie is not securecookie's base64: %v", err)
	}
	parts := bytes.SplitN(outer, []byte("|"), 3)
	if len(parts) != 3 {
		t.Fatalf("the cookie has %d parts, want date|value|mac", len(parts))
	}
	value, err := base64.URLEncoding.DecodeString(string(parts[1]))
	if err != nil {
		t.Fatalf("the cookie's value is not base64: %v", err)
	}
	return value
}

// TestCookieEncryption: with a hash key alone (KeysFromEnv's "hash"
// entry) the cookie is signed, and whoever holds it reads the viewer;
// with a block key ("hash:block") it is encrypted. Moving to encryption
// is a rotation: cookies signed before still sign in, and new ones are
// encrypted.
func TestCookieEncryption(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	hashOnly, err := gorillasession.KeysFromEnv(enc(keyOld))
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte{9}, 32)
	rotated, err := gorillasession.KeysFromEnv(enc(keyNew) + ":" + enc(block) + "," + enc(keyOld))
	if err != nil {
		t.Fatal(err)
	}
	viewer := &middleware.Viewer{Subject: "ana-subject", Email: "ana@example.com", SessionKey: "ana-login-key"}
	secrets := []string{"ana-subject", "ana@example.com", "ana-login-key"}

	signed, _ := newIdentity(t, hashOnly...)
	b := newBrowser(t)
	login(t, b, signed, viewer)
	plain := string(cookiePayload(t, b.cookie()))
	for _, s := range secrets {
		if !strings.Contains(plain, s) {
			t.Errorf("a signed-only cookie does not show %q to its holder; the docs say it does:\n%q", s, plain)
		}
	}

	encrypted, _ := newIdentity(t, rotated...)
	if v, err := viewerOf(t, b, encrypted); err != nil || v.Subject != "ana-subject" {
		t.Fatalf("after prepending hash:block, a cookie signed before reads as %v, %v; want ana-subject", v, err)
	}
	b2 := newBrowser(t)
	login(t, b2, encrypted, viewer)
	sealed := string(cookiePayload(t, b2.cookie()))
	for _, s := range secrets {
		if strings.Contains(sealed, s) {
			t.Errorf("an encrypted cookie shows %q to its holder:\n%q", s, sealed)
		}
	}
	if v, err := viewerOf(t, b2, encrypted); err != nil || v.Subject != "ana-subject" {
		t.Fatalf("an encrypted cookie reads as %v, %v; want ana-subject", v, err)
	}
}
