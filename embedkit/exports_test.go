package embedkit

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestSubmitDashboardExport(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/deployments/8/dashboard-exports", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Bearer")
		testJSONBody(t, r, `{"dashboardPublicId":"pub-1","format":"pdf","renderAs":{"type":"EMBED_USER","embedTenantName":"acme","externalId":"u1","groups":["g"]},"filters":[{"member":"orders.status","operator":"equals","value":"done"}]}`)
		writeJSON(w, 200, `{"jobId":"job-1","expiresAt":"2025-03-01T12:05:00Z"}`)
	})
	job, err := c.SubmitDashboardExport(context.Background(), 8, &DashboardExportRequest{
		DashboardPublicID: "pub-1",
		Format:            FormatPDF,
		RenderAs:          &RenderAs{Type: SubjectEmbedUser, EmbedTenantName: "acme", ExternalID: "u1", Groups: []string{"g"}},
		Filters:           []DashboardFilter{{Member: "orders.status", Operator: "equals", Value: "done"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if job.JobID != "job-1" || !job.ExpiresAt.Equal(time.Date(2025, 3, 1, 12, 5, 0, 0, time.UTC)) {
		t.Errorf("job = %+v", job)
	}
	_, err = c.SubmitDashboardExport(context.Background(), 0, nil)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 3 {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.SubmitDashboardExport(context.Background(), 8, &DashboardExportRequest{Format: FormatPNG}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("neither id: %v", err)
	}
}

// TestSubmitDashboardExportNormalisesExternalID: Validate checks
// renderAs.externalId as an id that is trimmed and lower-cased (the embed
// user GenerateSession provisions under it), so that is what is sent; the
// id was sent as given, and the emulator refused " Viewer-1" with a 400
// (found by FuzzValidateRequests). The caller's request is not changed.
func TestSubmitDashboardExportNormalisesExternalID(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/deployments/8/dashboard-exports", func(w http.ResponseWriter, r *http.Request) {
		testJSONBody(t, r, `{"dashboardId":3,"format":"png","renderAs":{"type":"EMBED_USER","externalId":"viewer-1"}}`)
		writeJSON(w, 200, `{"jobId":"job-1","expiresAt":"2025-03-01T12:05:00Z"}`)
	})
	req := &DashboardExportRequest{DashboardID: 3, Format: FormatPNG, RenderAs: &RenderAs{Type: SubjectEmbedUser, ExternalID: " Viewer-1\t"}}
	if _, err := c.SubmitDashboardExport(context.Background(), 8, req); err != nil {
		t.Fatal(err)
	}
	if req.RenderAs.ExternalID != " Viewer-1\t" {
		t.Errorf("the caller's request was changed: externalId %q", req.RenderAs.ExternalID)
	}
}

func TestDashboardExportStatus(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/deployments/8/dashboard-exports/job%2F1", func(w http.ResponseWriter, r *http.Request) {
		testAuth(t, r, "Bearer")
		testNoBody(t, r)
		writeJSON(w, 200, `{"status":"failed","progress":40,"error":"renderer crashed","contentType":null}`)
	})
	st, err := c.DashboardExportStatus(context.Background(), 8, "job/1")
	if err != nil || st.Status != ExportFailed || st.Error != "renderer crashed" || st.Progress == nil || *st.Progress != 40 {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if _, err := c.DashboardExportStatus(context.Background(), 8, ""); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
}

func TestDownloadDashboardExport(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	mux.HandleFunc("GET /api/v1/deployments/8/dashboard-exports/j1/download", func(w http.ResponseWriter, r *http.Request) {
		testHeader(t, r, "Authorization", "Bearer "+testKey)
		switch r.URL.Query().Get("filename") {
		case "report":
			testQuery(t, r, "filename=report")
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Disposition", `attachment; filename="report.pdf"`)
			io.WriteString(w, "%PDF-1.7 ...")
		case "":
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "\x89PNG")
		case "rendering":
			writeJSON(w, 409, `{"error":"export still rendering"}`)
		case "failed":
			writeJSON(w, 422, `{"error":"render failed"}`)
		case "gone":
			writeJSON(w, 404, `{"error":"not found"}`)
		case "json":
			writeJSON(w, 200, `{"status":"pending"}`)
		case "nameless":
			w.Header().Set("Content-Type", "application/pdf")
		}
	})
	ctx := context.Background()
	f, err := c.DownloadDashboardExport(ctx, 8, "j1", "report")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f.Body)
	f.Body.Close()
	if string(b) != "%PDF-1.7 ..." || f.ContentType != "application/pdf" || f.Filename != "report.pdf" {
		t.Errorf("file = %q %+v", b, f)
	}
	f, err = c.DownloadDashboardExport(ctx, 8, "j1", "")
	if err != nil || f.Filename != "dashboard.png" {
		t.Fatalf("png: %+v %v", f, err)
	}
	f.Body.Close()
	f, err = c.DownloadDashboardExport(ctx, 8, "j1", "nameless")
	if err != nil || f.Filename != "nameless.pdf" {
		t.Fatalf("nameless: %+v %v", f, err)
	}
	f.Body.Close()
	for name, want := range map[string]error{"rendering": ErrConflict, "failed": ErrUnprocessable, "gone": ErrNotFound, "json": ErrUnexpectedResponse} {
		if _, err := c.DownloadDashboardExport(ctx, 8, "j1", name); !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
	for _, bad := range []string{"../x", "a\\b", "a\nb"} {
		if _, err := c.DownloadDashboardExport(ctx, 8, "j1", bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("filename %q: %v", bad, err)
		}
	}
}

// exportServer serves a job whose status walks through statuses, one per
// poll (the last repeats).
func exportServer(t *testing.T, statuses ...string) (*Client, *fakeClock, *[]time.Duration, *atomic.Int32) {
	t.Helper()
	clk := newFakeClock()
	c, mux, _ := setup(t, WithClock(clk.Now), WithExportPollInterval(time.Second, 4*time.Second))
	var polls atomic.Int32
	mux.HandleFunc("GET /api/v1/deployments/8/dashboard-exports/j1", func(w http.ResponseWriter, r *http.Request) {
		i := int(polls.Add(1)) - 1
		if i >= len(statuses) {
			i = len(statuses) - 1
		}
		if statuses[i] == "404" {
			writeJSON(w, 404, `{"error":"not found"}`)
			return
		}
		writeJSON(w, 200, statuses[i])
	})
	var delays []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		delays = append(delays, d)
		clk.Advance(d)
		return ctx.Err()
	}
	return c, clk, &delays, &polls
}

func TestWaitDashboardExportCompletes(t *testing.T) {
	c, clk, delays, polls := exportServer(t,
		`{"status":"pending"}`, `{"status":"processing","progress":10}`, `{"status":"processing","progress":90}`,
		`{"status":"processing"}`, `{"status":"processing"}`, `{"status":"completed","contentType":"application/pdf"}`)
	job := &ExportJob{JobID: "j1", ExpiresAt: clk.Now().Add(5 * time.Minute)}
	st, err := c.WaitDashboardExport(context.Background(), 8, job)
	if err != nil || st.Status != ExportCompleted || st.ContentType != "application/pdf" {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if polls.Load() != 6 {
		t.Errorf("polls = %d", polls.Load())
	}
	// Growing, capped delays.
	for i, d := range *delays {
		if d < time.Second || d > 4*time.Second || (i > 0 && d < (*delays)[i-1]) {
			t.Errorf("delays = %v", *delays)
			break
		}
	}
	if last := (*delays)[len(*delays)-1]; last != 4*time.Second {
		t.Errorf("delay not capped at 4s: %v", *delays)
	}
}

func TestWaitDashboardExportFails(t *testing.T) {
	c, clk, _, _ := exportServer(t, `{"status":"pending"}`, `{"status":"failed","error":"dashboard has no widgets"}`)
	st, err := c.WaitDashboardExport(context.Background(), 8, &ExportJob{JobID: "j1", ExpiresAt: clk.Now().Add(5 * time.Minute)})
	var failed *ExportFailedError
	if !errors.As(err, &failed) || failed.Reason != "dashboard has no widgets" || failed.JobID != "j1" {
		t.Fatalf("err = %v", err)
	}
	if st == nil || st.Status != ExportFailed {
		t.Errorf("status = %+v", st)
	}
	if !strings.Contains(err.Error(), "dashboard has no widgets") {
		t.Errorf("Error() = %q", err)
	}
}

func TestWaitDashboardExportExpires(t *testing.T) {
	c, clk, delays, polls := exportServer(t, `{"status":"processing"}`)
	job := &ExportJob{JobID: "j1", ExpiresAt: clk.Now().Add(10 * time.Second)}
	_, err := c.WaitDashboardExport(context.Background(), 8, job)
	if !errors.Is(err, ErrExportExpired) {
		t.Fatalf("err = %v", err)
	}
	var total time.Duration
	for _, d := range *delays {
		total += d
	}
	if total != 10*time.Second {
		t.Errorf("waited %v in total (%v), want exactly up to the expiry", total, *delays)
	}
	if polls.Load() < 3 {
		t.Errorf("polls = %d", polls.Load())
	}

	// Already expired: no poll at all.
	c, clk, _, polls = exportServer(t, `{"status":"processing"}`)
	if _, err := c.WaitDashboardExport(context.Background(), 8, &ExportJob{JobID: "j1", ExpiresAt: clk.Now()}); !errors.Is(err, ErrExportExpired) || polls.Load() != 0 {
		t.Errorf("expired job: %v after %d polls", err, polls.Load())
	}

	// The platform dropped the job.
	c, clk, _, _ = exportServer(t, `{"status":"processing"}`, "404")
	_, err = c.WaitDashboardExport(context.Background(), 8, &ExportJob{JobID: "j1", ExpiresAt: clk.Now().Add(time.Minute)})
	if !errors.Is(err, ErrExportExpired) || !errors.Is(err, ErrNotFound) {
		t.Errorf("dropped job: %v", err)
	}
}

func TestWaitDashboardExportCancel(t *testing.T) {
	c, clk, _, polls := exportServer(t, `{"status":"pending"}`)
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, d)
	}
	_, err := c.WaitDashboardExport(ctx, 8, &ExportJob{JobID: "j1", ExpiresAt: clk.Now().Add(time.Minute)})
	if !errors.Is(err, context.Canceled) || polls.Load() != 1 {
		t.Fatalf("err = %v after %d polls", err, polls.Load())
	}
	// Other errors pass through; a nil job is a validation error.
	if _, err := c.WaitDashboardExport(context.Background(), 8, nil); !errors.Is(err, ErrInvalidRequest) {
		t.Error(err)
	}
	c2, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	mux.HandleFunc("GET /api/v1/deployments/8/dashboard-exports/j1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, `{"error":"no"}`)
	})
	if _, err := c2.WaitDashboardExport(context.Background(), 8, &ExportJob{JobID: "j1"}); !errors.Is(err, ErrForbidden) {
		t.Error(err)
	}
}

// TestWaitDashboardExportRealTimers runs the default sleep with short
// intervals and no expiry.
func TestWaitDashboardExportRealTimers(t *testing.T) {
	c, mux, _ := setup(t, WithExportPollInterval(time.Millisecond, 2*time.Millisecond))
	var polls atomic.Int32
	mux.HandleFunc("GET /api/v1/deployments/8/dashboard-exports/j1", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) < 3 {
			writeJSON(w, 200, `{"status":"processing"}`)
			return
		}
		writeJSON(w, 200, `{"status":"completed"}`)
	})
	st, err := c.WaitDashboardExport(context.Background(), 8, &ExportJob{JobID: "j1"})
	if err != nil || st.Status != ExportCompleted {
		t.Fatal(err)
	}
}

func TestDashboardExportRequestValidate(t *testing.T) {
	valid := func() *DashboardExportRequest {
		return &DashboardExportRequest{
			DashboardPublicID: "q3-sales",
			Format:            FormatPDF,
			RenderAs: &RenderAs{
				Type: SubjectEmbedUser, EmbedTenantName: "acme", ExternalID: "user-42",
				Groups: []string{"sales"}, SecurityContext: map[string]any{"region": "emea"},
				UserAttributes: []UserAttributeInput{{Name: "region", Value: "emea"}},
			},
			Filters: []DashboardFilter{
				{Member: "orders.status", Operator: "equals", Value: "completed"},
				{Member: "orders.amount", Operator: "between", Value: []any{10, 20}},
				{Member: "orders.note", Operator: "is_null"},
			},
			TimeGrains:      []DashboardTimeGrain{{Member: "orders.created_at", Grain: "week"}},
			MemberSwitchers: []DashboardMemberSwitcher{{Member: "orders.country", Selected: "city"}},
		}
	}
	tests := []struct {
		name string
		edit func(r *DashboardExportRequest)
		want []FieldError
	}{
		{name: "embed subject", edit: func(*DashboardExportRequest) {}},
		{name: "by id as console user", edit: func(r *DashboardExportRequest) {
			r.DashboardPublicID, r.DashboardID, r.Format = "", 9, FormatPNG
			r.RenderAs = &RenderAs{Type: SubjectUser, Email: "ada@acme.example.com"}
		}},
		{name: "console user by id", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3} }},
		{name: "no subject", edit: func(r *DashboardExportRequest) { r.RenderAs = nil }},
		{name: "embed subject without tenant", edit: func(r *DashboardExportRequest) { r.RenderAs.EmbedTenantName = "" }},
		{name: "neither dashboard", edit: func(r *DashboardExportRequest) { r.DashboardPublicID = "" },
			want: []FieldError{fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId")}},
		{name: "both dashboards", edit: func(r *DashboardExportRequest) { r.DashboardID = 4 },
			want: []FieldError{fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId")}},
		{name: "negative dashboard id", edit: func(r *DashboardExportRequest) { r.DashboardPublicID, r.DashboardID = "", -4 },
			want: []FieldError{fe("dashboardId", "must not be negative")}},
		{name: "format missing", edit: func(r *DashboardExportRequest) { r.Format = "" },
			want: []FieldError{fe("format", "is required")}},
		{name: "format unknown", edit: func(r *DashboardExportRequest) { r.Format = "csv" },
			want: []FieldError{fe("format", "must be png or pdf")}},
		{name: "subject type missing", edit: func(r *DashboardExportRequest) { r.RenderAs.Type = "" },
			want: []FieldError{fe("renderAs.type", "is required")}},
		{name: "subject type unknown", edit: func(r *DashboardExportRequest) { r.RenderAs.Type = "user" },
			want: []FieldError{fe("renderAs.type", "must be USER or EMBED_USER")}},
		{name: "console user with both", edit: func(r *DashboardExportRequest) {
			r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3, Email: "ada@acme.example.com"}
		}, want: []FieldError{fe("renderAs.userId", "give exactly one of userId or email with type USER")}},
		{name: "console user with neither", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser} },
			want: []FieldError{fe("renderAs.userId", "give exactly one of userId or email with type USER")}},
		{name: "console user with embed fields", edit: func(r *DashboardExportRequest) {
			r.RenderAs = &RenderAs{Type: SubjectUser, UserID: 3, EmbedTenantName: "acme", ExternalID: "u"}
		}, want: []FieldError{
			fe("renderAs.embedTenantName", "not allowed with type USER"),
			fe("renderAs.externalId", "not allowed with type USER"),
		}},
		{name: "embed user without external id", edit: func(r *DashboardExportRequest) { r.RenderAs.ExternalID = "" },
			want: []FieldError{fe("renderAs.externalId", "is required")}},
		{name: "embed user with user id", edit: func(r *DashboardExportRequest) { r.RenderAs.UserID = 5 },
			want: []FieldError{fe("renderAs.userId", "not allowed with type EMBED_USER")}},
		{name: "embed user fields", edit: func(r *DashboardExportRequest) {
			r.RenderAs.Email = "x"
			r.RenderAs.EmbedTenantName = "-acme"
			r.RenderAs.ExternalID = "\x01"
			r.RenderAs.Groups = []string{"a", "a", ""} // a repeated name is no rule of the platform's
			r.RenderAs.SecurityContext = map[string]any{"c": make(chan int)}
			r.RenderAs.UserAttributes = append(r.RenderAs.UserAttributes, UserAttributeInput{Name: "region", Value: 1})
		}, want: []FieldError{
			fe("renderAs.email", "must be an email address"),
			fe("renderAs.embedTenantName", "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$"),
			fe("renderAs.externalId", "must not contain control characters"),
			fe("renderAs.groups[2]", "is required"),
			fe("renderAs.securityContext", "must be JSON-encodable"),
			fe("renderAs.userAttributes[1].name", `duplicate name "region"`),
		}},
		{name: "negative user id", edit: func(r *DashboardExportRequest) { r.RenderAs = &RenderAs{Type: SubjectUser, UserID: -1} },
			want: []FieldError{fe("renderAs.userId", "must not be negative")}},
		{name: "members", edit: func(r *DashboardExportRequest) {
			r.Filters[0].Member = "status"
			r.Filters[1].Member = ""
			r.TimeGrains[0].Member = ".created_at"
			r.MemberSwitchers[0].Member = "orders."
		}, want: []FieldError{
			fe("filters[0].member", `must match .+\..+ (view.member)`),
			fe("filters[1].member", "is required"),
			fe("timeGrains[0].member", `must match .+\..+ (view.member)`),
			fe("memberSwitchers[0].member", `must match .+\..+ (view.member)`),
		}},
		{name: "member with newline", edit: func(r *DashboardExportRequest) { r.Filters[0].Member = "orders\n.status" },
			want: []FieldError{fe("filters[0].member", `must match .+\..+ (view.member)`)}},
		{name: "filter operator and value", edit: func(r *DashboardExportRequest) {
			r.Filters[0].Operator = "eq"
			r.Filters[1].Value = []any{math.NaN()}
			r.Filters[2].Operator = ""
		}, want: []FieldError{fe("filters[0].operator", ruleFilterOp), fe("filters[1].value", "must be JSON-encodable")}},
		{name: "grain and selected", edit: func(r *DashboardExportRequest) {
			r.TimeGrains[0].Grain = ""
			r.MemberSwitchers[0].Selected = " "
		}, want: []FieldError{fe("timeGrains[0].grain", "is required"), fe("memberSwitchers[0].selected", "is required")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.edit(r)
			valCheck(t, "dashboard-export", r.Validate(), tt.want)
		})
	}
	t.Run("nil request", func(t *testing.T) {
		var r *DashboardExportRequest
		valCheck(t, "dashboard-export", r.Validate(), []FieldError{
			fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId"), fe("format", "is required"),
		})
	})
}

// TestSubmitDashboardExportReportsEveryRule: a missing or empty request
// reports every rule it breaks before anything is sent, the exactly-one-of
// rule of the dashboard ids as well as the format (a nil request reported
// only the format).
func TestSubmitDashboardExportReportsEveryRule(t *testing.T) {
	c, _, _ := setup(t)
	bothRules := []FieldError{
		fe("dashboardId", "give exactly one of dashboardId or dashboardPublicId"), fe("format", "is required"),
	}
	tests := []struct {
		name       string
		deployment int64
		req        *DashboardExportRequest
		want       []FieldError
	}{
		{name: "nil request", deployment: 1, req: nil, want: bothRules},
		{name: "empty request", deployment: 1, req: &DashboardExportRequest{}, want: bothRules},
		{name: "nil request without a deployment", deployment: 0, req: nil,
			want: append([]FieldError{fe("deploymentId", "must be a positive number")}, bothRules...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SubmitDashboardExport(context.Background(), tt.deployment, tt.req)
			valCheck(t, "dashboard-export", err, tt.want)
		})
	}
}
