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

// GenerateSession mints a single-use embed session:
// POST /api/v1/embed/generate-session.
//
// The request is checked with its Validate method first. What is sent is a
// normalised copy (ExternalID trimmed and lower-cased); req itself is never
// modified. Session.ExpiresAt is the Client's clock at response time plus
// SessionLifetime.
//
// The call is not retried once it may have reached the platform (after a
// 5xx or a connection broken mid-request), because a retry could mint a
// second session; it is retried when the connection could not be opened
// and on 429.
func (c *Client) GenerateSession(ctx context.Context, req *GenerateSessionRequest) (*Session, error) {
	if req == nil {
		return nil, &ValidationError{Op: "generate-session", Problems: []FieldError{{Field: "deploymentId", Rule: "is required"}}}
	}
	cp := *req
	cp.ExternalID = NormalizeExternalID(cp.ExternalID)
	if err := cp.Validate(); err != nil {
		return nil, err
	}
	const path = "/api/v1/embed/generate-session"
	return fetch(ctx, c, http.MethodPost, path, &cp, call{template: path, secretResponse: true}, func(body []byte) (*Session, error) {
		var w struct {
			SessionID flexString `json:"sessionId"`
		}
		if err := json.Unmarshal(unwrapData(body), &w); err != nil {
			return nil, err
		}
		if w.SessionID == "" {
			return nil, errors.New("sessionId missing")
		}
		return &Session{SessionID: string(w.SessionID), ExpiresAt: c.now().Add(SessionLifetime)}, nil
	})
}

// RevokeSession revokes a session id and any embed token already
// exchanged for it: POST /api/v1/embed/session/revoke. The platform
// answers 204 also for unknown, expired or already revoked ids, so the
// call is idempotent and is retried like a GET.
func (c *Client) RevokeSession(ctx context.Context, sessionID string) error {
	if err := ValidateSessionID(sessionID); err != nil {
		return err
	}
	const path = "/api/v1/embed/session/revoke"
	hreq, err := c.NewRequest(ctx, http.MethodPost, path, map[string]string{"sessionId": sessionID})
	if err != nil {
		return err
	}
	_, _, err = c.send(hreq, call{template: path, idempotent: true, secrets: []string{sessionID}})
	return err
}

// ExchangeSession exchanges a session id for a signed embed token:
// POST /api/v1/embed/session/token. No credential is sent: the session id
// is the credential. The id is single-use, so the call is retried only
// when the platform cannot have seen it. The embedding iframe normally
// does this exchange itself; the method exists for tests and for hosts
// that render the embed themselves.
func (c *Client) ExchangeSession(ctx context.Context, sessionID string) (*EmbedToken, error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return nil, err
	}
	const path = "/api/v1/embed/session/token"
	cl := call{template: path, noAuth: true, secrets: []string{sessionID}, secretResponse: true}
	return fetch(ctx, c, http.MethodPost, path, map[string]string{"sessionId": sessionID}, cl, func(body []byte) (*EmbedToken, error) {
		var w struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(unwrapData(body), &w); err != nil {
			return nil, err
		}
		if w.Token == "" {
			return nil, errors.New("token missing")
		}
		return &EmbedToken{Token: w.Token}, nil
	})
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
	return func(yield func(TenantGroup, error) bool) {
		opts := CursorOptions{First: 100}
		for {
			page, err := c.ListTenantGroups(ctx, tenant, opts)
			if err != nil {
				yield(TenantGroup{}, err)
				return
			}
			for _, g := range page.Items {
				if !yield(g, nil) {
					return
				}
			}
			next := page.PageInfo.EndCursor
			if !page.PageInfo.HasNextPage || next == "" || next == opts.After || len(page.Items) == 0 {
				return
			}
			opts.After = next
		}
	}
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
