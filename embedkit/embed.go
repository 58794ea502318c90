package embedkit

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// This file holds embed tenants' groups and the embedded-dashboard check.

// TenantGroup is an item of the embed-tenant group list. The platform does
// not document the item fields beyond these; Raw holds the whole item.
type TenantGroup struct {
	ID          string          `json:"-"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitzero"`
	Raw         json.RawMessage `json:"-"`
}

// PageInfo is the cursor of a cursor-paginated list. Pass EndCursor as
// CursorOptions.After to get the next page.
type PageInfo struct {
	HasNextPage     bool   `json:"hasNextPage"`
	HasPreviousPage bool   `json:"hasPreviousPage"`
	StartCursor     string `json:"startCursor,omitzero"`
	EndCursor       string `json:"endCursor,omitzero"`
}

// CursorOptions select a page of a cursor-paginated list. Zero First means
// the platform default.
type CursorOptions struct {
	First int
	After string
}

// TenantGroupPage is one page of embed-tenant groups.
type TenantGroupPage struct {
	Items    []TenantGroup
	PageInfo PageInfo
}

// UnmarshalJSON reads a tenant group whose id is a string or a number and
// keeps the whole item in Raw.
func (g *TenantGroup) UnmarshalJSON(b []byte) error {
	var w struct {
		ID          flexString `json:"id"`
		Name        string     `json:"name"`
		Description *string    `json:"description"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("tenant group: %w", err)
	}
	*g = TenantGroup{ID: string(w.ID), Name: w.Name, Raw: append(json.RawMessage(nil), b...)}
	if w.Description != nil {
		g.Description = *w.Description
	}
	return nil
}

// MarshalJSON writes {"id", "name", "description"}.
func (g TenantGroup) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description,omitzero"`
	}{g.ID, g.Name, g.Description})
}

// decodeTenantGroups reads {"items": [...], "pageInfo": {...}} or the
// legacy {"data": [...]}.
func decodeTenantGroups(body []byte) (*TenantGroupPage, error) {
	var env listEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	list, err := listOf[TenantGroup](env.Items, env.Data, "groups")
	if err != nil {
		return nil, err
	}
	page := &TenantGroupPage{Items: list}
	if env.PageInfo != nil {
		page.PageInfo = *env.PageInfo
	}
	return page, nil
}

// CheckEmbedDashboard asks the platform whether a signed embed may show
// the published dashboard publicID: GET /api/v1/embed/dashboard/{publicId},
// the call the embedded page makes, authenticated with an embed token from
// ExchangeSession in place of the API key. It returns nil when the
// platform serves the dashboard, and otherwise the *APIError: the
// platform's documentation says 403 when the dashboard's "Allow signed
// embedding" switch is off (turn it on in the dashboard's settings, or
// with "cube embed enable-dashboard <publicId>"). The answer's body is not
// documented and is not read. The token is never quoted in an error.
func (c *Client) CheckEmbedDashboard(ctx context.Context, token *EmbedToken, publicID string) error {
	var probs []FieldError
	if token == nil || token.Token == "" {
		probs = append(probs, FieldError{Field: "token", Rule: "is required (an embed token from ExchangeSession)"})
	}
	switch {
	case publicID == "":
		probs = append(probs, FieldError{Field: "publicId", Rule: "is required"})
	case strings.ContainsAny(publicID, "/?#%\\") || strings.TrimSpace(publicID) != publicID:
		probs = append(probs, FieldError{Field: "publicId", Rule: "must be one path segment without / ? # % \\ or surrounding spaces"})
	}
	if err := validationErr("embed-dashboard", probs, nil); err != nil {
		return err
	}
	path := "/api/v1/embed/dashboard/" + url.PathEscape(publicID)
	cl := call{template: "/api/v1/embed/dashboard/{publicId}", bearer: token.Token}
	_, err := fetch(ctx, c, http.MethodGet, path, nil, cl, func([]byte) (struct{}, error) { return struct{}{}, nil })
	return err
}

// ListTenantGroups returns one page of the groups of an embed tenant:
// GET /api/v1/embed-tenants/{embedTenantName}/groups?first=&after=.
func (c *Client) ListTenantGroups(ctx context.Context, tenant string, opts CursorOptions) (*TenantGroupPage, error) {
	var probs []FieldError
	if opts.First < 0 {
		probs = append(probs, FieldError{Field: "first", Rule: "must not be negative"})
	}
	if err := validationErr("list-tenant-groups", probs, ValidateTenantName(tenant)); err != nil {
		return nil, err
	}
	q := url.Values{}
	if opts.First > 0 {
		q.Set("first", strconv.Itoa(opts.First))
	}
	if opts.After != "" {
		q.Set("after", opts.After)
	}
	path := "/api/v1/embed-tenants/" + url.PathEscape(tenant) + "/groups"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return fetch(ctx, c, http.MethodGet, path, nil, call{template: "/api/v1/embed-tenants/{embedTenantName}/groups"}, decodeTenantGroups)
}

// TenantGroups iterates over every group of an embed tenant, following
// the cursor. The iteration stops at the first error, which it yields.
func (c *Client) TenantGroups(ctx context.Context, tenant string) iter.Seq2[TenantGroup, error] {
	return paginate(func() pager[TenantGroup] {
		opts := CursorOptions{First: 100}
		return func() ([]TenantGroup, bool, error) {
			page, err := c.ListTenantGroups(ctx, tenant, opts)
			if err != nil {
				return nil, false, err
			}
			next := page.PageInfo.EndCursor
			more := page.PageInfo.HasNextPage && next != "" && next != opts.After && len(page.Items) > 0
			opts.After = next
			return page.Items, more, nil
		}
	})
}

// DeleteTenantGroup deletes a group of an embed tenant:
// DELETE /api/v1/embed-tenants/{embedTenantName}/groups/{id}.
func (c *Client) DeleteTenantGroup(ctx context.Context, tenant, id string) error {
	var probs []FieldError
	if strings.TrimSpace(id) == "" {
		probs = append(probs, FieldError{Field: "id", Rule: "is required"})
	}
	if err := validationErr("delete-tenant-group", probs, ValidateTenantName(tenant)); err != nil {
		return err
	}
	path := "/api/v1/embed-tenants/" + url.PathEscape(tenant) + "/groups/" + url.PathEscape(id)
	hreq, err := c.NewRequest(ctx, http.MethodDelete, path, nil)
	if err != nil {
		return err
	}
	_, _, err = c.send(hreq, call{template: "/api/v1/embed-tenants/{embedTenantName}/groups/{id}"})
	return err
}
