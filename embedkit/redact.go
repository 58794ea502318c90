package embedkit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Redact returns a short, non-reversible fingerprint of a secret, such as
// "sha256:1a2b3c4d": enough to tell two keys or sessions apart in a log,
// useless for using them. The empty string gives "(empty)".
//
// Everything in this package that would show an API key, a token or a
// session id shows Redact of it instead.
func Redact(secret string) string {
	if secret == "" {
		return "(empty)"
	}
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// RedactKeyed returns a short keyed fingerprint of s, such as
// "hmac:1a2b3c4d5e6f": the first 6 bytes of HMAC-SHA256 under key. It is
// for values that are not secret but identify someone, such as a viewer's
// subject or email: an unkeyed hash of those (Redact) can be reversed by
// hashing a list of candidate emails, a keyed one cannot without the key.
// The same key gives the same fingerprint, so log lines of one viewer
// still correlate; instances that share a key correlate across each
// other. The empty string gives "(empty)". key must be secret, and
// should be at least 16 random bytes.
func RedactKeyed(key []byte, s string) string {
	if s == "" {
		return "(empty)"
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(s))
	return "hmac:" + hex.EncodeToString(mac.Sum(nil)[:6])
}

// scrub replaces every occurrence of each non-empty secret in s with its
// fingerprint.
func scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redact(sec))
		}
	}
	return s
}

// String shows the session with its id redacted.
func (s Session) String() string {
	return fmt.Sprintf("embedkit.Session{SessionID: %s, ExpiresAt: %s}", Redact(s.SessionID), s.ExpiresAt.Format(time.RFC3339))
}

// GoString is like String, so %#v does not print the id either.
func (s Session) GoString() string { return s.String() }

// LogValue logs the session with its id redacted.
func (s Session) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("session_id", Redact(s.SessionID)),
		slog.Time("expires_at", s.ExpiresAt),
	)
}

// String shows the token redacted.
func (t EmbedToken) String() string {
	return "embedkit.EmbedToken{Token: " + Redact(t.Token) + "}"
}

// GoString is like String, so %#v does not print the token either.
func (t EmbedToken) GoString() string { return t.String() }

// LogValue logs the token redacted.
func (t EmbedToken) LogValue() slog.Value {
	return slog.GroupValue(slog.String("token", Redact(t.Token)))
}

// String shows the token redacted, with its times.
func (t MetaToken) String() string {
	return fmt.Sprintf("embedkit.MetaToken{Token: %s, CreatedAt: %s, ExpiresAt: %s}",
		Redact(t.Token), t.CreatedAt.Format(time.RFC3339), t.ExpiresAt.Format(time.RFC3339))
}

// GoString is like String, so %#v does not print the token either.
func (t MetaToken) GoString() string { return t.String() }

// LogValue logs the token redacted, with its times.
func (t MetaToken) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("token", Redact(t.Token)),
		slog.Time("created_at", t.CreatedAt),
		slog.Time("expires_at", t.ExpiresAt),
	)
}

// String shows the token redacted.
func (t DataAPIToken) String() string {
	return "embedkit.DataAPIToken{Token: " + Redact(t.Token) + "}"
}

// GoString is like String, so %#v does not print the token either.
func (t DataAPIToken) GoString() string { return t.String() }

// LogValue logs the token redacted.
func (t DataAPIToken) LogValue() slog.Value {
	return slog.GroupValue(slog.String("token", Redact(t.Token)))
}
