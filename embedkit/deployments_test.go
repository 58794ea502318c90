package embedkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestListDeploymentsBothShapes(t *testing.T) {
	created := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name string
		body string
		want DeploymentPage
	}{
		{"specification shape", `{"data":{"deployments":[{"id":"1","name":"prod","created_at":"2024-05-06T07:08:09Z"},{"id":"22","name":"dev","created_at":"2024-05-06"}]},"pagination":{"offset":5,"limit":2,"total":9}}`,
			DeploymentPage{Deployments: []Deployment{{ID: 1, Name: "prod", CreatedAt: created}, {ID: 22, Name: "dev", CreatedAt: time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)}}, Pagination: Pagination{Offset: 5, Limit: 2, Total: 9}}},
		{"schema shape", `{"items":[{"id":1,"name":"prod","deploymentUrl":"https://x","creationStep":"ready"},{"id":22,"name":"dev"}],"data":[{"id":1,"name":"prod"},{"id":22,"name":"dev"}],"pagination":{"offset":5,"limit":2,"total":9},"pageInfo":{"hasNextPage":true,"hasPreviousPage":true,"endCursor":"c"},"count":9}`,
			DeploymentPage{Deployments: []Deployment{{ID: 1, Name: "prod"}, {ID: 22, Name: "dev"}}, Pagination: Pagination{Offset: 5, Limit: 2, Total: 9}}},
		{"flat data array", `{"data":[{"id":3,"name":"x","createdAt":"2024-05-06T07:08:09Z"}],"pagination":{"offset":5,"limit":2,"total":6}}`,
			DeploymentPage{Deployments: []Deployment{{ID: 3, Name: "x", CreatedAt: created}}, Pagination: Pagination{Offset: 5, Limit: 2, Total: 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
				testAuth(t, r, "Bearer")
				testQuery(t, r, "limit=2&offset=5")
				testNoBody(t, r)
				writeJSON(w, 200, tt.body)
			})
			page, err := c.ListDeployments(context.Background(), ListOptions{Offset: 5, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*page, tt.want) {
				t.Errorf("page = %+v\nwant %+v", *page, tt.want)
			}
		})
	}
}

func TestListDeploymentsNoQueryByDefault(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		testQuery(t, r, "")
		writeJSON(w, 200, `{"items":[]}`)
	})
	if _, err := c.ListDeployments(context.Background(), ListOptions{}); err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if _, err := c.ListDeployments(context.Background(), ListOptions{Offset: -1, Limit: -1}); !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("negative paging: %v", err)
	}
}

// TestDeploymentsIterator walks 250 deployments in pages, with and
// without a total, and stops early when asked.
func TestDeploymentsIterator(t *testing.T) {
	for _, withTotal := range []bool{true, false} {
		t.Run(fmt.Sprintf("total=%v", withTotal), func(t *testing.T) {
			c, mux, _ := setup(t)
			const total = 250
			calls := 0
			mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
				calls++
				off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
				lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
				if lim != pageSize {
					t.Errorf("limit = %d", lim)
				}
				var items []map[string]any
				for i := off; i < min(off+lim, total); i++ {
					items = append(items, map[string]any{"id": strconv.Itoa(i + 1), "name": "d"})
				}
				resp := map[string]any{"data": map[string]any{"deployments": items}}
				if withTotal {
					resp["pagination"] = map[string]int{"offset": off, "limit": lim, "total": total}
				}
				b, _ := json.Marshal(resp)
				writeJSON(w, 200, string(b))
			})
			var ids []int64
			for d, err := range c.Deployments(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, d.ID)
			}
			if len(ids) != total || ids[0] != 1 || ids[total-1] != total {
				t.Fatalf("got %d deployments", len(ids))
			}
			if calls != 3 {
				t.Errorf("%d pages fetched, want 3", calls)
			}
			n := 0
			for range c.Deployments(context.Background()) {
				n++
				if n == 5 {
					break
				}
			}
		})
	}
}

func TestDeploymentsIteratorError(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, `{"error":"scope"}`)
	})
	n := 0
	for _, err := range c.Deployments(context.Background()) {
		n++
		if !errors.Is(err, ErrForbidden) {
			t.Fatalf("err = %v", err)
		}
	}
	if n != 1 {
		t.Errorf("%d yields, want 1", n)
	}
}

func TestListEnvironmentsBothShapes(t *testing.T) {
	want := []Environment{
		{ID: "10", Name: "prod", Type: EnvironmentProduction, RESTURL: "https://api.example.com/v1", SQLHost: "sql.example.com", SQLPort: 5432},
		{ID: "11", Name: "feature", Type: EnvironmentStaging},
	}
	tests := []struct{ name, body string }{
		{"specification shape", `{"data":{"environments":[
			{"id":"10","name":"prod","type":"production","api_credentials":{"rest":{"url":"https://api.example.com/v1"},"sql":{"host":"sql.example.com","port":5432}}},
			{"id":"11","name":"feature","type":"staging","api_credentials":{}}]},"pagination":{"offset":0,"limit":20,"total":2}}`},
		{"schema shape", `{"items":[
			{"id":"10","name":"prod","type":"production","api_credentials":[{"type":"rest","version":1,"url":"https://api.example.com/v1"},{"type":"sql","version":1,"host":"sql.example.com","port":"5432","database":"db"}],"branch":null},
			{"id":11,"name":"feature","type":"staging","api_credentials":null}],"data":[],"pagination":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /api/v1/deployments/7/environments", func(w http.ResponseWriter, r *http.Request) {
				testAuth(t, r, "Bearer")
				testQuery(t, r, "limit=20&type=staging")
				writeJSON(w, 200, tt.body)
			})
			page, err := c.ListEnvironments(context.Background(), 7, EnvironmentListOptions{Type: EnvironmentStaging, ListOptions: ListOptions{Limit: 20}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(page.Environments, want) {
				t.Errorf("environments = %+v\nwant %+v", page.Environments, want)
			}
		})
	}
}

func TestEnvironmentsIterator(t *testing.T) {
	c, mux, _ := setup(t)
	calls := 0
	mux.HandleFunc("GET /api/v1/deployments/7/environments", func(w http.ResponseWriter, r *http.Request) {
		calls++
		testQuery(t, r, "limit=100&type=production")
		writeJSON(w, 200, `{"items":[{"id":"1","type":"production","api_credentials":[]},{"id":"2","type":"production","api_credentials":[]}],"data":[]}`)
	})
	var ids []string
	for e, err := range c.Environments(context.Background(), 7, EnvironmentProduction) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if len(ids) != 2 || calls != 1 {
		t.Errorf("ids %v after %d calls", ids, calls)
	}
	for _, err := range c.Environments(context.Background(), 0, "") {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("err = %v", err)
		}
	}
	for _, err := range c.Environments(context.Background(), 7, "qa") {
		if _, ok := errors.AsType[*ValidationError](err); !ok {
			t.Errorf("err = %v", err)
		}
	}
}

func TestCreateMetaToken(t *testing.T) {
	for _, body := range []string{
		`{"data":{"token":"` + testToken + `","security_context":{},"created_at":"2025-01-01T00:00:00Z","expires_at":"2025-01-02T00:00:00Z"}}`,
		`{"token":"` + testToken + `","createdAt":"2025-01-01T00:00:00Z","expiresAt":"2025-01-02T00:00:00Z"}`,
	} {
		c, mux, _ := setup(t)
		mux.HandleFunc("POST /api/v1/deployments/3/environments/env%2F1/tokens-for-meta-sync", func(w http.ResponseWriter, r *http.Request) {
			testAuth(t, r, "Bearer")
			testHeader(t, r, "Content-Type", "application/json")
			testJSONBody(t, r, `{"security_context":{"tenant":"a"},"expires_in":600}`)
			writeJSON(w, 200, body)
		})
		tok, err := c.CreateMetaToken(context.Background(), 3, "env/1", &MetaTokenRequest{SecurityContext: map[string]any{"tenant": "a"}, ExpiresIn: 600})
		if err != nil {
			t.Fatal(err)
		}
		if tok.Token != testToken || !tok.CreatedAt.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) || !tok.ExpiresAt.Equal(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("token = %+v", tok)
		}
		noSecrets(t, "String", fmt.Sprint(tok))
	}
}

func TestCreateMetaTokenValidation(t *testing.T) {
	c, _, _ := setup(t)
	_, err := c.CreateMetaToken(context.Background(), 0, " ", nil)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	for _, f := range []string{"deploymentId", "environmentId", "security_context"} {
		if _, ok := ve.Field(f); !ok {
			t.Errorf("no problem for %s: %v", f, err)
		}
	}
	_, err = c.CreateMetaToken(context.Background(), -1, "e", &MetaTokenRequest{})
	if !errors.As(err, &ve) || len(ve.Problems) != 2 || ve.Op != "tokens-for-meta-sync" {
		t.Fatalf("merged problems: %v", err)
	}
}

func TestCreateMetaTokenSecretBodyWithheld(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/deployments/3/environments/1/tokens-for-meta-sync", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"data":{"token":"`+testToken+`","created_at":"yesterday"}}`)
	})
	_, err := c.CreateMetaToken(context.Background(), 3, "1", &MetaTokenRequest{SecurityContext: map[string]any{}})
	if !errors.Is(err, ErrUnexpectedResponse) {
		t.Fatal(err)
	}
	noSecrets(t, "error", err.Error())
}

func TestCreateDataAPIToken(t *testing.T) {
	tests := []struct {
		name string
		req  *DataAPITokenRequest
		want string
		resp string
	}{
		{"no body", nil, "", `{"token":"` + testToken + `"}`},
		{"expiresIn", &DataAPITokenRequest{ExpiresIn: 120}, `{"expiresIn":120}`, `{"cubeApiToken":"` + testToken + `"}`},
		{"zero request", &DataAPITokenRequest{}, `{}`, `{"data":{"token":"` + testToken + `"}}`},
		// cubeApiToken is the documented field (DeploymentTokenResponse);
		// token is read only when it is missing.
		{"documented field first", nil, "", `{"token":"other","cubeApiToken":"` + testToken + `"}`},
		{"documented field null", nil, "", `{"cubeApiToken":null,"token":"` + testToken + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("POST /api/v1/deployments/9/token", func(w http.ResponseWriter, r *http.Request) {
				testAuth(t, r, "Bearer")
				if tt.want == "" {
					testNoBody(t, r)
				} else {
					testJSONBody(t, r, tt.want)
				}
				writeJSON(w, 200, tt.resp)
			})
			tok, err := c.CreateDataAPIToken(context.Background(), 9, tt.req)
			if err != nil || tok.Token != testToken {
				t.Fatalf("token = %v, %v", tok, err)
			}
		})
	}
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/deployments/9/token", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"token":""}`)
	})
	if _, err := c.CreateDataAPIToken(context.Background(), 9, nil); !errors.Is(err, ErrUnexpectedResponse) {
		t.Fatalf("empty token: %v", err)
	}
	if _, err := c.CreateDataAPIToken(context.Background(), 9, &DataAPITokenRequest{ExpiresIn: 5}); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("bad expiresIn: %v", err)
	}
}

func TestListVersionsBothShapes(t *testing.T) {
	want := []DeploymentVersion{
		{ReleaseChannelVersion: "repo/image:v1.7.20", Version: "1.7.20", ReleaseChannel: "latest", IsLatestInChannel: true, IsCurrent: false},
		{ReleaseChannelVersion: "repo/image:v1.6.0", Version: "1.6.0", ReleaseChannel: "release", IsCurrent: true},
	}
	items := `[{"releaseChannelVersion":"repo/image:v1.7.20","version":"1.7.20","releaseChannel":"latest","isLatestInChannel":true,"isCurrent":false},{"releaseChannelVersion":"repo/image:v1.6.0","version":"1.6.0","releaseChannel":"release","isLatestInChannel":false,"isCurrent":true}]`
	for _, body := range []string{`{"data":` + items + `}`, `{"items":` + items + `,"pageInfo":null}`} {
		c, mux, _ := setup(t)
		mux.HandleFunc("GET /api/v1/deployments/4/versions", func(w http.ResponseWriter, r *http.Request) {
			testAuth(t, r, "Bearer")
			testQuery(t, r, "")
			writeJSON(w, 200, body)
		})
		got, err := c.ListVersions(context.Background(), 4)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("versions = %+v, %v", got, err)
		}
	}
	c, _, _ := setup(t)
	if _, err := c.ListVersions(context.Background(), 0); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
}

func TestUpdateDeployment(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("PUT /api/v1/deployments/4", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Bearer")
		testJSONBody(t, r, `{"releaseChannel":"release","releaseChannelVersionHold":false,"templateVariables":{"a":"1"}}`)
		writeJSON(w, 200, `{"id":"4","name":"prod","template":"single","releaseChannel":"release","releaseChannelVersion":"1.6.0","releaseChannelVersionHold":null,"templateVariables":{"a":"1","b":"2"},"region":"eu"}`)
	})
	s, err := c.UpdateDeployment(context.Background(), 4, &UpdateDeploymentRequest{ReleaseChannel: "release", ReleaseChannelVersionHold: new(false), TemplateVariables: map[string]any{"a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != 4 || s.Name != "prod" || s.ReleaseChannelVersion != "1.6.0" || s.TemplateVariables["b"] != "2" || len(s.Raw) == 0 {
		t.Errorf("settings = %+v", s)
	}
}

func TestSwitchVersion(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("PUT /api/v1/deployments/4", func(w http.ResponseWriter, r *http.Request) {
		testJSONBody(t, r, `{"releaseChannelVersion":"repo/image:v1.7.20"}`)
		writeJSON(w, 200, `{"data":{"id":4,"releaseChannelVersion":"1.7.20"}}`)
	})
	s, err := c.SwitchVersion(context.Background(), 4, "repo/image:v1.7.20")
	if err != nil || s.ReleaseChannelVersion != "1.7.20" || s.ID != 4 {
		t.Fatalf("SwitchVersion = %+v, %v", s, err)
	}
	_, err = c.SwitchVersion(context.Background(), 0, "latest")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("err = %v", err)
	}
}

func TestSpec(t *testing.T) {
	c, mux, _ := setup(t)
	n := 0
	mux.HandleFunc("GET /api/v1/spec", func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			writeJSON(w, 200, `{"openapi":"3.1.0"}`)
			return
		}
		writeJSON(w, 200, `openapi: 3.1.0`)
	})
	spec, err := c.Spec(context.Background())
	if err != nil || string(spec) != `{"openapi":"3.1.0"}` {
		t.Fatalf("spec = %s, %v", spec, err)
	}
	if _, err := c.Spec(context.Background()); !errors.Is(err, ErrUnexpectedResponse) {
		t.Fatal(err)
	}
}

func TestSetStagingEnvironment(t *testing.T) {
	want := Branch{ID: 12, Name: "feature-x", ParentBranch: "main", LastHash: "abc", IsStagingEnvironmentEnabled: true}
	for _, body := range []string{
		`{"data":{"id":12,"name":"feature-x","parentBranch":"main","lastHash":"abc","isStagingEnvironmentEnabled":true}}`,
		`{"id":"12","name":"feature-x","parentBranch":"main","lastHash":"abc","isStagingEnvironmentEnabled":true}`,
	} {
		c, mux, _ := setup(t)
		mux.HandleFunc("PUT /build/api/v1/deployments/5/branches/staging-environment", func(w http.ResponseWriter, r *http.Request) {
			testAuth(t, r, "Bearer")
			testJSONBody(t, r, `{"enabled":true,"branchName":"feature-x"}`)
			writeJSON(w, 200, body)
		})
		br, err := c.SetStagingEnvironment(context.Background(), 5, &StagingEnvironmentRequest{Enabled: true, BranchName: "feature-x"})
		if err != nil || *br != want {
			t.Errorf("branch = %+v, %v", br, err)
		}
	}
	c, mux, _ := setup(t)
	mux.HandleFunc("PUT /build/api/v1/deployments/5/branches/staging-environment", func(w http.ResponseWriter, r *http.Request) {
		testJSONBody(t, r, `{"enabled":false,"branchId":3}`)
		writeJSON(w, 200, `{"data":{"id":3,"name":"b","parentBranch":null,"lastHash":null,"isStagingEnvironmentEnabled":null}}`)
	})
	br, err := c.SetStagingEnvironment(context.Background(), 5, &StagingEnvironmentRequest{BranchID: 3})
	if err != nil || br.ID != 3 || br.ParentBranch != "" {
		t.Fatalf("branch = %+v, %v", br, err)
	}
	if _, err := c.SetStagingEnvironment(context.Background(), 5, nil); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
	if _, err := c.SetStagingEnvironment(context.Background(), 5, &StagingEnvironmentRequest{}); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
}

// TestBadShapesOfEachOperation: each operation reports an unreadable
// success body as ErrUnexpectedResponse.
func TestBadShapesOfEachOperation(t *testing.T) {
	c, mux, _ := setup(t)
	for _, p := range []string{
		"GET /api/v1/deployments/1/environments", "GET /api/v1/deployments/1/versions", "PUT /api/v1/deployments/1",
		"PUT /build/api/v1/deployments/1/branches/staging-environment", "POST /api/v1/deployments/1/token",
		"GET /api/v1/embed-tenants/acme/groups", "POST /api/v1/deployments/1/dashboard-exports",
		"GET /api/v1/deployments/1/dashboard-exports/j", "POST /api/v1/deployments/1/environments/e/tokens-for-meta-sync",
	} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"items":"x","data":7,"id":{}}`) })
	}
	ctx := context.Background()
	checks := map[string]func() error{
		"environments": func() error { _, err := c.ListEnvironments(ctx, 1, EnvironmentListOptions{}); return err },
		"versions":     func() error { _, err := c.ListVersions(ctx, 1); return err },
		"update": func() error {
			_, err := c.UpdateDeployment(ctx, 1, &UpdateDeploymentRequest{Region: "x"})
			return err
		},
		"staging": func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &StagingEnvironmentRequest{BranchID: 1})
			return err
		},
		"data token": func() error { _, err := c.CreateDataAPIToken(ctx, 1, nil); return err },
		"groups":     func() error { _, err := c.ListTenantGroups(ctx, "acme", CursorOptions{}); return err },
		"export": func() error {
			_, err := c.SubmitDashboardExport(ctx, 1, &DashboardExportRequest{DashboardID: 1, Format: FormatPNG})
			return err
		},
		"status": func() error { _, err := c.DashboardExportStatus(ctx, 1, "j"); return err },
		"meta": func() error {
			_, err := c.CreateMetaToken(ctx, 1, "e", &MetaTokenRequest{SecurityContext: map[string]any{}})
			return err
		},
	}
	for name, f := range checks {
		if err := f(); !errors.Is(err, ErrUnexpectedResponse) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestUpdateDeploymentRequestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    *UpdateDeploymentRequest
		want []FieldError
	}{
		{name: "version", r: &UpdateDeploymentRequest{ReleaseChannelVersion: "platform/runtime:v1.7.20"}},
		{name: "channel only", r: &UpdateDeploymentRequest{ReleaseChannel: "release"}},
		{name: "hold only", r: &UpdateDeploymentRequest{ReleaseChannelVersionHold: new(false)}},
		{name: "clear launchpad tabs", r: &UpdateDeploymentRequest{LaunchpadTabs: []string{}}},
		{name: "template variables", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{"replicas": 2}}},
		// A partial update with every field optional: nothing to update is
		// a valid request.
		{name: "nil request", r: nil},
		{name: "nothing to update", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{}}},
		{name: "every enum value", r: &UpdateDeploymentRequest{CloudProvider: "gcp", CreationMethod: "github", DeployMode: "cli",
			ReleaseChannel: "latest", Template: "multiCluster"}},
		// The enums of UpdateDeploymentInput (platform notes, section 8).
		{name: "values outside the enums", r: &UpdateDeploymentRequest{CloudProvider: "azure", CreationMethod: "git",
			DeployMode: "GIT", ReleaseChannel: "stable", Template: "cluster"},
			want: []FieldError{
				fe("releaseChannel", "must be one of latest, release"),
				fe("cloudProvider", "must be one of cubecloud, aws, gcp"),
				fe("template", "must be one of single, simpleCluster, multiCluster"),
				fe("creationMethod", "must be one of upload, cubecloud, github, ssh"),
				fe("deployMode", "must be one of git, cli"),
			}},
		{name: "bad version", r: &UpdateDeploymentRequest{ReleaseChannelVersion: "1.7"},
			want: []FieldError{fe("releaseChannelVersion", ruleVersion)}},
		{name: "empty variable name", r: &UpdateDeploymentRequest{TemplateVariables: map[string]any{"": 1, "ok": math.NaN()}},
			want: []FieldError{fe("templateVariables", "keys must not be empty"), fe("templateVariables", "must be JSON-encodable")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "update-deployment", tt.r.Validate(), tt.want) })
	}
}

// TestNilBodiesReportEveryRule: a missing request body is checked as an
// empty one, so every broken rule is named (it was reported as
// "body: is required" alone).
func TestNilBodiesReportEveryRule(t *testing.T) {
	c, _, _ := setup(t)
	ctx := context.Background()
	t.Run("staging environment", func(t *testing.T) {
		_, err := c.SetStagingEnvironment(ctx, 5, nil)
		valCheck(t, "staging-environment", err, []FieldError{
			fe("enabled", "is required"), fe("branchName", "give exactly one of branchName or branchId"),
		})
	})
	t.Run("meta token", func(t *testing.T) {
		_, err := c.CreateMetaToken(ctx, 5, "7", nil)
		valCheck(t, "tokens-for-meta-sync", err, []FieldError{fe("security_context", "is required")})
	})
}

// TestUpdateDeploymentNothingToUpdate: PUT /api/v1/deployments/{id} is a
// partial update whose fields are all optional, so an empty request is
// sent ({}), and a nil one without a body (the body is optional); the
// client refused both.
func TestUpdateDeploymentNothingToUpdate(t *testing.T) {
	tests := []struct {
		name     string
		req      *UpdateDeploymentRequest
		wantBody string
	}{
		{name: "nil request", req: nil, wantBody: ""},
		{name: "empty request", req: &UpdateDeploymentRequest{}, wantBody: "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t)
			mux.HandleFunc("PUT /api/v1/deployments/4", func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if string(b) != tt.wantBody {
					t.Errorf("body %q, want %q", b, tt.wantBody)
				}
				writeJSON(w, 200, `{"id":4,"name":"prod"}`)
			})
			s, err := c.UpdateDeployment(context.Background(), 4, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != 4 {
				t.Errorf("settings = %+v", s)
			}
		})
	}
}

// TestDeploymentIDForms: the specification types a deployment list item's
// id as a string, the platform's schema as an integer. Deployment.ID reads
// a JSON number or a string holding a decimal integer; anything else fails
// the call with ErrUnexpectedResponse naming the id (docs/client.md).
func TestDeploymentIDForms(t *testing.T) {
	tests := []struct {
		name    string
		id      string
		want    int64
		wantErr string
	}{
		{name: "number", id: `42`, want: 42},
		{name: "numeric string", id: `"42"`, want: 42},
		{name: "non-numeric string", id: `"prod-1"`, wantErr: `deployment: id "prod-1" is not an integer`},
		{name: "fraction", id: `4.5`, wantErr: `deployment: id 4.5 is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
			mux.HandleFunc("GET /api/v1/deployments", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, `{"data":{"deployments":[{"id":`+tt.id+`,"name":"x"}]},"pagination":{"offset":0,"limit":20,"total":1}}`)
			})
			page, err := c.ListDeployments(context.Background(), ListOptions{})
			if tt.wantErr != "" {
				if !errors.Is(err, ErrUnexpectedResponse) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrUnexpectedResponse with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(page.Deployments) != 1 || page.Deployments[0].ID != tt.want {
				t.Fatalf("page = %+v, %v; want id %d", page, err, tt.want)
			}
		})
	}
}
