package embedkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// This file holds branch staging environments.

// StagingEnvironmentRequest is the body of PUT
// /build/api/v1/deployments/{id}/branches/staging-environment. Give
// exactly one of BranchName or BranchID (branch ids are positive; zero
// means unset).
type StagingEnvironmentRequest struct {
	Enabled    bool   `json:"enabled"`
	BranchName string `json:"branchName,omitzero"`
	BranchID   int64  `json:"branchId,omitzero"`
}

// Branch is a data model branch.
type Branch struct {
	ID                          int64  `json:"id"`
	Name                        string `json:"name"`
	ParentBranch                string `json:"parentBranch"`
	LastHash                    string `json:"lastHash"`
	IsStagingEnvironmentEnabled bool   `json:"isStagingEnvironmentEnabled"`
}

// Validate reports the problems of a staging-environment request, Op
// "staging-environment": exactly one of branchName or branchId (zero
// means unset), branchId not negative, branchName not blank and without
// control characters.
func (r *StagingEnvironmentRequest) Validate() error {
	if r == nil {
		r = &StagingEnvironmentRequest{}
	}
	p := problems{op: "staging-environment"}
	if (r.BranchName == "") == (r.BranchID == 0) {
		p.add("branchName", "give exactly one of branchName or branchId")
	}
	if r.BranchName != "" {
		switch {
		case strings.TrimSpace(r.BranchName) == "":
			p.add("branchName", ruleBlank)
		case !utf8.ValidString(r.BranchName):
			p.add("branchName", ruleUTF8)
		case hasControlChar(r.BranchName):
			p.add("branchName", ruleControl)
		}
	}
	if r.BranchID < 0 {
		p.add("branchId", ruleNotNegative)
	}
	return p.err()
}

// UnmarshalJSON reads a branch whose id is a number or a string and whose
// optional fields may be null.
func (br *Branch) UnmarshalJSON(b []byte) error {
	var w struct {
		ID                          flexInt64 `json:"id"`
		Name                        string    `json:"name"`
		ParentBranch                *string   `json:"parentBranch"`
		LastHash                    *string   `json:"lastHash"`
		IsStagingEnvironmentEnabled *bool     `json:"isStagingEnvironmentEnabled"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("branch: %w", err)
	}
	*br = Branch{ID: int64(w.ID), Name: w.Name}
	if w.ParentBranch != nil {
		br.ParentBranch = *w.ParentBranch
	}
	if w.LastHash != nil {
		br.LastHash = *w.LastHash
	}
	if w.IsStagingEnvironmentEnabled != nil {
		br.IsStagingEnvironmentEnabled = *w.IsStagingEnvironmentEnabled
	}
	return nil
}

// decodeBranch reads {"data": Branch} or a bare Branch.
func decodeBranch(body []byte) (*Branch, error) {
	var br Branch
	if err := json.Unmarshal(unwrapData(body), &br); err != nil {
		return nil, err
	}
	return &br, nil
}

// SetStagingEnvironment enables or disables the always-on staging
// environment of a shared branch:
// PUT /build/api/v1/deployments/{deploymentId}/branches/staging-environment.
// Personal development branches and the production branch are rejected by
// the platform.
func (c *Client) SetStagingEnvironment(ctx context.Context, deploymentID int64, req *StagingEnvironmentRequest) (*Branch, error) {
	probs := checkDeployment(deploymentID)
	if req == nil {
		// enabled is required and a bool: only a missing body lacks it.
		probs = append(probs, FieldError{Field: "enabled", Rule: ruleRequired})
	}
	if err := validationErr("staging-environment", probs, req.Validate()); err != nil {
		return nil, err
	}
	path := "/build" + deploymentPath(deploymentID) + "/branches/staging-environment"
	return fetch(ctx, c, http.MethodPut, path, req,
		call{template: "/build/api/v1/deployments/{deploymentId}/branches/staging-environment"}, decodeBranch)
}
