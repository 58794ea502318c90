package embedkit_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorDeployments(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	want := []embedkit.Deployment{
		{ID: 1, Name: "Sales analytics", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{ID: 2, Name: "Finance", CreatedAt: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)},
		{ID: 3, Name: "Operations", CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
	}
	sameDeployment := func(a, b embedkit.Deployment) bool {
		return a.ID == b.ID && a.Name == b.Name && a.CreatedAt.Equal(b.CreatedAt)
	}

	t.Run("pages of one", func(t *testing.T) {
		var got []embedkit.Deployment
		for offset := 0; ; offset++ {
			page, err := c.ListDeployments(ctx, embedkit.ListOptions{Offset: offset, Limit: 1})
			if err != nil {
				t.Fatalf("ListDeployments offset %d: %v", offset, err)
			}
			if page.Pagination != (embedkit.Pagination{Offset: offset, Limit: 1, Total: 3}) {
				t.Errorf("pagination = %+v, want offset %d, limit 1, total 3", page.Pagination, offset)
			}
			if len(page.Deployments) == 0 {
				break
			}
			got = append(got, page.Deployments...)
		}
		if !slices.EqualFunc(got, want, sameDeployment) {
			t.Errorf("paged deployments = %+v, want %+v", got, want)
		}
	})

	t.Run("default page", func(t *testing.T) {
		page, err := c.ListDeployments(ctx, embedkit.ListOptions{})
		if err != nil {
			t.Fatalf("ListDeployments: %v", err)
		}
		if page.Pagination != (embedkit.Pagination{Offset: 0, Limit: 20, Total: 3}) || len(page.Deployments) != 3 {
			t.Errorf("default page = %d items, %+v; want 3 items, offset 0, limit 20, total 3", len(page.Deployments), page.Pagination)
		}
	})

	t.Run("iterator", func(t *testing.T) {
		before := len(e.emu.Requests())
		var got []embedkit.Deployment
		for d, err := range c.Deployments(ctx) {
			if err != nil {
				t.Fatalf("Deployments: %v", err)
			}
			got = append(got, d)
		}
		if !slices.EqualFunc(got, want, sameDeployment) {
			t.Errorf("iterated deployments = %+v, want %+v", got, want)
		}
		if n := len(e.emu.Requests()) - before; n != 1 {
			t.Errorf("the iterator sent %d requests for 3 deployments, want 1", n)
		}
	})

	t.Run("scoped key sees its deployment only", func(t *testing.T) {
		var got []int64
		for d, err := range e.client(t, keyAdminD1).Deployments(ctx) {
			if err != nil {
				t.Fatalf("Deployments: %v", err)
			}
			got = append(got, d.ID)
		}
		if !slices.Equal(got, []int64{1}) {
			t.Errorf("scoped key lists %v, want [1]", got)
		}
	})

	t.Run("iteration stops at the first error", func(t *testing.T) {
		n := 0
		for _, err := range e.client(t, "ek_unknown").Deployments(ctx) {
			n++
			if !errors.Is(err, embedkit.ErrUnauthorized) {
				t.Errorf("error = %v, want ErrUnauthorized", err)
			}
		}
		if n != 1 {
			t.Errorf("iterator yielded %d times, want once", n)
		}
	})
}

func TestClientAgainstEmulatorEnvironments(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)

	envIDs := func(t *testing.T, typ embedkit.EnvironmentType) []string {
		t.Helper()
		var ids []string
		for env, err := range c.Environments(ctx, 1, typ) {
			if err != nil {
				t.Fatalf("Environments: %v", err)
			}
			ids = append(ids, env.ID)
		}
		return ids
	}

	page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{})
	if err != nil {
		t.Fatalf("ListEnvironments: %v", err)
	}
	if len(page.Environments) != 2 || page.Pagination.Total != 2 {
		t.Fatalf("environments = %d, total %d; want 2, 2", len(page.Environments), page.Pagination.Total)
	}
	prod := page.Environments[0]
	if prod != (embedkit.Environment{ID: "env-prod", Name: "Production", Type: embedkit.EnvironmentProduction,
		RESTURL: "https://acme.example/api/data/v1", SQLHost: "sql.acme.example", SQLPort: 5432}) {
		t.Errorf("production environment = %+v", prod)
	}

	typeTests := []struct {
		typ  embedkit.EnvironmentType
		want []string
	}{
		{embedkit.EnvironmentProduction, []string{"env-prod"}},
		{embedkit.EnvironmentDevelopment, []string{"env-dev"}},
		{embedkit.EnvironmentStaging, nil},
	}
	for _, tt := range typeTests {
		t.Run("type "+string(tt.typ), func(t *testing.T) {
			if got := envIDs(t, tt.typ); !slices.Equal(got, tt.want) {
				t.Errorf("environments of type %s = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}

	t.Run("page of one", func(t *testing.T) {
		page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{ListOptions: embedkit.ListOptions{Offset: 1, Limit: 1}})
		if err != nil {
			t.Fatalf("ListEnvironments: %v", err)
		}
		if len(page.Environments) != 1 || page.Environments[0].ID != "env-dev" || page.Pagination != (embedkit.Pagination{Offset: 1, Limit: 1, Total: 2}) {
			t.Errorf("page = %+v", page)
		}
	})

	t.Run("staging environment of a shared branch", func(t *testing.T) {
		br, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "q3-metrics"})
		if err != nil {
			t.Fatalf("SetStagingEnvironment: %v", err)
		}
		if br.ID != 2 || br.Name != "q3-metrics" || !br.IsStagingEnvironmentEnabled {
			t.Errorf("branch = %+v, want id 2, q3-metrics, enabled", br)
		}
		page, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{Type: embedkit.EnvironmentStaging})
		if err != nil {
			t.Fatalf("ListEnvironments staging: %v", err)
		}
		if len(page.Environments) != 1 {
			t.Fatalf("staging environments = %d, want 1", len(page.Environments))
		}
		if st := page.Environments[0]; st.Type != embedkit.EnvironmentStaging || st.ID != "staging-q3-metrics" || st.RESTURL == "" {
			t.Errorf("staging environment = %+v", st)
		}
		if got := envIDs(t, ""); !slices.Equal(got, []string{"env-prod", "env-dev", "staging-q3-metrics"}) {
			t.Errorf("all environments = %q", got)
		}
		// An enabled staging environment serves the branch, so sessions
		// may now query it.
		if _, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{DeploymentID: 1, ExternalID: "v", BranchName: "q3-metrics"}); err != nil {
			t.Errorf("GenerateSession on the staging branch: %v", err)
		}
		// Metadata tokens can be issued for it.
		if _, err := c.CreateMetaToken(ctx, 1, "staging-q3-metrics", &embedkit.MetaTokenRequest{SecurityContext: map[string]any{}}); err != nil {
			t.Errorf("CreateMetaToken for the staging environment: %v", err)
		}

		br, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: false, BranchID: 2})
		if err != nil {
			t.Fatalf("SetStagingEnvironment disable by id: %v", err)
		}
		if br.IsStagingEnvironmentEnabled {
			t.Errorf("branch still enabled after disable")
		}
		if got := envIDs(t, embedkit.EnvironmentStaging); got != nil {
			t.Errorf("staging environments after disable = %q, want none", got)
		}
	})

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"personal branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "dev-dana"})
			return err
		}, http.StatusBadRequest, "personal branch"},
		{"production branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchID: 1})
			return err
		}, http.StatusBadRequest, "production branch"},
		{"unknown branch", func() error {
			_, err := c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "nope"})
			return err
		}, http.StatusNotFound, "not a branch"},
		{"environments of an unknown deployment", func() error {
			_, err := c.ListEnvironments(ctx, 42, embedkit.EnvironmentListOptions{})
			return err
		}, http.StatusNotFound, "deployment 42"},
		{"environments outside the key's scope", func() error {
			_, err := e.client(t, keyAdminD1).ListEnvironments(ctx, 2, embedkit.EnvironmentListOptions{})
			return err
		}, http.StatusForbidden, "not scoped"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad requests before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ListEnvironments(ctx, 1, embedkit.EnvironmentListOptions{Type: "qa"})
		wantValidation(t, err, "type")
		_, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true, BranchName: "q3-metrics", BranchID: 2})
		wantValidation(t, err, "branchName")
		_, err = c.SetStagingEnvironment(ctx, 1, &embedkit.StagingEnvironmentRequest{Enabled: true})
		wantValidation(t, err, "branchName")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}
