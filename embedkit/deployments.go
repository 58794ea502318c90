package embedkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// This file holds deployments and environments: their shapes, decoding,
// pagination and listing, and the running build's OpenAPI document.

// ListOptions select a page of an offset-paginated list. Zero Limit means
// the platform default (20).
type ListOptions struct {
	Offset int
	Limit  int
}

// Pagination is the position of an offset-paginated page.
type Pagination struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  int `json:"total"`
}

// Deployment is an item of the deployment list. The specification types
// the id as a string, the platform's schema as an integer: ID reads a JSON
// number or a string holding an integer ("42"); any other id fails the
// call with an error matching ErrUnexpectedResponse that names it.
type Deployment struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// DeploymentPage is one page of deployments.
type DeploymentPage struct {
	Deployments []Deployment
	Pagination  Pagination
}

// EnvironmentType is the kind of a deployment environment.
type EnvironmentType string

// The environment types.
const (
	EnvironmentProduction  EnvironmentType = "production"
	EnvironmentStaging     EnvironmentType = "staging"
	EnvironmentDevelopment EnvironmentType = "development"
)

// Environment is an item of a deployment's environment list. An enabled
// branch staging environment is listed with type staging.
type Environment struct {
	ID      string
	Name    string
	Type    EnvironmentType
	RESTURL string // api_credentials.rest.url
	SQLHost string // api_credentials.sql.host
	SQLPort int    // api_credentials.sql.port
}

// EnvironmentListOptions select a page of environments, optionally of one
// type.
type EnvironmentListOptions struct {
	Type EnvironmentType
	ListOptions
}

// EnvironmentPage is one page of environments.
type EnvironmentPage struct {
	Environments []Environment
	Pagination   Pagination
}

// deploymentWire is a deployment as either source sends it.
type deploymentWire struct {
	ID          flexInt64 `json:"id"`
	Name        string    `json:"name"`
	CreatedAt   flexTime  `json:"created_at"`
	CreatedAtCC flexTime  `json:"createdAt"`
}

// UnmarshalJSON reads a deployment whose id is a number or a string.
func (d *Deployment) UnmarshalJSON(b []byte) error {
	var w deploymentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("deployment: %w", err)
	}
	d.ID, d.Name = int64(w.ID), w.Name
	d.CreatedAt = time.Time(w.CreatedAt)
	if d.CreatedAt.IsZero() {
		d.CreatedAt = time.Time(w.CreatedAtCC)
	}
	return nil
}

// MarshalJSON writes the specification's shape: {"id": "1", "name": ...,
// "created_at": ...}.
func (d Deployment) MarshalJSON() ([]byte, error) {
	w := struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		CreatedAt string `json:"created_at,omitzero"`
	}{ID: strconv.FormatInt(d.ID, 10), Name: d.Name}
	if !d.CreatedAt.IsZero() {
		w.CreatedAt = d.CreatedAt.Format(time.RFC3339Nano)
	}
	return json.Marshal(w)
}

// credentialWire is one entry of the array form of api_credentials.
type credentialWire struct {
	Type string    `json:"type"`
	URL  string    `json:"url"`
	Host string    `json:"host"`
	Port flexInt64 `json:"port"`
}

// environmentWire is an environment as either source sends it.
type environmentWire struct {
	ID             flexString      `json:"id"`
	Name           string          `json:"name"`
	Type           EnvironmentType `json:"type"`
	APICredentials json.RawMessage `json:"api_credentials"`
}

// UnmarshalJSON reads an environment whose api_credentials is an object
// {"rest": {"url"}, "sql": {"host", "port"}} or an array of entries typed
// "rest" or "sql".
func (e *Environment) UnmarshalJSON(b []byte) error {
	var w environmentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("environment: %w", err)
	}
	*e = Environment{ID: string(w.ID), Name: w.Name, Type: w.Type}
	creds := bytes.TrimSpace(w.APICredentials)
	switch {
	case len(creds) == 0 || bytes.Equal(creds, []byte("null")):
	case creds[0] == '[':
		var list []credentialWire
		if err := json.Unmarshal(creds, &list); err != nil {
			return fmt.Errorf("environment api_credentials: %w", err)
		}
		for _, c := range list {
			switch strings.ToLower(c.Type) {
			case "rest":
				e.RESTURL = c.URL
			case "sql":
				e.SQLHost, e.SQLPort = c.Host, int(c.Port)
			}
		}
	case creds[0] == '{':
		var obj struct {
			REST *struct {
				URL string `json:"url"`
			} `json:"rest"`
			SQL *struct {
				Host string    `json:"host"`
				Port flexInt64 `json:"port"`
			} `json:"sql"`
		}
		if err := json.Unmarshal(creds, &obj); err != nil {
			return fmt.Errorf("environment api_credentials: %w", err)
		}
		if obj.REST != nil {
			e.RESTURL = obj.REST.URL
		}
		if obj.SQL != nil {
			e.SQLHost, e.SQLPort = obj.SQL.Host, int(obj.SQL.Port)
		}
	default:
		return errors.New("environment api_credentials is neither an object nor an array")
	}
	return nil
}

// MarshalJSON writes the specification's shape, with api_credentials as
// an object.
func (e Environment) MarshalJSON() ([]byte, error) {
	type rest struct {
		URL string `json:"url"`
	}
	type sql struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	}
	w := struct {
		ID             string          `json:"id"`
		Name           string          `json:"name"`
		Type           EnvironmentType `json:"type"`
		APICredentials struct {
			REST *rest `json:"rest,omitzero"`
			SQL  *sql  `json:"sql,omitzero"`
		} `json:"api_credentials"`
	}{ID: e.ID, Name: e.Name, Type: e.Type}
	if e.RESTURL != "" {
		w.APICredentials.REST = &rest{URL: e.RESTURL}
	}
	if e.SQLHost != "" || e.SQLPort != 0 {
		w.APICredentials.SQL = &sql{Host: e.SQLHost, Port: e.SQLPort}
	}
	return json.Marshal(w)
}

// decodeDeployments reads either shape of the deployment list.
// known reports whether the platform sent a total.
func decodeDeployments(body []byte) (page *DeploymentPage, known bool, err error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, false, err
	}
	list, err := listOf[Deployment](env.Items, env.Data, "deployments")
	if err != nil {
		return nil, false, err
	}
	page = &DeploymentPage{Deployments: list}
	return page, fillPagination(&page.Pagination, env), nil
}

// decodeEnvironments reads either shape of the environment list.
// known reports whether the platform sent a total.
func decodeEnvironments(body []byte) (page *EnvironmentPage, known bool, err error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, false, err
	}
	list, err := listOf[Environment](env.Items, env.Data, "environments")
	if err != nil {
		return nil, false, err
	}
	page = &EnvironmentPage{Environments: list}
	return page, fillPagination(&page.Pagination, env), nil
}

// fillPagination copies the pagination, or takes the total from count
// when the platform sent no pagination. It reports whether a total was
// sent at all.
func fillPagination(p *Pagination, env listEnvelope) bool {
	switch {
	case env.Pagination != nil:
		*p = *env.Pagination
	case env.Count != nil:
		p.Total = *env.Count
	default:
		return false
	}
	return true
}

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
	return paginate(func() pager[Deployment] {
		opts := ListOptions{Limit: pageSize}
		return func() ([]Deployment, bool, error) {
			page, known, err := c.listDeployments(ctx, opts)
			if err != nil {
				return nil, false, err
			}
			more := morePages(opts, len(page.Deployments), page.Pagination, known)
			opts.Offset += len(page.Deployments)
			return page.Deployments, more, nil
		}
	})
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
	return paginate(func() pager[Environment] {
		opts := EnvironmentListOptions{Type: typ, ListOptions: ListOptions{Limit: pageSize}}
		return func() ([]Environment, bool, error) {
			page, known, err := c.listEnvironments(ctx, deploymentID, opts)
			if err != nil {
				return nil, false, err
			}
			more := morePages(opts.ListOptions, len(page.Environments), page.Pagination, known)
			opts.Offset += len(page.Environments)
			return page.Environments, more, nil
		}
	})
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
