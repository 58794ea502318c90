package embedkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestGenerateSession(t *testing.T) {
	clk := newFakeClock()
	for _, scheme := range []string{"Bearer", "Api-Key"} {
		t.Run(scheme, func(t *testing.T) {
			c, mux, _ := setup(t, WithClock(clk.Now), WithAPIKeyHeader(scheme))
			mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
				testAuth(t, r, scheme)
				testHeader(t, r, "Content-Type", "application/json")
				testQuery(t, r, "")
				testJSONBody(t, r, `{
					"deploymentId": 12,
					"externalId": "user@example.com",
					"email": "user@example.com",
					"embedTenantName": "acme",
					"creatorMode": true,
					"groups": [],
					"tenantGroups": ["analysts"],
					"userAttributes": [{"name":"region","value":"eu"},{"name":"cleared","value":null}],
					"securityContext": {"tenant_id": 7},
					"settings": {"allowAi": false, "locale": "de-DE"},
					"branchName": "feature"
				}`)
				writeJSON(w, 200, `{"sessionId":"`+testSession+`"}`)
			})
			req := &GenerateSessionRequest{
				DeploymentID:    12,
				ExternalID:      "  User@Example.COM ",
				Email:           "user@example.com",
				EmbedTenantName: "acme",
				CreatorMode:     new(true),
				Groups:          []string{},
				TenantGroups:    []string{"analysts"},
				UserAttributes:  []UserAttributeInput{{Name: "region", Value: "eu"}, {Name: "cleared", Value: nil}},
				SecurityContext: map[string]any{"tenant_id": 7},
				Settings:        &EmbedSessionSettings{AllowAI: new(false), Locale: new("de-DE")},
				BranchName:      "feature",
			}
			before := *req
			s, err := c.GenerateSession(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if s.SessionID != testSession || !s.ExpiresAt.Equal(clk.Now().Add(SessionLifetime)) {
				t.Errorf("session = %#v", s)
			}
			if !reflect.DeepEqual(*req, before) || req.ExternalID != "  User@Example.COM " {
				t.Error("the caller's request was modified")
			}
		})
	}
}

func TestGenerateSessionValidation(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("invalid request sent: %s %s", r.Method, r.URL.Path)
	})
	for _, req := range []*GenerateSessionRequest{nil, {}, {DeploymentID: 1}, {DeploymentID: 1, ExternalID: "a", InternalID: "b"}} {
		_, err := c.GenerateSession(context.Background(), req)
		if !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: err = %v", req, err)
		}
	}
}

func TestGenerateSessionBadResponses(t *testing.T) {
	for _, body := range []string{`{"sessionId":""}`, `{"session":"` + testSession + `"}`, `{"sessionId":"` + testSession, `<html>` + testSession + `</html>`} {
		c, mux, _ := setup(t)
		mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, body)
		})
		_, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"})
		if !errors.Is(err, ErrUnexpectedResponse) {
			t.Errorf("%s: err = %v", body, err)
			continue
		}
		noSecrets(t, "error", err.Error())
	}
	// A wrapped and a numeric id decode.
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"data":{"sessionId":"`+testSession+`"}}`)
	})
	if s, err := c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "u"}); err != nil || s.SessionID != testSession {
		t.Errorf("wrapped: %v", err)
	}
}

func TestRevokeSession(t *testing.T) {
	c, mux, _ := setup(t, WithAPIKeyHeader("Api-Key"))
	mux.HandleFunc("POST /api/v1/embed/session/revoke", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Api-Key")
		testHeader(t, r, "Content-Type", "application/json")
		testJSONBody(t, r, `{"sessionId":"`+testSession+`"}`)
		w.WriteHeader(http.StatusNoContent)
	})
	if err := c.RevokeSession(context.Background(), testSession); err != nil {
		t.Fatal(err)
	}
	err := c.RevokeSession(context.Background(), "not-a-session-"+testSession)
	if !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("err = %v", err)
	}
	noSecrets(t, "error", err.Error())
}

func TestRevokeSession403(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/embed/session/revoke", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, `{"error":"Embedding is not enabled for this account"}`)
	})
	err := c.RevokeSession(context.Background(), testSession)
	if !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), "Embedding is not enabled") {
		t.Fatal(err)
	}
}

func TestExchangeSession(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/embed/session/token", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the API key was sent to the exchange endpoint")
		}
		testHeader(t, r, "Content-Type", "application/json")
		testJSONBody(t, r, `{"sessionId":"`+testSession+`"}`)
		writeJSON(w, 200, `{"token":"`+testToken+`"}`)
	})
	tok, err := c.ExchangeSession(context.Background(), testSession)
	if err != nil || tok.Token != testToken {
		t.Fatalf("token = %v, %v", tok, err)
	}
	if _, err := c.ExchangeSession(context.Background(), "x"); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
	for _, body := range []string{`{"token":""}`, `{"token":`} {
		c, mux, _ := setup(t)
		mux.HandleFunc("POST /api/v1/embed/session/token", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, body) })
		if _, err := c.ExchangeSession(context.Background(), testSession); !errors.Is(err, ErrUnexpectedResponse) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestCheckEmbedDashboard: the dashboard call carries the embed token, not
// the API key; a 2xx is nil and any other answer is the *APIError, never
// quoting the token; bad arguments are refused before anything is sent.
func TestCheckEmbedDashboard(t *testing.T) {
	tests := []struct {
		publicID string
		status   int
		body     string
		wantErr  bool
	}{
		{"sales-overview", 200, `{"publicId":"sales-overview"}`, false},
		{"sales-overview", 204, ``, false},
		{"locked", 403, `{"error":"signed embedding is not allowed for ` + testToken + `"}`, true},
		{"missing", 404, `{"error":"dashboard not found"}`, true},
		{"a b", 401, `{"error":"invalid embed token"}`, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.publicID, tt.status), func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /api/v1/embed/dashboard/{publicId}", func(w http.ResponseWriter, r *http.Request) {
				if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
					t.Errorf("Authorization %q, want the embed token", got)
				}
				if r.PathValue("publicId") != tt.publicID {
					t.Errorf("publicId %q", r.PathValue("publicId"))
				}
				writeJSON(w, tt.status, tt.body)
			})
			err := c.CheckEmbedDashboard(context.Background(), &EmbedToken{Token: testToken}, tt.publicID)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != tt.status {
				t.Fatalf("err = %#v, want an *APIError with status %d", err, tt.status)
			}
			noSecrets(t, "error", err.Error())
		})
	}

	c, mux, _ := setup(t)
	mux.HandleFunc("/", func(http.ResponseWriter, *http.Request) { t.Error("an invalid call reached the platform") })
	for _, tt := range []struct {
		token    *EmbedToken
		publicID string
		field    string
	}{
		{nil, "sales", "token"},
		{&EmbedToken{}, "sales", "token"},
		{&EmbedToken{Token: testToken}, "", "publicId"},
		{&EmbedToken{Token: testToken}, "a/b", "publicId"},
		{&EmbedToken{Token: testToken}, "a?b", "publicId"},
		{&EmbedToken{Token: testToken}, " sales", "publicId"},
	} {
		err := c.CheckEmbedDashboard(context.Background(), tt.token, tt.publicID)
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != tt.field {
			t.Errorf("token %v, publicId %q: %v, want a ValidationError naming %s", tt.token, tt.publicID, err, tt.field)
		}
	}
}

// TestSecretsNeverPrinted formats every secret-bearing value every way.
func TestSecretsNeverPrinted(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	values := []any{
		Session{SessionID: testSession, ExpiresAt: now},
		&Session{SessionID: testSession},
		EmbedToken{Token: testToken},
		&EmbedToken{Token: testToken},
		MetaToken{Token: testToken, CreatedAt: now, ExpiresAt: now},
		&MetaToken{Token: testToken},
		DataAPIToken{Token: testToken},
		&DataAPIToken{Token: testToken},
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			noSecrets(t, verb, fmt.Sprintf(verb, v))
		}
		logger.Info("value", "v", v)
	}
	noSecrets(t, "log", buf.String())
	if !strings.Contains(buf.String(), Redact(testSession)) || !strings.Contains(buf.String(), Redact(testToken)) {
		t.Errorf("log lacks the fingerprints: %s", buf.String())
	}
	s := Session{SessionID: testSession, ExpiresAt: now}
	if s.String() != "embedkit.Session{SessionID: "+Redact(testSession)+", ExpiresAt: 2025-01-01T00:00:00Z}" {
		t.Errorf("String() = %s", s)
	}
}

func TestRedact(t *testing.T) {
	r := Redact(testKey)
	if !strings.HasPrefix(r, "sha256:") || len(r) != len("sha256:")+8 || strings.Contains(r, testKey) {
		t.Errorf("Redact = %q", r)
	}
	if Redact(testKey) != r || Redact(testKey+"x") == r {
		t.Error("Redact not stable or not distinguishing")
	}
	if Redact("") != "(empty)" {
		t.Error("Redact of empty")
	}
	if got := scrub("a "+testKey+" b", "", testKey); got != "a "+r+" b" {
		t.Errorf("scrub = %q", got)
	}
}

func TestListTenantGroups(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/embed-tenants/acme/groups", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Bearer")
		testQuery(t, r, "after=c1&first=2")
		writeJSON(w, 200, `{"items":[{"id":"g1","name":"sales","description":"d"},{"id":2,"name":"ops","description":null}],"pageInfo":{"hasNextPage":true,"hasPreviousPage":false,"startCursor":null,"endCursor":"c2"},"data":[],"count":2}`)
	})
	page, err := c.ListTenantGroups(context.Background(), "acme", CursorOptions{First: 2, After: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].ID != "g1" || page.Items[0].Description != "d" || page.Items[1].ID != "2" || page.Items[1].Name != "ops" {
		t.Errorf("items = %+v", page.Items)
	}
	if !page.PageInfo.HasNextPage || page.PageInfo.EndCursor != "c2" {
		t.Errorf("pageInfo = %+v", page.PageInfo)
	}
	if !json.Valid(page.Items[1].Raw) {
		t.Error("Raw not kept")
	}
	for _, tenant := range []string{"", "Acme", "-x", "a/b"} {
		if _, err := c.ListTenantGroups(context.Background(), tenant, CursorOptions{}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("tenant %q: %v", tenant, err)
		}
	}
	_, err = c.ListTenantGroups(context.Background(), "Bad", CursorOptions{First: -1})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Errorf("merged problems: %v", err)
	}
}

func TestTenantGroupsIterator(t *testing.T) {
	c, mux, _ := setup(t)
	calls := 0
	mux.HandleFunc("GET /api/v1/embed-tenants/acme/groups", func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch r.URL.Query().Get("after") {
		case "":
			testQuery(t, r, "first=100")
			writeJSON(w, 200, `{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"pageInfo":{"hasNextPage":true,"endCursor":"p2"}}`)
		case "p2":
			writeJSON(w, 200, `{"data":[{"id":3,"name":"c"}],"pageInfo":{"hasNextPage":true,"endCursor":"p2"}}`)
		default:
			t.Errorf("unexpected cursor %q", r.URL.Query().Get("after"))
		}
	})
	var names []string
	for g, err := range c.TenantGroups(context.Background(), "acme") {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, g.Name)
	}
	if strings.Join(names, ",") != "a,b,c" || calls != 2 {
		t.Errorf("names %v after %d calls (a repeated cursor must stop)", names, calls)
	}
	for range c.TenantGroups(context.Background(), "acme") {
		break
	}
	for _, err := range c.TenantGroups(context.Background(), "") {
		if !errors.Is(err, ErrInvalidRequest) {
			t.Error(err)
		}
	}
}

func TestDeleteTenantGroup(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("DELETE /api/v1/embed-tenants/acme/groups/g%201", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Bearer")
		testNoBody(t, r)
		w.WriteHeader(http.StatusNoContent)
	})
	if err := c.DeleteTenantGroup(context.Background(), "acme", "g 1"); err != nil {
		t.Fatal(err)
	}
	err := c.DeleteTenantGroup(context.Background(), "ACME", " ")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("err = %v", err)
	}
}

func TestValidationErr(t *testing.T) {
	plain := errors.New("plain")
	if err := validationErr("op", nil, plain); err != plain {
		t.Errorf("non-validation error changed: %v", err)
	}
	err := validationErr("op", []FieldError{{"a", "b"}}, plain)
	if !errors.Is(err, plain) || !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("joined: %v", err)
	}
	if validationErr("op", nil, nil) != nil {
		t.Error("nil expected")
	}
}

// TestGenerateSessionLeavesTheRequestAlone: the external id is sent
// normalised, and the caller's request is not changed, whether or not it
// needed normalising.
func TestGenerateSessionLeavesTheRequestAlone(t *testing.T) {
	for _, id := range []string{"  Ana@Example.COM ", "ana@example.com"} {
		c, mux, _ := setup(t)
		mux.HandleFunc("POST /api/v1/embed/generate-session", func(w http.ResponseWriter, r *http.Request) {
			testJSONBody(t, r, `{"deploymentId":1,"externalId":"ana@example.com"}`)
			writeJSON(w, 200, `{"sessionId":"`+testSession+`"}`)
		})
		req := &GenerateSessionRequest{DeploymentID: 1, ExternalID: id}
		before := *req
		if _, err := c.GenerateSession(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*req, before) {
			t.Errorf("the request was changed: %+v, was %+v", *req, before)
		}
	}
}
