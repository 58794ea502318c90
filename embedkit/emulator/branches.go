package emulator

import (
	"fmt"
	"net/http"
)

type stagingBody struct {
	Enabled    *bool   `json:"enabled"`
	BranchName *string `json:"branchName"`
	BranchID   *int64  `json:"branchId"`
}

type branchResponse struct {
	ID                          int64  `json:"id"`
	Name                        string `json:"name"`
	ParentBranch                string `json:"parentBranch"`
	LastHash                    string `json:"lastHash"`
	IsStagingEnvironmentEnabled bool   `json:"isStagingEnvironmentEnabled"`
}

// handleStagingEnvironment is PUT
// /build/api/v1/deployments/{id}/branches/staging-environment: enabled is
// required, exactly one of branchName or branchId (400 otherwise); an
// unknown branch is 404; a personal or production branch is 400. An
// enabled branch is served and listed as a staging environment.
func (s *Server) handleStagingEnvironment(w http.ResponseWriter, r *http.Request) {
	_, id, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	var b stagingBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	switch {
	case b.Enabled == nil:
		s.writeError(w, http.StatusBadRequest, "enabled: is required")
		return
	case (b.BranchName == nil) == (b.BranchID == nil):
		s.writeError(w, http.StatusBadRequest, "branchName: give exactly one of branchName or branchId")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.deployments[id]
	if d == nil {
		s.writeError(w, http.StatusNotFound, "deployment "+formatID(id)+" not found")
		return
	}
	var br *branchRec
	if b.BranchName != nil {
		br = d.branchByName(*b.BranchName)
	} else {
		br = d.branchByID(*b.BranchID)
	}
	if br == nil {
		name := ""
		if b.BranchName != nil {
			name = fmt.Sprintf("branch %q", *b.BranchName)
		} else {
			name = fmt.Sprintf("branch id %d", *b.BranchID)
		}
		s.writeError(w, http.StatusNotFound, name+" is not a branch of deployment "+formatID(id))
		return
	}
	if br.Kind != "shared" {
		s.writeError(w, http.StatusBadRequest, fmt.Sprintf("branch %q is a %s branch; only shared branches can have a staging environment", br.Name, br.Kind))
		return
	}
	br.staging = *b.Enabled
	s.writeJSON(w, http.StatusOK, map[string]any{"data": branchResponse{
		ID: br.ID, Name: br.Name, ParentBranch: br.ParentBranch, LastHash: br.LastHash,
		IsStagingEnvironmentEnabled: br.staging,
	}})
}
