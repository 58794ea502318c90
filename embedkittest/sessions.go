package embedkittest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// Session states of emulator.SessionInfo.
const (
	stateUnexchanged = "unexchanged"
	stateExchanged   = "exchanged"
	stateRevoked     = "revoked"
)

// AssertRevoked fails t unless the emulator holds at least one session
// for the viewer externalID and every one of them is revoked: what a host's
// logout (middleware.Kit.Logout, RevokeRequest, RevokeSubject) must leave
// behind. externalID is matched as the platform matches it, trimmed and
// lower-cased (embedkit.NormalizeExternalID), so it is the Viewer's
// Subject.
//
// The message counts the viewer's sessions by state and names the ones
// not revoked by fingerprint, for example
//
//	embedkittest: 3 sessions of "ana": 2 revoked, 1 exchanged (sha256:1a2b3c4d); want every one revoked
//
// An id that was never exchanged and is older than five minutes shows as
// expired: the platform ignores a revoke of it, so a test that moves the
// emulator's clock that far checks Emulator().Sessions() itself. A
// session whose token was exchanged on an account without the revocation
// claim (emulator.Fixture.RevocationClaim) stays exchanged however often
// it is revoked.
//
// The emulator knows nothing of host sessions: to check that a logout
// revoked one host session's ids and left another's alone, read the ids
// from the frame redirects and look them up in Emulator().Sessions().
func AssertRevoked(t testing.TB, p *Platform, externalID string) {
	t.Helper()
	sessions := p.sessionsOf(externalID)
	if len(sessions) == 0 {
		t.Errorf("embedkittest: the emulator holds no session of %q (%d of other viewers); nothing was minted for this viewer, or the external id differs", externalID, len(p.em.Sessions()))
		return
	}
	if bad := notIn(sessions, stateRevoked); len(bad) > 0 {
		t.Errorf("embedkittest: %s; want every one revoked", describe(externalID, sessions, bad))
	}
}

// AssertLive fails t unless the emulator holds at least one session for
// the viewer externalID and none of them is revoked or expired: every one
// still unexchanged or exchanged. It checks that a logout left another
// viewer alone. externalID is matched as in AssertRevoked.
func AssertLive(t testing.TB, p *Platform, externalID string) {
	t.Helper()
	sessions := p.sessionsOf(externalID)
	if len(sessions) == 0 {
		t.Errorf("embedkittest: the emulator holds no session of %q (%d of other viewers); nothing was minted for this viewer, or the external id differs", externalID, len(p.em.Sessions()))
		return
	}
	if bad := notIn(sessions, stateUnexchanged, stateExchanged); len(bad) > 0 {
		t.Errorf("embedkittest: %s; want every one unexchanged or exchanged", describe(externalID, sessions, bad))
	}
}

// sessionsOf returns the emulator's sessions of the viewer externalID.
func (p *Platform) sessionsOf(externalID string) []emulator.SessionInfo {
	want := embedkit.NormalizeExternalID(externalID)
	var out []emulator.SessionInfo
	for _, s := range p.em.Sessions() {
		if s.ExternalID != "" && embedkit.NormalizeExternalID(s.ExternalID) == want {
			out = append(out, s)
		}
	}
	return out
}

// notIn returns the sessions whose state is none of states.
func notIn(sessions []emulator.SessionInfo, states ...string) []emulator.SessionInfo {
	var out []emulator.SessionInfo
	for _, s := range sessions {
		ok := false
		for _, st := range states {
			ok = ok || s.State == st
		}
		if !ok {
			out = append(out, s)
		}
	}
	return out
}

// describe counts sessions by state, naming the bad ones by fingerprint:
// `3 sessions of "ana": 2 revoked, 1 exchanged (sha256:...)`.
func describe(externalID string, sessions, bad []emulator.SessionInfo) string {
	count := map[string]int{}
	named := map[string][]string{}
	for _, s := range sessions {
		count[s.State]++
	}
	for _, s := range bad {
		named[s.State] = append(named[s.State], embedkit.Redact(s.SessionID))
	}
	states := make([]string, 0, len(count))
	for st := range count {
		states = append(states, st)
	}
	sort.Strings(states)
	parts := make([]string, 0, len(states))
	for _, st := range states {
		part := fmt.Sprintf("%d %s", count[st], st)
		if ids := named[st]; len(ids) > 0 {
			if len(ids) > 5 {
				ids = append(ids[:5:5], "...")
			}
			part += " (" + strings.Join(ids, ", ") + ")"
		}
		parts = append(parts, part)
	}
	noun := "sessions"
	if len(sessions) == 1 {
		noun = "session"
	}
	return fmt.Sprintf("%d %s of %q: %s", len(sessions), noun, externalID, strings.Join(parts, ", "))
}
