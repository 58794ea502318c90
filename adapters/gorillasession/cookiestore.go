package gorillasession

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
)

// DefaultMaxAge is the lifetime SecureCookieStore gives session cookies, in
// seconds: 8 hours, a working day.
const DefaultMaxAge = 8 * 60 * 60

// SecureCookieStore returns a cookie store with safe options set explicitly:
// HttpOnly, SameSite=Lax, Secure, Path "/", MaxAge DefaultMaxAge (in the
// cookie and in the signed timestamp, so an old cookie is refused even if a
// browser keeps it). sessions.NewCookieStore alone gives SameSite=None, no
// HttpOnly and 30 days.
//
// keyPairs are as for sessions.NewCookieStore: a hash key and an optional
// block key per pair, newest pair first; KeysFromEnv builds them.
//
// For development over plain http://127.0.0.1, where browsers drop Secure
// cookies, set store.Options.Secure = false on the returned store; never do
// so for a deployment reached over HTTPS.
func SecureCookieStore(keyPairs ...[]byte) *sessions.CookieStore {
	cs := sessions.NewCookieStore(keyPairs...)
	cs.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   DefaultMaxAge,
		HttpOnly: true,
		Secure:   true,
		SameSite: http.SameSiteLaxMode,
	}
	cs.MaxAge(DefaultMaxAge)
	UseCompactSerializer(cs)
	return cs
}

// UseCompactSerializer makes cs write its cookies with CompactSerializer,
// and read them in that form or in encoding/gob (securecookie's default),
// so that a host whose cookies were written before can move over without
// signing anyone out: SecureCookieStore does this already; a host with its
// own sessions.NewCookieStore calls it once after making the store. Codecs
// that are not *securecookie.SecureCookie are left alone.
func UseCompactSerializer(cs *sessions.CookieStore) {
	for _, c := range cs.Codecs {
		if sc, ok := c.(*securecookie.SecureCookie); ok {
			sc.SetSerializer(CompactSerializer{})
		}
	}
}

// KeysFromEnv parses session keys from one configuration value, such as a
// SESSION_KEYS environment variable, into the key pairs SecureCookieStore
// takes.
//
// The value is a comma-separated list of entries, newest first. Each entry
// is a hash key, optionally followed by a colon and a block key:
//
//	SESSION_KEYS=<hash>:<block>,<older hash>:<older block>
//
// Keys are base64 (standard or URL alphabet, padding optional). A hash key
// (HMAC-SHA256) is 32 or 64 bytes; a block key (AES, which encrypts the
// cookie) is 16, 24 or 32 bytes. New cookies are made with the first entry;
// cookies made with any entry still decode, so rotating means prepending a
// new entry and, once the old cookies have expired (DefaultMaxAge), removing
// the last one. Generate a key with `openssl rand -base64 32`.
//
// Give every entry a block key: with a hash key alone the cookie is signed
// but not encrypted, so whoever holds it (the browser, a proxy or a log
// that records cookies) reads the viewer in it, the login's session key
// included, and any minted ids Identity.SessionStore keeps there. A block
// key of 32 bytes (AES-256) encrypts it:
//
//	SESSION_KEYS=$(openssl rand -base64 32):$(openssl rand -base64 32)
//
// Moving to encryption is a rotation: prepend the new hash:block entry
// and keep the old one until its cookies have expired.
//
// Errors name the entry by position and never hold key material.
func KeysFromEnv(value string) ([][]byte, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, errors.New("gorillasession: no session keys given")
	}
	var pairs [][]byte
	for i, entry := range strings.Split(value, ",") {
		pos := i + 1
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return nil, fmt.Errorf("gorillasession: session key %d: empty entry", pos)
		}
		hashText, blockText, hasBlock := strings.Cut(entry, ":")
		hash, err := decodeKey(hashText)
		if err != nil {
			return nil, fmt.Errorf("gorillasession: session key %d: hash key: %w", pos, err)
		}
		if n := len(hash); n != 32 && n != 64 {
			return nil, fmt.Errorf("gorillasession: session key %d: hash key is %d bytes, want 32 or 64", pos, n)
		}
		var block []byte
		if hasBlock {
			if block, err = decodeKey(blockText); err != nil {
				return nil, fmt.Errorf("gorillasession: session key %d: block key: %w", pos, err)
			}
			if n := len(block); n != 16 && n != 24 && n != 32 {
				return nil, fmt.Errorf("gorillasession: session key %d: block key is %d bytes, want 16, 24 or 32", pos, n)
			}
		}
		pairs = append(pairs, hash, block)
	}
	return pairs, nil
}

// decodeKey decodes base64 in any of the usual alphabets and paddings. Its
// errors hold no input.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty")
	}
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("not valid base64")
	}
	return b, nil
}
