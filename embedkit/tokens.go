package embedkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file holds the metadata and data API tokens of a deployment.

// MetaTokenRequest is the body of tokens-for-meta-sync.
type MetaTokenRequest struct {
	// SecurityContext is embedded in the token and controls which parts of
	// the data model are visible. Required (may be empty, not nil).
	SecurityContext map[string]any `json:"security_context"`
	// ExpiresIn is the lifetime in seconds; zero means the default, 86400.
	ExpiresIn int `json:"expires_in,omitzero"`
}

// MetaToken is a metadata-only token. Its String method never prints the
// token.
type MetaToken struct {
	Token     string    `json:"token"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// DataAPITokenRequest is the optional body of POST /deployments/{id}/token.
type DataAPITokenRequest struct {
	// ExpiresIn is the lifetime in seconds, 60 to 86400; zero means 86400.
	ExpiresIn int `json:"expiresIn,omitzero"`
}

// DataAPIToken is a data API token, read from the response's cubeApiToken
// (the documented field; token is accepted too). Its String method never
// prints the token.
type DataAPIToken struct {
	Token string `json:"token"`
}

// Validate reports the problems of a tokens-for-meta-sync request, Op
// "tokens-for-meta-sync": security_context is required (a non-nil map;
// empty is allowed), JSON-encodable and nested at most
// MaxSecurityContextDepth levels; expires_in is zero (the platform
// default) or at least 1.
func (r *MetaTokenRequest) Validate() error {
	if r == nil {
		r = &MetaTokenRequest{}
	}
	p := problems{op: "tokens-for-meta-sync"}
	if r.SecurityContext == nil {
		p.add("security_context", ruleRequired)
	} else {
		checkEncodable(&p, "security_context", r.SecurityContext)
	}
	if r.ExpiresIn < 0 {
		p.add("expires_in", "must be at least 1")
	}
	return p.err()
}

// Validate reports the problems of a deployment-token request, Op
// "deployment-token": expiresIn is zero (the default, 86400) or between 60
// and 86400 seconds. A nil request is valid.
func (r *DataAPITokenRequest) Validate() error {
	if r == nil || r.ExpiresIn == 0 {
		return nil
	}
	if r.ExpiresIn < 60 || r.ExpiresIn > 86400 {
		p := problems{op: "deployment-token"}
		p.add("expiresIn", "must be between 60 and 86400")
		return p.err()
	}
	return nil
}

// decodeMetaToken reads {"data": {"token", "created_at", "expires_at"}}
// (or the same object unwrapped).
func decodeMetaToken(body []byte) (*MetaToken, error) {
	var w struct {
		Token       string   `json:"token"`
		CreatedAt   flexTime `json:"created_at"`
		ExpiresAt   flexTime `json:"expires_at"`
		CreatedAtCC flexTime `json:"createdAt"`
		ExpiresAtCC flexTime `json:"expiresAt"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.Token == "" {
		return nil, errors.New("token missing")
	}
	t := &MetaToken{Token: w.Token, CreatedAt: time.Time(w.CreatedAt), ExpiresAt: time.Time(w.ExpiresAt)}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Time(w.CreatedAtCC)
	}
	if t.ExpiresAt.IsZero() {
		t.ExpiresAt = time.Time(w.ExpiresAtCC)
	}
	return t, nil
}

// dataAPITokenFields are the fields decodeDataAPIToken reads, in order.
// The specification does not show the response; the platform's schema
// documents it as DeploymentTokenResponse {cubeApiToken string, required}
// (notes, section 9), so cubeApiToken is read first. token, the field of
// the specification's other token results, is read only as a tolerance
// when cubeApiToken is missing, null or empty.
var dataAPITokenFields = [...]string{"cubeApiToken", "token"}

// decodeDataAPIToken reads {"cubeApiToken"} (or, as a tolerance,
// {"token"}), unwrapped or under "data".
func decodeDataAPIToken(body []byte) (*DataAPIToken, error) {
	var w map[string]json.RawMessage
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	for _, k := range dataAPITokenFields {
		if raw, ok := w[k]; ok && !isNull(raw) {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s is not a string", k)
			}
			if s != "" {
				return &DataAPIToken{Token: s}, nil
			}
		}
	}
	return nil, errors.New("cubeApiToken missing")
}

// CreateMetaToken issues a metadata-only token for an environment:
// POST /api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync.
// The token cannot query data. The call is not retried once it may have
// reached the platform.
func (c *Client) CreateMetaToken(ctx context.Context, deploymentID int64, environmentID string, req *MetaTokenRequest) (*MetaToken, error) {
	probs := checkDeployment(deploymentID)
	if strings.TrimSpace(environmentID) == "" {
		probs = append(probs, FieldError{Field: "environmentId", Rule: "is required"})
	}
	if err := validationErr("tokens-for-meta-sync", probs, req.Validate()); err != nil {
		return nil, err
	}
	path := deploymentPath(deploymentID) + "/environments/" + url.PathEscape(environmentID) + "/tokens-for-meta-sync"
	return fetch(ctx, c, http.MethodPost, path, req,
		call{template: "/api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync", secretResponse: true},
		decodeMetaToken)
}

// CreateDataAPIToken issues a data API token for a deployment:
// POST /api/v1/deployments/{deploymentId}/token. A nil req sends no body
// (the platform default lifetime, 24 hours). The token is not affected by
// session revocation. The call is not retried once it may have reached the
// platform.
func (c *Client) CreateDataAPIToken(ctx context.Context, deploymentID int64, req *DataAPITokenRequest) (*DataAPIToken, error) {
	probs := checkDeployment(deploymentID)
	var bodyErr error
	if req != nil {
		bodyErr = req.Validate()
	}
	if err := validationErr("deployment-token", probs, bodyErr); err != nil {
		return nil, err
	}
	var body any
	if req != nil {
		body = req
	}
	return fetch(ctx, c, http.MethodPost, deploymentPath(deploymentID)+"/token", body,
		call{template: "/api/v1/deployments/{deploymentId}/token", secretResponse: true}, decodeDataAPIToken)
}
