package emulator

import (
	"sort"
	"time"
)

const (
	// sessionWindow is how long an unexchanged session id can be
	// exchanged: a session created at T is exchangeable while now < T+5m.
	sessionWindow = 5 * time.Minute
	// embedTokenLifetime is the signed expiry of an exchanged token.
	embedTokenLifetime = 24 * time.Hour
	// sweepEvery is how often (in virtual time) stale records are swept.
	sweepEvery = time.Minute
	// tokenIssuer is the iss claim of embed tokens.
	tokenIssuer = "platform"
)

// Session states as the control API reports them.
const (
	stateUnexchanged = "unexchanged"
	stateExchanged   = "exchanged"
	stateExpired     = "expired"
	stateRevoked     = "revoked"
)

type session struct {
	id           string
	state        string // unexchanged, exchanged or revoked; expiry is derived
	createdAt    time.Time
	deploymentID int64
	externalID   string
	internalID   string
	// claims are the token's claims but jti, iat, exp and rvk, as JSON:
	// one allocation the garbage collector does not look into, where the
	// claims' maps (security context, attributes, settings, theme) would
	// cost every collection a walk through all sessions held.
	claims    []byte
	jti       string    // once exchanged
	tokenExp  time.Time // once exchanged
	revocable bool      // token carries the revocation claim
}

func (se *session) stateAt(now time.Time) string {
	if se.state == stateUnexchanged && !now.Before(se.createdAt.Add(sessionWindow)) {
		return stateExpired
	}
	return se.state
}

// SessionInfo describes an embed session, as GET /_emulator/sessions
// lists it.
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	// State is unexchanged, exchanged, expired or revoked.
	State        string    `json:"state"`
	ExternalID   string    `json:"externalId,omitempty"`
	InternalID   string    `json:"internalId,omitempty"`
	DeploymentID int64     `json:"deploymentId"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Sessions returns every session the emulator holds, oldest first. Expired
// and used sessions are kept until their token would have expired.
func (s *Server) Sessions() []SessionInfo {
	now := s.now()
	s.mu.Lock()
	out := make([]SessionInfo, 0, len(s.st.sessions))
	for _, se := range s.st.sessions {
		out = append(out, SessionInfo{
			SessionID: se.id, State: se.stateAt(now), ExternalID: se.externalID,
			InternalID: se.internalID, DeploymentID: se.deploymentID, CreatedAt: se.createdAt,
		})
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].SessionID < out[j].SessionID
	})
	return out
}

// tokenRevoked reports whether the embed token with this jti was revoked
// through its session (only tokens with the revocation claim can be).
func (s *Server) tokenRevoked(jti string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.st.revoked[jti]
	return ok
}

// sweepLocked drops records nothing can reach any more: sessions whose
// token would have expired, revocations of expired tokens, expired export
// jobs. It runs at most once per sweepEvery of virtual time, so lookups
// stay O(1) and expiry itself is always evaluated lazily.
func (st *state) sweepLocked(now time.Time) {
	if now.Sub(st.lastSweep) < sweepEvery {
		return
	}
	st.lastSweep = now
	horizon := now.Add(-(sessionWindow + embedTokenLifetime))
	for id, se := range st.sessions {
		if se.createdAt.Before(horizon) {
			delete(st.sessions, id)
		}
	}
	for jti, exp := range st.revoked {
		if !now.Before(exp) {
			delete(st.revoked, jti)
		}
	}
	for id, j := range st.exports {
		if !now.Before(j.expiresAt) {
			delete(st.exports, id)
		}
	}
}
