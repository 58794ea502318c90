package emulator

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// deploymentFor authenticates the caller and resolves the deploymentId
// path value: 401 without a valid credential, 403 when the key's scope
// excludes the deployment, 404 when it does not exist.
func (s *Server) deploymentFor(w http.ResponseWriter, r *http.Request) (*principal, int64, bool) {
	p, ok := s.authenticate(w, r, authOptions{})
	if !ok {
		return nil, 0, false
	}
	id, ok := pathID(r, "deploymentId")
	if !ok {
		s.writeError(w, http.StatusNotFound, "deployment "+r.PathValue("deploymentId")+" not found")
		return nil, 0, false
	}
	if !p.inScope(id) {
		s.writeError(w, http.StatusForbidden, "the API key is not scoped to deployment "+formatID(id))
		return nil, 0, false
	}
	s.mu.Lock()
	_, exists := s.st.deployments[id]
	s.mu.Unlock()
	if !exists {
		s.writeError(w, http.StatusNotFound, "deployment "+formatID(id)+" not found")
		return nil, 0, false
	}
	return p, id, true
}

type deploymentItem struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
}

// handleListDeployments is GET /api/v1/deployments: the deployments the
// key may access, by id, offset-paginated.
func (s *Server) handleListDeployments(w http.ResponseWriter, r *http.Request) {
	p, ok := s.authenticate(w, r, authOptions{})
	if !ok {
		return
	}
	offset, limit, ok := s.parseOffsetLimit(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	var all []deploymentItem
	for _, id := range sortedInt64s(s.st.deployments) {
		if !p.inScope(id) {
			continue
		}
		d := s.st.deployments[id]
		all = append(all, deploymentItem{ID: formatID(id), Name: d.name, CreatedAt: d.createdAt.UTC().Format(time.RFC3339)})
	}
	s.mu.Unlock()
	lo, hi := window(len(all), offset, limit)
	page := append([]deploymentItem{}, all[lo:hi]...)
	s.writeJSON(w, http.StatusOK, map[string]any{
		"data":       map[string]any{"deployments": page},
		"pagination": offsetPage{Offset: offset, Limit: limit, Total: len(all)},
	})
}

type environmentItem struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	Type           string         `json:"type"`
	APICredentials apiCredentials `json:"api_credentials"`
}

type apiCredentials struct {
	Rest struct {
		URL string `json:"url"`
	} `json:"rest"`
	SQL struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	} `json:"sql"`
}

// environmentsLocked lists a deployment's environments: the fixture's, then
// one staging environment per branch with its staging environment enabled.
func (d *deploymentRec) environmentsLocked() []environmentItem {
	var out []environmentItem
	var prod *Environment
	for i, e := range d.envs {
		if e.Type == "production" && prod == nil {
			prod = &d.envs[i]
		}
		item := environmentItem{ID: e.ID, Name: e.Name, Type: e.Type}
		item.APICredentials.Rest.URL = e.RestURL
		item.APICredentials.SQL.Host = e.SQLHost
		item.APICredentials.SQL.Port = e.SQLPort
		out = append(out, item)
	}
	for _, b := range d.branches {
		if !b.staging {
			continue
		}
		item := environmentItem{ID: "staging-" + b.Name, Name: b.Name + " (staging)", Type: "staging"}
		if prod != nil {
			item.APICredentials.Rest.URL = stagingURL(prod.RestURL, b.Name)
			item.APICredentials.SQL.Host = prod.SQLHost
			item.APICredentials.SQL.Port = prod.SQLPort
		}
		out = append(out, item)
	}
	return out
}

// stagingURL is the REST address of a branch's staging environment:
// <origin>/dev-mode/<branch><path of the production REST address>.
func stagingURL(prodURL, branch string) string {
	u, err := url.Parse(prodURL)
	if err != nil {
		return prodURL
	}
	u.Path = "/dev-mode/" + url.PathEscape(branch) + u.Path
	return u.String()
}

// handleListEnvironments is GET /api/v1/deployments/{id}/environments.
func (s *Server) handleListEnvironments(w http.ResponseWriter, r *http.Request) {
	_, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	typ := r.URL.Query().Get("type")
	switch typ {
	case "", "production", "staging", "development":
	default:
		s.writeError(w, http.StatusBadRequest, "type: must be production, staging or development")
		return
	}
	offset, limit, ok := s.parseOffsetLimit(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	d := s.st.deployments[id]
	var all []environmentItem
	if d != nil {
		for _, e := range d.environmentsLocked() {
			if typ == "" || e.Type == typ {
				all = append(all, e)
			}
		}
	}
	s.mu.Unlock()
	lo, hi := window(len(all), offset, limit)
	page := append([]environmentItem{}, all[lo:hi]...)
	s.writeJSON(w, http.StatusOK, map[string]any{
		"data":       map[string]any{"environments": page},
		"pagination": offsetPage{Offset: offset, Limit: limit, Total: len(all)},
	})
}

type metaTokenBody struct {
	SecurityContext map[string]any `json:"security_context"`
	ExpiresIn       *int64         `json:"expires_in"`
}

// handleMetaToken is POST .../environments/{environmentId}/tokens-for-meta-sync.
// The token is signed with a key of its own, so it is never accepted as an
// embed token; its lifetime is expires_in seconds (default 86400, at least
// 1).
func (s *Server) handleMetaToken(w http.ResponseWriter, r *http.Request) {
	p, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	envID := r.PathValue("environmentId")
	s.mu.Lock()
	found := false
	if d := s.st.deployments[id]; d != nil {
		for _, e := range d.environmentsLocked() {
			found = found || e.ID == envID
		}
	}
	s.mu.Unlock()
	if !found {
		s.writeError(w, http.StatusNotFound, "environment "+envID+" not found in deployment "+formatID(id))
		return
	}
	var b metaTokenBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	if b.SecurityContext == nil {
		s.writeError(w, http.StatusBadRequest, "security_context: is required (an object)")
		return
	}
	lifetime := int64(86400)
	if b.ExpiresIn != nil {
		if *b.ExpiresIn < 1 {
			s.writeError(w, http.StatusBadRequest, "expires_in: must be a positive number of seconds")
			return
		}
		lifetime = *b.ExpiresIn
	}
	now := s.now()
	exp := now.Add(time.Duration(lifetime) * time.Second)
	token, err := signToken(s.metaSecret, &tokenClaims{
		ID: randomHex(16), Issuer: tokenIssuer, Subject: "meta-sync:" + p.username,
		IssuedAt: now.Unix(), ExpiresAt: exp.Unix(), DeploymentID: id,
		SecurityContext: b.SecurityContext,
	})
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "cannot sign the metadata token")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{
		"token":      token,
		"created_at": now.UTC().Format(time.RFC3339),
		"expires_at": exp.UTC().Format(time.RFC3339),
	}})
}

type dataTokenBody struct {
	ExpiresIn *float64 `json:"expiresIn"`
}

// handleDataToken is POST /api/v1/deployments/{id}/token: a data-API token
// ({"cubeApiToken": "<JWT>"}, the platform's DeploymentTokenResponse; the
// specification does not show the shape) valid expiresIn seconds, 60 to
// 86400, default 86400. Revoking embed sessions never affects it.
func (s *Server) handleDataToken(w http.ResponseWriter, r *http.Request) {
	p, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	var b dataTokenBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	lifetime := int64(86400)
	if b.ExpiresIn != nil {
		v := *b.ExpiresIn
		if v != float64(int64(v)) || v < 60 || v > 86400 {
			s.writeError(w, http.StatusBadRequest, "expiresIn: must be an integer from 60 to 86400 seconds")
			return
		}
		lifetime = int64(v)
	}
	now := s.now()
	token, err := signToken(s.dataSecret, &tokenClaims{
		ID: randomHex(16), Issuer: tokenIssuer, Subject: strings.TrimPrefix(p.username, "embed:"),
		IssuedAt: now.Unix(), ExpiresAt: now.Unix() + lifetime, DeploymentID: id,
		SecurityContext: map[string]any{},
	})
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "cannot sign the data token")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"cubeApiToken": token})
}
