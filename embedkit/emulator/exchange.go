// The exchange and revoke endpoints of a session id.

package emulator

import (
	"encoding/json"
	"net/http"
	"time"
)

type sessionIDBody struct {
	SessionID *string `json:"sessionId"`
}

// handleExchange is POST /api/v1/embed/session/token. The session id is the
// credential; no Authorization header is needed.
func (s *Server) handleExchange(w http.ResponseWriter, r *http.Request) {
	id, ok := s.decodeSessionID(w, r)
	if !ok {
		return
	}
	now := s.now()
	s.mu.Lock()
	se := s.st.sessions[id]
	if se == nil || se.stateAt(now) != stateUnexchanged {
		s.mu.Unlock()
		s.writeError(w, http.StatusUnauthorized, "session is unknown, expired, already exchanged or revoked")
		return
	}
	se.state = stateExchanged
	se.jti = randomHex(16)
	se.tokenExp = now.Add(embedTokenLifetime)
	se.revocable = s.st.fx.RevocationClaim
	jti, revocable := se.jti, se.revocable
	s.mu.Unlock()
	// The claims are written once, at mint: they are read without the lock.
	var c tokenClaims
	if err := json.Unmarshal(se.claims, &c); err != nil {
		s.logger.Error("decoding the session's claims", "error", err)
		s.writeError(w, http.StatusInternalServerError, "cannot sign the embed token")
		return
	}
	c.ID = jti
	c.IssuedAt = now.Unix()
	c.ExpiresAt = now.Unix() + int64(embedTokenLifetime/time.Second)
	c.Revocable = revocable
	token, err := signToken(s.secret, &c)
	if err != nil {
		s.logger.Error("signing embed token", "error", err)
		s.writeError(w, http.StatusInternalServerError, "cannot sign the embed token")
		return
	}
	s.logger.Info("embed session exchanged", "session", shortHash(se.id))
	s.writeJSON(w, http.StatusOK, map[string]string{"token": token})
}

// handleRevoke is POST /api/v1/embed/session/revoke: 204 whatever the id,
// deployment scope not checked.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	p, ok := s.authenticate(w, r, authOptions{apiKeyPrefix: true, embedToken: true})
	if !ok {
		return
	}
	switch {
	case !s.embeddingEnabled():
		s.writeError(w, http.StatusForbidden, "embedding is not enabled for this account")
		return
	case !p.admin:
		s.writeError(w, http.StatusForbidden, "revoke needs an admin principal")
		return
	}
	id, ok := s.decodeSessionID(w, r)
	if !ok {
		return
	}
	now := s.now()
	s.mu.Lock()
	if se := s.st.sessions[id]; se != nil {
		switch se.stateAt(now) {
		case stateUnexchanged:
			se.state = stateRevoked
		case stateExchanged:
			if se.revocable {
				se.state = stateRevoked
				s.st.revoked[se.jti] = se.tokenExp
			}
		}
	}
	s.mu.Unlock()
	s.logger.Info("embed session revoke", "session", shortHash(id), "key", p.keyHash)
	w.WriteHeader(http.StatusNoContent)
}

// decodeSessionID reads the {"sessionId": "..."} body of the exchange and
// revoke endpoints, answering the error itself when it is malformed or
// has no session id.
func (s *Server) decodeSessionID(w http.ResponseWriter, r *http.Request) (string, bool) {
	var b sessionIDBody
	if !s.decodeBody(w, r, &b) {
		return "", false
	}
	if b.SessionID == nil {
		s.writeError(w, http.StatusBadRequest, "sessionId: is required")
		return "", false
	}
	return *b.SessionID, true
}

// embeddingEnabled reports whether the fixture's account has embedding
// on, which generate-session and revoke require.
func (s *Server) embeddingEnabled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.fx.Embedding
}
