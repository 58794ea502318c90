package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestRequiredSecurityContextDeniesRows: a dashboard whose data model's
// access policy scopes rows by a security-context key shows no rows, in
// its page and its export, to a session without that key, such as a plain
// embed of another dashboard that opens it through the embed's own
// navigation (a session grants its whole deployment). With the key, the
// rows are that project's; other dashboards are unaffected.
func TestRequiredSecurityContextDeniesRows(t *testing.T) {
	s := newPagesServerWith(t, func(f *Fixture) {
		d := &f.Deployments[0]
		d.Dashboards = append(d.Dashboards, Dashboard{ID: 14, PublicID: "project-analytics", Title: "Project analytics",
			Published: true, Managers: []string{"admin"}, RequiredSecurityContext: []string{"project"}})
	})
	rows := func(t *testing.T, tok, publicID string) []sampleRow {
		t.Helper()
		res := serve(t, s, "GET", "/embed/api/context?publicId="+publicID, "Bearer "+tok, nil)
		body := readBody(t, res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("context of %s: %d %s", publicID, res.StatusCode, body)
		}
		var got struct {
			Rows       []sampleRow `json:"rows"`
			Dashboards []struct {
				PublicID string `json:"publicId"`
			} `json:"dashboards"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil || got.Rows == nil {
			t.Fatalf("context of %s: rows %v, %v: %s", publicID, got.Rows, err, body)
		}
		if !slices.ContainsFunc(got.Dashboards, func(d struct {
			PublicID string `json:"publicId"`
		}) bool {
			return d.PublicID == "project-analytics"
		}) {
			t.Fatalf("the navigation of %s does not list project-analytics: the test would show nothing", publicID)
		}
		return got.Rows
	}

	tests := []struct {
		name, securityContext, publicID string
		wantRows                        bool
		wantProject                     string
	}{
		{"a plain session opens the project dashboard", `{}`, "project-analytics", false, ""},
		{"a null project", `{"project": null}`, "project-analytics", false, ""},
		{"an empty project", `{"project": ""}`, "project-analytics", false, ""},
		{"another key only", `{"team": "north"}`, "project-analytics", false, ""},
		{"the project's session", `{"project": "alpha"}`, "project-analytics", true, "alpha"},
		{"a plain session on a dashboard without the policy", `{}`, "sales-overview", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tok := embedToken(t, s, `{"deploymentId": 1, "externalId": "ana", "securityContext": `+tt.securityContext+`}`)
			got := rows(t, tok, tt.publicID)
			if (len(got) > 0) != tt.wantRows {
				t.Fatalf("%d rows, want rows: %t", len(got), tt.wantRows)
			}
			for _, r := range got {
				if r.Project != tt.wantProject {
					t.Fatalf("a row of project %q, want %q", r.Project, tt.wantProject)
				}
			}
			// The export menu renders the same rows.
			res := serve(t, s, "GET", "/embed/api/export?format=pdf&publicId="+tt.publicID, "Bearer "+tok, nil)
			pdf := readBody(t, res)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("export: %d %s", res.StatusCode, pdf)
			}
			title := s.dashboardTitle(t, tt.publicID)
			empty, _, err := renderExport("pdf", title, []sampleRow{})
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal([]byte(pdf), empty) == tt.wantRows {
				t.Errorf("the export shows rows: %t, want %t", !bytes.Equal([]byte(pdf), empty), tt.wantRows)
			}
		})
	}
}

// dashboardTitle is the title of the dashboard publicID.
func (s *Server) dashboardTitle(t *testing.T, publicID string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.byPublicID[publicID]
	if d == nil {
		t.Fatalf("no dashboard %s", publicID)
	}
	return d.Title
}

// TestDemoFixtureScopesProjectAnalytics: the built-in fixture's project
// dashboard requires the project key, as the demo's project routes set
// it.
func TestDemoFixtureScopesProjectAnalytics(t *testing.T) {
	for _, d := range DemoFixture().Deployments[0].Dashboards {
		if d.PublicID == "project-analytics" {
			if !slices.Equal(d.RequiredSecurityContext, []string{"project"}) {
				t.Errorf("project-analytics requires %q, want [project]", d.RequiredSecurityContext)
			}
			return
		}
	}
	t.Fatal("the demo fixture has no project-analytics")
}

// TestRequiredSecurityContextChecked: an empty key is refused by name.
func TestRequiredSecurityContextChecked(t *testing.T) {
	f := DemoFixture()
	f.Deployments[0].Dashboards[0].RequiredSecurityContext = []string{" "}
	_, err := New(f)
	if err == nil || !strings.Contains(err.Error(), "dashboards[0].requiredSecurityContext[0]") {
		t.Fatalf("err = %v, want one naming deployments[0].dashboards[0].requiredSecurityContext[0]", err)
	}
}
