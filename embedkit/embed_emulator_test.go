package embedkit_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorTenantGroups(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)
	creator := true
	desc := "Can edit"
	names := []string{"editors", "viewers", "auditors"}
	_, err := c.GenerateSession(ctx, &embedkit.GenerateSessionRequest{
		DeploymentID: 1, ExternalID: "tenant-admin", CreatorMode: &creator, EmbedTenantName: "globex",
		TenantGroups: names,
		TenantGroupDefinitions: []embedkit.GroupDefinition{
			{Name: "editors", Description: &desc}, {Name: "viewers"}, {Name: "auditors"},
		},
	})
	if err != nil {
		t.Fatalf("GenerateSession with tenantGroupDefinitions: %v", err)
	}

	// One group per page, following the cursor.
	var paged []embedkit.TenantGroup
	opts := embedkit.CursorOptions{First: 1}
	for range 10 {
		page, err := c.ListTenantGroups(ctx, "globex", opts)
		if err != nil {
			t.Fatalf("ListTenantGroups: %v", err)
		}
		if len(page.Items) != 1 {
			t.Fatalf("page has %d items, want 1", len(page.Items))
		}
		paged = append(paged, page.Items...)
		if !page.PageInfo.HasNextPage {
			break
		}
		if page.PageInfo.EndCursor == "" {
			t.Fatalf("page with a next page has no end cursor")
		}
		opts.After = page.PageInfo.EndCursor
	}
	var pagedNames []string
	for _, g := range paged {
		pagedNames = append(pagedNames, g.Name)
		if g.ID == "" || len(g.Raw) == 0 {
			t.Errorf("group %s: ID %q, Raw %d bytes; want both set", g.Name, g.ID, len(g.Raw))
		}
	}
	if !slices.Equal(pagedNames, names) {
		t.Fatalf("paged groups = %q, want %q", pagedNames, names)
	}
	if paged[0].Description != desc {
		t.Errorf("editors description = %q, want %q", paged[0].Description, desc)
	}

	var iterated []string
	for g, err := range c.TenantGroups(ctx, "globex") {
		if err != nil {
			t.Fatalf("TenantGroups: %v", err)
		}
		iterated = append(iterated, g.Name)
	}
	if !slices.Equal(iterated, names) {
		t.Fatalf("iterated groups = %q, want %q", iterated, names)
	}

	if err := c.DeleteTenantGroup(ctx, "globex", paged[1].ID); err != nil {
		t.Fatalf("DeleteTenantGroup: %v", err)
	}
	page, err := c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{})
	if err != nil {
		t.Fatalf("ListTenantGroups after delete: %v", err)
	}
	if len(page.Items) != 2 || page.Items[0].Name != "editors" || page.Items[1].Name != "auditors" || page.PageInfo.HasNextPage {
		t.Errorf("after delete: %d items, hasNextPage %v; want editors and auditors only", len(page.Items), page.PageInfo.HasNextPage)
	}

	errTests := []struct {
		name   string
		run    func() error
		status int
		msg    string
	}{
		{"delete an unknown group", func() error { return c.DeleteTenantGroup(ctx, "globex", paged[1].ID) }, http.StatusNotFound, "not found"},
		{"list an unknown tenant", func() error {
			_, err := c.ListTenantGroups(ctx, "initech", embedkit.CursorOptions{})
			return err
		}, http.StatusNotFound, "embed tenant initech not found"},
		{"list with a personal key", func() error {
			_, err := e.client(t, keyPersonal).ListTenantGroups(ctx, "globex", embedkit.CursorOptions{})
			return err
		}, http.StatusForbidden, "admin"},
		{"list with a foreign cursor", func() error {
			_, err := c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{After: "not-a-cursor"})
			return err
		}, http.StatusBadRequest, "after"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.run(), tt.status, tt.msg)
		})
	}

	t.Run("client refuses bad tenant names and ids before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ListTenantGroups(ctx, "Globex", embedkit.CursorOptions{})
		wantValidation(t, err, "embedTenantName")
		wantValidation(t, c.DeleteTenantGroup(ctx, "globex", " "), "id")
		_, err = c.ListTenantGroups(ctx, "globex", embedkit.CursorOptions{First: -1})
		wantValidation(t, err, "first")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}
