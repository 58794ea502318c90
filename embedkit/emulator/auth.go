package emulator

import (
	"net/http"
	"strings"
)

// Authentication, as the specification's Authentication part has it:
//
//   - /api/v1 and /build/api/v1 take "Authorization: Bearer <API key>".
//   - The embed session endpoints (generate-session, revoke) are documented
//     with "Authorization: Api-Key <API key>"; they accept both prefixes.
//   - Revoke also accepts, as a Bearer credential, an embed token of an
//     internal admin user (the "embed JWT" principal of the specification).
//   - The scheme name is matched case-insensitively (RFC 9110).
//   - 401: credential missing, malformed, unknown, expired or revoked, or
//     the key's user is inactive. 403: valid but not authorized.
//
// The specification accepts only HTTPS. The emulator serves plain HTTP too
// (tests run it on loopback) and does not enforce HTTPS.

// principal is the authenticated caller; an immutable snapshot.
type principal struct {
	keyHash  string // short hash of the key, for logs
	username string
	userID   int64
	email    string
	admin    bool
	perms    map[string]bool
	scope    map[int64]bool // empty: unscoped
	personal bool
	embed    bool // authenticated by an embed token
}

// inScope reports whether the credential covers the deployment.
func (p *principal) inScope(deploymentID int64) bool {
	return len(p.scope) == 0 || p.scope[deploymentID]
}

type authOptions struct {
	apiKeyPrefix bool // accept "Api-Key <key>" as well as "Bearer <key>"
	embedToken   bool // accept an embed token of an internal user
}

// authenticate checks the Authorization header and writes a 401 when it
// does not identify an active principal.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, o authOptions) (*principal, bool) {
	raw := r.Header.Get("Authorization")
	if raw == "" {
		s.writeError(w, http.StatusUnauthorized, "missing credential: send Authorization: Bearer <API key>")
		return nil, false
	}
	scheme, cred, found := strings.Cut(raw, " ")
	cred = strings.TrimSpace(cred)
	okScheme := strings.EqualFold(scheme, "Bearer") || (o.apiKeyPrefix && strings.EqualFold(scheme, "Api-Key"))
	if !found || !okScheme || cred == "" || strings.ContainsAny(cred, " \t") {
		msg := "malformed credential: send Authorization: Bearer <API key>"
		if o.apiKeyPrefix {
			msg = "malformed credential: send Authorization: Bearer <API key> or Api-Key <API key>"
		}
		s.writeError(w, http.StatusUnauthorized, msg)
		return nil, false
	}
	s.mu.Lock()
	k, ok := s.st.keys[cred]
	s.mu.Unlock()
	if ok {
		if !k.user.active {
			s.writeError(w, http.StatusUnauthorized, "invalid credential: the key's user is deactivated")
			return nil, false
		}
		u := k.user
		return &principal{
			keyHash: shortHash(cred), username: u.username, userID: u.id, email: u.email,
			admin: u.admin, perms: u.perms, scope: k.scope, personal: k.personal,
		}, true
	}
	if o.embedToken && strings.Count(cred, ".") == 2 {
		return s.authenticateEmbedToken(w, cred)
	}
	s.writeError(w, http.StatusUnauthorized, "invalid credential")
	return nil, false
}

// authenticateEmbedToken accepts an unexpired, unrevoked embed token; only
// a token of an internal user carries that user's role.
func (s *Server) authenticateEmbedToken(w http.ResponseWriter, raw string) (*principal, bool) {
	c, err := parseToken(s.secret, raw)
	if err != nil || c == nil {
		s.writeError(w, http.StatusUnauthorized, "invalid credential")
		return nil, false
	}
	if s.now().Unix() >= c.ExpiresAt {
		s.writeError(w, http.StatusUnauthorized, "credential expired")
		return nil, false
	}
	if s.tokenRevoked(c.ID) {
		s.writeError(w, http.StatusUnauthorized, "embed token revoked")
		return nil, false
	}
	p := &principal{keyHash: shortHash(raw), embed: true, perms: map[string]bool{}}
	if c.InternalID != "" {
		s.mu.Lock()
		u, ok := s.st.users[c.InternalID]
		s.mu.Unlock()
		if !ok || !u.active {
			s.writeError(w, http.StatusUnauthorized, "invalid credential: the token's user is deactivated")
			return nil, false
		}
		p.username, p.userID, p.email, p.admin, p.perms = u.username, u.id, u.email, u.admin, u.perms
	} else {
		p.username = "embed:" + c.ExternalID
	}
	if c.DeploymentID > 0 {
		p.scope = map[int64]bool{c.DeploymentID: true}
	}
	return p, true
}
