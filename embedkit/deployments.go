package embedkit

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// pageSize is the page size the iterators ask for.
const pageSize = 100

// checkList is the offset/limit check.
func checkList(o ListOptions) []FieldError {
	var probs []FieldError
	if o.Offset < 0 {
		probs = append(probs, FieldError{Field: "offset", Rule: "must not be negative"})
	}
	if o.Limit < 0 {
		probs = append(probs, FieldError{Field: "limit", Rule: "must not be negative"})
	}
	return probs
}

// listQuery encodes offset and limit, leaving zero values to the platform.
func listQuery(q url.Values, o ListOptions) {
	if o.Offset > 0 {
		q.Set("offset", strconv.Itoa(o.Offset))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
}

// withQuery appends q to path when it is not empty.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// deploymentPath is /api/v1/deployments/{id}.
func deploymentPath(id int64) string {
	return "/api/v1/deployments/" + strconv.FormatInt(id, 10)
}

// ListDeployments returns one page of the deployments the key can see:
// GET /api/v1/deployments?offset=&limit=. Both response shapes the
// platform documents are read; ids given as strings become numbers.
func (c *Client) ListDeployments(ctx context.Context, opts ListOptions) (*DeploymentPage, error) {
	page, _, err := c.listDeployments(ctx, opts)
	return page, err
}

func (c *Client) listDeployments(ctx context.Context, opts ListOptions) (*DeploymentPage, bool, error) {
	if err := validationErr("list-deployments", checkList(opts), nil); err != nil {
		return nil, false, err
	}
	q := url.Values{}
	listQuery(q, opts)
	var known bool
	page, err := fetch(ctx, c, http.MethodGet, withQuery("/api/v1/deployments", q), nil, call{template: "/api/v1/deployments"},
		func(body []byte) (page *DeploymentPage, err error) {
			page, known, err = decodeDeployments(body)
			return page, err
		})
	return page, known, err
}

// Deployments iterates over every deployment, page by page. The iteration
// stops at the first error, which it yields.
func (c *Client) Deployments(ctx context.Context) iter.Seq2[Deployment, error] {
	return func(yield func(Deployment, error) bool) {
		opts := ListOptions{Limit: pageSize}
		for {
			page, known, err := c.listDeployments(ctx, opts)
			if err != nil {
				yield(Deployment{}, err)
				return
			}
			for _, d := range page.Deployments {
				if !yield(d, nil) {
					return
				}
			}
			if !morePages(opts, len(page.Deployments), page.Pagination, known) {
				return
			}
			opts.Offset += len(page.Deployments)
		}
	}
}

// morePages decides whether an offset-paginated iteration goes on.
func morePages(asked ListOptions, got int, p Pagination, known bool) bool {
	if got == 0 {
		return false
	}
	if known {
		return asked.Offset+got < p.Total
	}
	limit := asked.Limit
	if p.Limit > 0 {
		limit = p.Limit
	}
	return got >= limit
}

// ListEnvironments returns one page of a deployment's environments:
// GET /api/v1/deployments/{deploymentId}/environments?type=&offset=&limit=.
func (c *Client) ListEnvironments(ctx context.Context, deploymentID int64, opts EnvironmentListOptions) (*EnvironmentPage, error) {
	page, _, err := c.listEnvironments(ctx, deploymentID, opts)
	return page, err
}

func (c *Client) listEnvironments(ctx context.Context, deploymentID int64, opts EnvironmentListOptions) (*EnvironmentPage, bool, error) {
	probs := checkDeployment(deploymentID)
	switch opts.Type {
	case "", EnvironmentProduction, EnvironmentStaging, EnvironmentDevelopment:
	default:
		probs = append(probs, FieldError{Field: "type", Rule: "must be one of production, staging, development"})
	}
	probs = append(probs, checkList(opts.ListOptions)...)
	if err := validationErr("list-environments", probs, nil); err != nil {
		return nil, false, err
	}
	q := url.Values{}
	if opts.Type != "" {
		q.Set("type", string(opts.Type))
	}
	listQuery(q, opts.ListOptions)
	var known bool
	page, err := fetch(ctx, c, http.MethodGet, withQuery(deploymentPath(deploymentID)+"/environments", q), nil,
		call{template: "/api/v1/deployments/{deploymentId}/environments"},
		func(body []byte) (page *EnvironmentPage, err error) {
			page, known, err = decodeEnvironments(body)
			return page, err
		})
	return page, known, err
}

// Environments iterates over every environment of a deployment, of one
// type or (typ empty) of all. The iteration stops at the first error,
// which it yields.
func (c *Client) Environments(ctx context.Context, deploymentID int64, typ EnvironmentType) iter.Seq2[Environment, error] {
	return func(yield func(Environment, error) bool) {
		opts := EnvironmentListOptions{Type: typ, ListOptions: ListOptions{Limit: pageSize}}
		for {
			page, known, err := c.listEnvironments(ctx, deploymentID, opts)
			if err != nil {
				yield(Environment{}, err)
				return
			}
			for _, e := range page.Environments {
				if !yield(e, nil) {
					return
				}
			}
			if !morePages(opts.ListOptions, len(page.Environments), page.Pagination, known) {
				return
			}
			opts.Offset += len(page.Environments)
		}
	}
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
	var bodyErr error
	if req == nil {
		probs = append(probs, FieldError{Field: "security_context", Rule: "is required"})
	} else {
		bodyErr = req.Validate()
	}
	if err := validationErr("tokens-for-meta-sync", probs, bodyErr); err != nil {
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

// ListVersions lists the versions a deployment can switch to (the head of
// each update channel plus versions the account ran before):
// GET /api/v1/deployments/{deploymentId}/versions.
func (c *Client) ListVersions(ctx context.Context, deploymentID int64) ([]DeploymentVersion, error) {
	if err := validationErr("list-versions", checkDeployment(deploymentID), nil); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodGet, deploymentPath(deploymentID)+"/versions", nil,
		call{template: "/api/v1/deployments/{deploymentId}/versions"}, decodeVersions)
}

// UpdateDeployment applies a partial update to a deployment:
// PUT /api/v1/deployments/{deploymentId}. Zero fields of req are left
// untouched; TemplateVariables merge key by key.
func (c *Client) UpdateDeployment(ctx context.Context, deploymentID int64, req *UpdateDeploymentRequest) (*DeploymentSettings, error) {
	probs := checkDeployment(deploymentID)
	var bodyErr error
	if req == nil {
		probs = append(probs, FieldError{Field: "body", Rule: "is required"})
	} else {
		bodyErr = req.Validate()
	}
	if err := validationErr("update-deployment", probs, bodyErr); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodPut, deploymentPath(deploymentID), req, call{template: "/api/v1/deployments/{deploymentId}"},
		func(body []byte) (*DeploymentSettings, error) {
			var s DeploymentSettings
			if err := json.Unmarshal(unwrapData(body), &s); err != nil {
				return nil, err
			}
			return &s, nil
		})
}

// SwitchVersion switches a deployment to a version listed by
// ListVersions. version may be "1.4.2", "v1.4.2" or "image/repo:v1.4.2";
// it is checked with ParseVersion and sent as given, so the platform
// matches it against its list in the caller's spelling. A version the
// platform does not list, including a listed semver under an image
// repository the list does not name, gives a 400.
func (c *Client) SwitchVersion(ctx context.Context, deploymentID int64, version string) (*DeploymentSettings, error) {
	_, err := ParseVersion(version)
	if err := validationErr("update-deployment", checkDeployment(deploymentID), err); err != nil {
		return nil, err
	}
	return c.UpdateDeployment(ctx, deploymentID, &UpdateDeploymentRequest{ReleaseChannelVersion: version})
}

// Spec returns the OpenAPI document of the running platform build:
// GET /api/v1/spec.
func (c *Client) Spec(ctx context.Context) (json.RawMessage, error) {
	return fetch(ctx, c, http.MethodGet, "/api/v1/spec", nil, call{template: "/api/v1/spec"}, func(body []byte) (json.RawMessage, error) {
		if !json.Valid(body) {
			return nil, errors.New("not JSON")
		}
		return json.RawMessage(body), nil
	})
}

// SetStagingEnvironment enables or disables the always-on staging
// environment of a shared branch:
// PUT /build/api/v1/deployments/{deploymentId}/branches/staging-environment.
// Personal development branches and the production branch are rejected by
// the platform.
func (c *Client) SetStagingEnvironment(ctx context.Context, deploymentID int64, req *StagingEnvironmentRequest) (*Branch, error) {
	probs := checkDeployment(deploymentID)
	var bodyErr error
	if req == nil {
		probs = append(probs, FieldError{Field: "body", Rule: "is required"})
	} else {
		bodyErr = req.Validate()
	}
	if err := validationErr("staging-environment", probs, bodyErr); err != nil {
		return nil, err
	}
	path := "/build" + deploymentPath(deploymentID) + "/branches/staging-environment"
	return fetch(ctx, c, http.MethodPut, path, req,
		call{template: "/build/api/v1/deployments/{deploymentId}/branches/staging-environment"}, decodeBranch)
}
