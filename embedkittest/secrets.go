package embedkittest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// secret is a value that must not show, with the label failure messages
// name it by.
type secret struct {
	label, value string
}

// found returns the secrets that occur in text, each once, in the order
// of secrets.
func found(text string, secrets []secret) []secret {
	var out []secret
	seen := map[string]bool{}
	for _, s := range secrets {
		if s.value != "" && !seen[s.value] && strings.Contains(text, s.value) {
			seen[s.value] = true
			out = append(out, s)
		}
	}
	return out
}

// scrub replaces every secret in s with its fingerprint, so that a
// failure message can quote where a leak was without repeating it.
func scrub(s string, secrets []secret) string {
	for _, sec := range secrets {
		if sec.value != "" && strings.Contains(s, sec.value) {
			s = strings.ReplaceAll(s, sec.value, embedkit.Redact(sec.value))
		}
	}
	return s
}

// reporter fails a test once per distinct leak. After the test's cleanup
// has run it stops: a record logged by a goroutine that outlives its test
// must not call t.Errorf, which would panic.
type reporter struct {
	t    testing.TB
	mu   sync.Mutex
	seen map[string]bool
	done bool
}

// newReporter returns a reporter to t. With untilCleanup set it stops
// when t's cleanup runs; set it for reports from other goroutines.
func newReporter(t testing.TB, untilCleanup bool) *reporter {
	r := &reporter{t: t, seen: map[string]bool{}}
	if !untilCleanup {
		return r
	}
	t.Cleanup(func() {
		r.mu.Lock()
		r.done = true
		r.mu.Unlock()
	})
	return r
}

// check reports each secret of secrets found in text, at where.
func (r *reporter) check(where, text string, secrets []secret) {
	r.t.Helper()
	for _, s := range found(text, secrets) {
		r.report(where, s, secrets)
	}
}

// report fails the test with a message naming where and the secret's
// label and fingerprint, never the secret.
func (r *reporter) report(where string, s secret, secrets []secret) {
	r.t.Helper()
	msg := fmt.Sprintf("embedkittest: %s leaks the %s (%s)", scrub(where, secrets), s.label, embedkit.Redact(s.value))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.seen[msg] {
		return
	}
	r.seen[msg] = true
	r.t.Errorf("%s", msg)
}

// quote quotes s for a failure message, cut to a readable length.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// CheckText fails t when text holds a secret p knows (see Platform) or
// one added with Platform.AddSecret: for an error message, a page, a file
// the host wrote. where names the text in the failure message, for
// example "the error of GenerateSession". Like every check of this
// package, the message names what leaked by label and embedkit.Redact
// fingerprint, never the secret itself.
func CheckText(t testing.TB, p *Platform, where, text string) {
	t.Helper()
	newReporter(t, false).check(where, text, p.secrets(true))
}
