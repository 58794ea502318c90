package emulator

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

type exportStatusOut struct {
	Status      string  `json:"status"`
	Progress    *int    `json:"progress"`
	Error       *string `json:"error"`
	ContentType *string `json:"contentType"`
}

func (e *env) submitExport(cred, body string) string {
	e.t.Helper()
	var out struct {
		JobID     string `json:"jobId"`
		ExpiresAt string `json:"expiresAt"`
	}
	mustJSON(e.t, e.expect(200, "POST", "/api/v1/deployments/1/dashboard-exports", cred, body), &out)
	if want := e.s.now().Add(exportLifetime).UTC().Format(time.RFC3339); out.ExpiresAt != want {
		e.t.Errorf("expiresAt %s, want %s", out.ExpiresAt, want)
	}
	return out.JobID
}

// exportStatusFields are the members of the platform's
// DashboardExportStatusResponse; a status answer holds no other.
var exportStatusFields = map[string]bool{"status": true, "progress": true, "error": true, "contentType": true}

func (e *env) poll(cred, job string) exportStatusOut {
	e.t.Helper()
	data := e.expect(200, "GET", "/api/v1/deployments/1/dashboard-exports/"+job, cred, nil)
	var raw map[string]any
	mustJSON(e.t, data, &raw)
	for k := range raw {
		if !exportStatusFields[k] {
			e.t.Errorf("status answer has %q, a field the platform does not document: %s", k, data)
		}
	}
	var st exportStatusOut
	mustJSON(e.t, data, &st)
	return st
}

func TestExportLifecyclePNG(t *testing.T) {
	e := setup(t)
	job := e.submitExport("ek_admin_all", `{"dashboardPublicId":"sales-overview","format":"png"}`)
	dl := "/api/v1/deployments/1/dashboard-exports/" + job + "/download"
	e.expect(409, "GET", dl, "ek_admin_all", nil)
	if st := e.poll("ek_admin_all", job); st.Status != "pending" || *st.Progress != 0 {
		t.Fatalf("first poll %+v", st)
	}
	if st := e.poll("ek_admin_all", job); st.Status != "processing" || *st.Progress != 50 {
		t.Fatalf("second poll %+v", st)
	}
	e.expect(409, "GET", dl, "ek_admin_all", nil)
	st := e.poll("ek_admin_all", job)
	if st.Status != "completed" || *st.Progress != 100 || *st.ContentType != "image/png" || st.Error != nil {
		t.Fatalf("third poll %+v", st)
	}
	_, h, data := e.do("GET", dl+"?filename=q3%20report", "ek_admin_all", nil)
	if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || h.Get("Content-Type") != "image/png" {
		t.Errorf("download: %s %.8q", h.Get("Content-Type"), data)
	}
	if cd := h.Get("Content-Disposition"); cd != `attachment; filename="q3_report.png"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	// Another identity cannot see the job; the dana key can manage the dashboard but did not submit.
	e.expect(404, "GET", "/api/v1/deployments/1/dashboard-exports/"+job, "ek_dana", nil)
	e.expect(404, "GET", dl, "ek_dana", nil)
	// Another key of the same user can.
	e.expect(200, "GET", "/api/v1/deployments/1/dashboard-exports/"+job, "ek_admin_d1", nil)
	// Wrong deployment in the path.
	e.expect(404, "GET", "/api/v1/deployments/2/dashboard-exports/"+job, "ek_admin_all", nil)
	// Expiry drops the job.
	e.s.Advance(exportLifetime)
	e.expect(404, "GET", "/api/v1/deployments/1/dashboard-exports/"+job, "ek_admin_all", nil)
	e.expect(404, "GET", dl, "ek_admin_all", nil)
}

func TestExportFinishesByClock(t *testing.T) {
	e := setup(t)
	job := e.submitExport("ek_admin_all", `{"dashboardId":10,"format":"pdf"}`)
	e.s.Advance(renderDuration)
	_, h, data := e.do("GET", "/api/v1/deployments/1/dashboard-exports/"+job+"/download", "ek_admin_all", nil)
	if !bytes.HasPrefix(data, []byte("%PDF-")) || h.Get("Content-Type") != "application/pdf" ||
		h.Get("Content-Disposition") != `attachment; filename="dashboard.pdf"` {
		t.Fatalf("download %s %q %.8q", h.Get("Content-Type"), h.Get("Content-Disposition"), data)
	}
	if st := e.poll("ek_admin_all", job); st.Status != "completed" {
		t.Errorf("status %+v", st)
	}
}

func TestExportRenderError(t *testing.T) {
	e := setup(t)
	job := e.submitExport("ek_admin_all", `{"dashboardPublicId":"broken-board","format":"png"}`)
	e.s.Advance(renderDuration)
	st := e.poll("ek_admin_all", job)
	if st.Status != "failed" || st.Error == nil || *st.Error != "widget 3 failed to load" {
		t.Fatalf("status %+v", st)
	}
	data := e.expect(422, "GET", "/api/v1/deployments/1/dashboard-exports/"+job+"/download", "ek_admin_all", nil)
	if !strings.Contains(errorOf(t, data), "widget 3 failed to load") {
		t.Errorf("message %s", data)
	}
}

func TestExportSubmitRules(t *testing.T) {
	tests := []struct {
		name, cred, body string
		status           int
		msg              string
	}{
		{"both ids", "ek_admin_all", `{"dashboardId":10,"dashboardPublicId":"sales-overview","format":"png"}`, 400, "exactly one of dashboardId or dashboardPublicId"},
		{"neither id", "ek_admin_all", `{"format":"png"}`, 400, "exactly one"},
		{"empty body", "ek_admin_all", ``, 400, "exactly one"},
		{"bad format", "ek_admin_all", `{"dashboardId":10,"format":"svg"}`, 400, "format: must be png or pdf"},
		{"missing format", "ek_admin_all", `{"dashboardId":10}`, 400, "format"},
		{"unknown field", "ek_admin_all", `{"dashboardId":10,"format":"png","layout":"a4"}`, 400, "layout: unknown field"},
		{"filters accepted", "ek_admin_all", `{"dashboardId":10,"format":"png","filters":[{"member":"Orders.status","operator":"equals","value":"done"}],"timeGrains":[{"member":"Orders.created_at","grain":"month"}]}`, 200, ""},
		{"filter member shape", "ek_admin_all", `{"dashboardId":10,"format":"png","filters":[{"member":"status"}]}`, 400, "filters[0].member"},
		{"unpublished", "ek_admin_all", `{"dashboardPublicId":"draft-board","format":"png"}`, 400, "not published"},
		{"not in deployment", "ek_admin_all", `{"dashboardId":20,"format":"png"}`, 404, "not found in deployment 1"},
		{"unknown dashboard", "ek_admin_all", `{"dashboardPublicId":"nope","format":"png"}`, 404, "not found"},
		{"no manage access", "ek_admin_all", `{"dashboardPublicId":"ops-only","format":"png"}`, 403, "manage access"},
		{"manager non-admin", "ek_dana", `{"dashboardId":10,"format":"png"}`, 200, ""},
		{"renderAs by non-admin", "ek_dana", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"x"}}`, 403, "administrator"},
		{"renderAs embed user", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"viewer-9","groups":["sales"],"securityContext":{"region":"EMEA"}}}`, 200, ""},
		{"renderAs console user by email", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"USER","email":"DANA@acme.test"}}`, 200, ""},
		{"renderAs console user by id", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"USER","userId":2}}`, 200, ""},
		{"renderAs deactivated user", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"USER","email":"gone@acme.test"}}`, 404, "deactivated"},
		{"renderAs unknown user", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"USER","userId":99}}`, 404, "not found"},
		{"renderAs bad type", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"ROBOT"}}`, 400, "renderAs.type"},
		{"renderAs unknown group", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"x","groups":["ghosts"]}}`, 400, "Groups with names ghosts not found"},
		{"renderAs unknown attribute", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"x","userAttributes":[{"name":"nope","value":1}]}}`, 400, "User attributes not found"},
		{"renderAs field type", "ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":1}}`, 400, "renderAs.externalId: must be a string"},
		{"scope", "ek_admin_d2", `{"dashboardId":10,"format":"png"}`, 403, "not scoped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			got, _, data := e.do("POST", "/api/v1/deployments/1/dashboard-exports", tt.cred, tt.body)
			if got != tt.status {
				t.Fatalf("status %d: %s", got, data)
			}
			if got != 200 && !strings.Contains(errorOf(t, data), tt.msg) {
				t.Errorf("message %s", data)
			}
		})
	}
}

func TestExportRenderAsDoesNotStore(t *testing.T) {
	e := setup(t)
	e.generate(`{"deploymentId":1,"externalId":"stored","groups":["emea"],"userAttributes":[{"name":"region","value":"EMEA"}]}`)
	e.submitExport("ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"stored","groups":["sales"],"userAttributes":[{"name":"region","value":"AMER"}]}}`)
	_, c := e.exchange(e.generate(`{"deploymentId":1,"externalId":"stored"}`))
	if g := groupsOf(t, c); len(g) != 1 || g[0] != "emea" || c.Attributes["region"] != "EMEA" {
		t.Errorf("stored context changed: %v %v", g, c.Attributes)
	}
	// A new embed subject is provisioned and counts as an external user.
	e.submitExport("ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"fresh"}}`)
	e.s.mu.Lock()
	_, ok := e.s.st.external["fresh"]
	e.s.mu.Unlock()
	if !ok {
		t.Error("embed subject not provisioned")
	}
}

// TestExportRenderAsTenantWideValues: renderAs attributes resolve against
// the tenant-wide catalog, so an embed subject renders with its stored
// tenant-wide values, never those set in an embed tenant's own catalog.
func TestExportRenderAsTenantWideValues(t *testing.T) {
	e := setup(t)
	e.generate(`{"deploymentId":1,"externalId":"kate","userAttributes":[{"name":"region","value":"EMEA"}]}`)
	e.generate(`{"deploymentId":1,"externalId":"kate","creatorMode":true,"embedTenantName":"tenant-a",
		"userAttributeDefinitions":[{"name":"secret-tier","type":"string"}],"userAttributes":[{"name":"secret-tier","value":"gold"}]}`)
	job := e.submitExport("ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"kate","embedTenantName":"tenant-a"}}`)
	e.s.mu.Lock()
	j := e.s.st.exports[job]
	attrs := cloneMap(j.attributes)
	e.s.mu.Unlock()
	if !reflect.DeepEqual(attrs, map[string]any{"region": "EMEA"}) {
		t.Errorf("render attributes %v, want the tenant-wide region only", attrs)
	}
}

// TestExportTenantShare: an embed subject's tenant needs a share of the
// dashboard's workbook (403 otherwise, the platform's rule); a dashboard
// without sharedWithTenants is shared with every tenant.
func TestExportTenantShare(t *testing.T) {
	fx := strings.Replace(testFixture, `"title":"Ops","published":true,"managers":["ops"]}`,
		`"title":"Ops","published":true,"managers":["ops"]},{"id":15,"publicId":"globex-only","title":"Globex","published":true,"managers":["admin"],"sharedWithTenants":["globex"]}`, 1)
	if fx == testFixture {
		t.Fatal("fixture not changed")
	}
	tests := []struct {
		name   string
		body   string
		status int
		msg    string
	}{
		{"tenant with a share", `{"dashboardId":15,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"g","embedTenantName":"globex"}}`, 200, ""},
		{"tenant without a share", `{"dashboardId":15,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"i","embedTenantName":"initech"}}`, 403, "the embed subject's tenant initech lacks a share of the dashboard's workbook"},
		{"default tenant without a share", `{"dashboardId":15,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"a"}}`, 403, "the embed subject's tenant acme lacks a share of the dashboard's workbook"},
		{"console subject", `{"dashboardId":15,"format":"png","renderAs":{"type":"USER","email":"admin@acme.test"}}`, 200, ""},
		{"the caller", `{"dashboardId":15,"format":"png"}`, 200, ""},
		{"no list: every tenant", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"i","embedTenantName":"initech"}}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, fx)
			got, _, data := e.do("POST", "/api/v1/deployments/1/dashboard-exports", "ek_admin_all", tt.body)
			if got != tt.status {
				t.Fatalf("status %d, want %d: %s", got, tt.status, data)
			}
			if got != 200 {
				if msg := errorOf(t, data); msg != tt.msg {
					t.Errorf("message %q, want %q", msg, tt.msg)
				}
				e.s.mu.Lock()
				n := len(e.s.st.external)
				e.s.mu.Unlock()
				if n != 0 {
					t.Errorf("a refused export provisioned %d embed subjects", n)
				}
			}
		})
	}
}

func TestExportInFlightLimit(t *testing.T) {
	e := setup(t, strings.Replace(testFixture, `"maxExternalUsers":10000`, `"maxExternalUsers":10000,"maxExportsInFlight":2`, 1))
	body := `{"dashboardId":10,"format":"png"}`
	j1 := e.submitExport("ek_admin_all", body)
	e.submitExport("ek_admin_all", body)
	data := e.expect(429, "POST", "/api/v1/deployments/1/dashboard-exports", "ek_admin_all", body)
	if !strings.Contains(errorOf(t, data), "too many dashboard exports in flight") {
		t.Errorf("message %s", data)
	}
	// Another rendered identity has its own budget.
	e.submitExport("ek_admin_all", `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"other"}}`)
	e.submitExport("ek_dana", body)
	// Finishing one job frees a slot.
	for range 3 {
		e.poll("ek_admin_all", j1)
	}
	e.submitExport("ek_admin_all", body)
	e.expect(429, "POST", "/api/v1/deployments/1/dashboard-exports", "ek_admin_all", body)
	e.s.Advance(renderDuration)
	e.submitExport("ek_admin_all", body)
}

func TestExportDownloadsRestricted(t *testing.T) {
	e := setup(t, strings.Replace(testFixture, `"dataDownloadsRestricted":false`, `"dataDownloadsRestricted":true`, 1))
	for _, body := range []string{`{"dashboardId":10,"format":"png"}`, `{"dashboardId":10,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"x"}}`} {
		data := e.expect(403, "POST", "/api/v1/deployments/1/dashboard-exports", "ek_admin_all", body)
		if !strings.Contains(errorOf(t, data), "restricted") {
			t.Errorf("message %s", data)
		}
	}
}

func TestSanitizeFilename(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "dashboard",
		"report":                 "report",
		"../../etc/passwd":       "etc_passwd",
		`a"b`:                    "a_b",
		"sales-2026.q3":          "sales-2026.q3",
		strings.Repeat("x", 300): strings.Repeat("x", 100),
	} {
		if got := sanitizeFilename(in); got != want {
			t.Errorf("sanitizeFilename(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDashboardByPublicID(t *testing.T) {
	e := setup(t)
	for _, tt := range []struct {
		dep   int64
		id    string
		title string
		ok    bool
	}{
		{0, "sales-overview", "Sales overview", true},
		{1, "sales-overview", "Sales overview", true},
		{2, "sales-overview", "", false},
		{0, "draft-board", "", false},
		{0, "nope", "", false},
		{2, "finance-board", "Finance", true},
	} {
		title, ok := e.s.dashboardByPublicID(tt.dep, tt.id)
		if title != tt.title || ok != tt.ok {
			t.Errorf("dashboardByPublicID(%d, %q) = %q, %v", tt.dep, tt.id, title, ok)
		}
	}
}

func TestAuditExport(t *testing.T) {
	e := setup(t)
	header := "time,eventName,userEmail,data\n"
	ev1 := "2026-03-01T10:00:00Z,Logged in,dana@acme.test,\"{\"\"ip\"\":\"\"203.0.113.7\"\"}\"\n"
	ev2 := "2026-03-02T11:00:00Z,Logged in,admin@acme.test,\"{\"\"ip\"\":\"\"198.51.100.4\"\"}\"\n"
	ev3 := "2026-03-03T12:00:00Z,Entered dev mode,Dana@acme.test,\"{\"\"branch\"\":\"\"dev-dana\"\"}\"\n"
	tests := []struct{ query, want string }{
		{"", ev1 + ev2 + ev3},
		{"?start=2026-03-02", ev2 + ev3},
		{"?end=2026-03-02", ev1 + ev2},
		{"?start=2026-03-02&end=2026-03-02", ev2},
		{"?start=2026-03-02T11:00:01Z", ev3},
		{"?eventName=Logged%20in", ev1 + ev2},
		{"?eventName=Logged+in", ev1 + ev2},
		{"?eventName=logged%20in", ""},
		{"?userEmail=dana@acme.test", ev1 + ev3},
		{"?search=DEV-DANA", ev3},
		{"?search=203.0.113", ev1},
		{"?eventName=Logged%20in&userEmail=admin@acme.test", ev2},
		{"?eventName=nothing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, h, data := e.do("GET", "/api/v1/audit-logs/export"+tt.query, "ek_admin_all", nil)
			if got != 200 {
				t.Fatalf("status %d: %s", got, data)
			}
			if h.Get("Content-Type") != "text/csv; charset=utf-8" || h.Get("Content-Disposition") != `attachment; filename="audit-log.csv"` {
				t.Errorf("headers %v", h)
			}
			if string(data) != header+tt.want {
				t.Errorf("csv:\n%s\nwant:\n%s", data, header+tt.want)
			}
		})
	}
	for _, q := range []string{"?start=yesterday", "?end=2026-13-01"} {
		e.expect(400, "GET", "/api/v1/audit-logs/export"+q, "ek_admin_all", nil)
	}
	e.expect(403, "GET", "/api/v1/audit-logs/export", "ek_dana", nil)
	e2 := setup(t, strings.Replace(testFixture, `"auditLog":true`, `"auditLog":false`, 1))
	data := e2.expect(403, "GET", "/api/v1/audit-logs/export", "ek_admin_all", nil)
	if !strings.Contains(errorOf(t, data), "audit log feature") {
		t.Errorf("message %s", data)
	}
}

func TestTenantGroupsCursor(t *testing.T) {
	e := setup(t)
	type page struct {
		Items    []tenantGroupItem `json:"items"`
		PageInfo pageInfo          `json:"pageInfo"`
		Data     []tenantGroupItem `json:"data"`
		Count    int               `json:"count"`
	}
	var names []string
	after := ""
	for i := 0; ; i++ {
		var p page
		q := "?first=2"
		if after != "" {
			q += "&after=" + after
		}
		data := e.expect(200, "GET", "/api/v1/embed-tenants/globex/groups"+q, "ek_admin_all", nil)
		mustJSON(t, data, &p)
		// The platform shows no item fields: the emulator answers the
		// minimum, id, name and description, and nothing invented.
		var raw struct {
			Items []map[string]any `json:"items"`
		}
		mustJSON(t, data, &raw)
		for _, it := range raw.Items {
			if len(it) != 3 || it["id"] == nil || it["name"] == nil || it["description"] == nil {
				t.Errorf("item %v, want exactly id, name and description", it)
			}
		}
		if p.Count != 5 || len(p.Data) != len(p.Items) {
			t.Fatalf("legacy fields: count %d data %d", p.Count, len(p.Data))
		}
		if p.PageInfo.HasPreviousPage != (i > 0) {
			t.Errorf("page %d hasPreviousPage %v", i, p.PageInfo.HasPreviousPage)
		}
		for _, it := range p.Items {
			names = append(names, it.Name)
		}
		if !p.PageInfo.HasNextPage {
			break
		}
		after = *p.PageInfo.EndCursor
	}
	if fmt.Sprint(names) != "[g1 g2 g3 g4 g5]" {
		t.Fatalf("names %v", names)
	}
	// Delete and list again.
	var p page
	mustJSON(t, e.expect(200, "GET", "/api/v1/embed-tenants/globex/groups?first=1", "ek_admin_all", nil), &p)
	e.expect(204, "DELETE", fmt.Sprintf("/api/v1/embed-tenants/globex/groups/%d", p.Items[0].ID), "ek_admin_all", nil)
	e.expect(404, "DELETE", fmt.Sprintf("/api/v1/embed-tenants/globex/groups/%d", p.Items[0].ID), "ek_admin_all", nil)
	e.expect(404, "DELETE", fmt.Sprintf("/api/v1/embed-tenants/globex/groups/%d/", p.Items[0].ID), "ek_admin_all", nil)
	mustJSON(t, e.expect(200, "GET", "/api/v1/embed-tenants/globex/groups?first=100", "ek_admin_all", nil), &p)
	if p.Count != 4 || p.Items[0].Name != "g2" {
		t.Errorf("after delete %+v", p)
	}
	mustJSON(t, e.expect(200, "GET", "/api/v1/embed-tenants/globex/groups?first=1000", "ek_admin_all", nil), &p)
	for _, q := range []string{"?first=0", "?first=x", "?after=bogus"} {
		e.expect(400, "GET", "/api/v1/embed-tenants/globex/groups"+q, "ek_admin_all", nil)
	}
	e.expect(404, "GET", "/api/v1/embed-tenants/nowhere/groups", "ek_admin_all", nil)
	e.expect(400, "GET", "/api/v1/embed-tenants/Bad_Name/groups", "ek_admin_all", nil)
	// The default tenant exists and starts empty.
	mustJSON(t, e.expect(200, "GET", "/api/v1/embed-tenants/acme/groups", "ek_admin_all", nil), &p)
	if p.Count != 0 || p.PageInfo.EndCursor != nil || p.Items == nil {
		t.Errorf("empty tenant %+v", p)
	}
}
