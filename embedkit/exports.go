package embedkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file holds dashboard PNG and PDF exports: the request and its
// validation, job status, download and waiting.

// ExportFormat is the file format of a dashboard export.
type ExportFormat string

// The dashboard export formats.
const (
	FormatPNG ExportFormat = "png"
	FormatPDF ExportFormat = "pdf"
)

// DashboardExportRequest is the body of POST
// /api/v1/deployments/{id}/dashboard-exports. Give exactly one of
// DashboardID or DashboardPublicID.
type DashboardExportRequest struct {
	DashboardID       int64                     `json:"dashboardId,omitzero"`
	DashboardPublicID string                    `json:"dashboardPublicId,omitzero"`
	Format            ExportFormat              `json:"format"`
	RenderAs          *RenderAs                 `json:"renderAs,omitzero"`
	Filters           []DashboardFilter         `json:"filters,omitzero"`
	TimeGrains        []DashboardTimeGrain      `json:"timeGrains,omitzero"`
	MemberSwitchers   []DashboardMemberSwitcher `json:"memberSwitchers,omitzero"`
}

// RenderAs subject types.
const (
	SubjectUser      = "USER"
	SubjectEmbedUser = "EMBED_USER"
)

// RenderAs renders an export as another identity (account administrators
// only) so that identity's row-level security applies. Groups,
// UserAttributes and SecurityContext apply to that render only.
type RenderAs struct {
	Type            string               `json:"type"`
	UserID          int64                `json:"userId,omitzero"`
	Email           string               `json:"email,omitzero"`
	EmbedTenantName string               `json:"embedTenantName,omitzero"`
	ExternalID      string               `json:"externalId,omitzero"`
	Groups          []string             `json:"groups,omitzero"`
	SecurityContext map[string]any       `json:"securityContext,omitzero"`
	UserAttributes  []UserAttributeInput `json:"userAttributes,omitzero"`
}

// DashboardFilter overrides a dashboard filter for one export. Member is
// "view.member".
type DashboardFilter struct {
	Member   string `json:"member"`
	Operator string `json:"operator,omitzero"`
	Value    any    `json:"value,omitzero"`
}

// DashboardTimeGrain overrides a time grain for one export.
type DashboardTimeGrain struct {
	Member string `json:"member"`
	Grain  string `json:"grain"`
}

// DashboardMemberSwitcher overrides a member switcher for one export.
type DashboardMemberSwitcher struct {
	Member   string `json:"member"`
	Selected string `json:"selected"`
}

// ExportJob is a submitted dashboard export. The job and its file are
// dropped at ExpiresAt, 5 minutes after submission.
type ExportJob struct {
	JobID     string    `json:"jobId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ExportStatusValue is the state of an export job.
type ExportStatusValue string

// Export job states. Pending and processing mean keep polling.
const (
	ExportPending    ExportStatusValue = "pending"
	ExportProcessing ExportStatusValue = "processing"
	ExportCompleted  ExportStatusValue = "completed"
	ExportFailed     ExportStatusValue = "failed"
)

// ExportStatus is the polled state of an export job.
type ExportStatus struct {
	Status      ExportStatusValue `json:"status"`
	Progress    *float64          `json:"progress,omitzero"`
	Error       string            `json:"error,omitzero"`
	ContentType string            `json:"contentType,omitzero"`
}

// ExportFile is a downloaded dashboard export. Body streams the file
// from the platform; the caller must close it.
type ExportFile struct {
	// Body is the file, read straight from the response.
	Body io.ReadCloser
	// ContentType is "image/png" or "application/pdf".
	ContentType string
	// Filename is the name the platform suggested, for example
	// "dashboard.pdf".
	Filename string
}

// Validate reports the problems of a dashboard export request, Op
// "dashboard-export":
//
//   - exactly one of dashboardId (not negative; zero means unset) or
//     dashboardPublicId;
//   - format is required, png or pdf;
//   - renderAs.type is USER or EMBED_USER. USER takes exactly one of
//     userId or email and no embedTenantName or externalId; EMBED_USER
//     needs externalId and takes no userId, and its embedTenantName, when
//     set, matches the tenant pattern. email is an address when set;
//     renderAs groups and userAttributes names are non-blank and unique,
//     attribute values of a sendable kind, securityContext JSON-encodable;
//   - every filters, timeGrains and memberSwitchers member matches .+\..+
//     (view.member); grain and selected are required; a filter operator,
//     when set, is one of the platform's operators; a filter value is
//     JSON-encodable.
func (r *DashboardExportRequest) Validate() error {
	if r == nil {
		r = &DashboardExportRequest{}
	}
	p := problems{op: "dashboard-export"}
	if (r.DashboardID == 0) == (r.DashboardPublicID == "") {
		p.add("dashboardId", "give exactly one of dashboardId or dashboardPublicId")
	}
	if r.DashboardID < 0 {
		p.add("dashboardId", ruleNotNegative)
	}
	switch r.Format {
	case FormatPNG, FormatPDF:
	case "":
		p.add("format", ruleRequired)
	default:
		p.add("format", "must be png or pdf")
	}
	if r.RenderAs != nil {
		checkRenderAs(&p, r.RenderAs)
	}
	checkControls(&p, r.Filters, r.TimeGrains, r.MemberSwitchers)
	return p.err()
}

// checkControls checks dashboard control overrides: those of an export
// and those preset from an embed URL (DashboardControls).
func checkControls(p *problems, filters []DashboardFilter, grains []DashboardTimeGrain, switchers []DashboardMemberSwitcher) {
	for i := range filters {
		f := &filters[i]
		checkMember(p, "filters", i, f.Member)
		if f.Operator != "" && !isFilterOperator(f.Operator) {
			p.add(indexField("filters", i, ".operator"), ruleFilterOp)
		}
		if f.Value != nil && encodable(f.Value) != encodeOK {
			checkEncodable(p, indexField("filters", i, ".value"), f.Value)
		}
	}
	for i := range grains {
		g := &grains[i]
		checkMember(p, "timeGrains", i, g.Member)
		if strings.TrimSpace(g.Grain) == "" {
			p.add(indexField("timeGrains", i, ".grain"), ruleRequired)
		}
	}
	for i := range switchers {
		m := &switchers[i]
		checkMember(p, "memberSwitchers", i, m.Member)
		if strings.TrimSpace(m.Selected) == "" {
			p.add(indexField("memberSwitchers", i, ".selected"), ruleRequired)
		}
	}
}

// checkRenderAs checks the subject of a dashboard export.
func checkRenderAs(p *problems, ra *RenderAs) {
	switch ra.Type {
	case SubjectUser:
		if (ra.UserID == 0) == (ra.Email == "") {
			p.add("renderAs.userId", "give exactly one of userId or email with type USER")
		}
	case SubjectEmbedUser:
		if ra.UserID != 0 {
			p.add("renderAs.userId", "not allowed with type EMBED_USER")
		}
	case "":
		p.add("renderAs.type", ruleRequired)
	default:
		p.add("renderAs.type", "must be USER or EMBED_USER")
	}
	if ra.UserID < 0 {
		p.add("renderAs.userId", ruleNotNegative)
	}
	if ra.Email != "" && !IsEmailAddress(ra.Email) {
		p.add("renderAs.email", ruleEmail)
	}
	if ra.EmbedTenantName != "" {
		if ra.Type == SubjectUser {
			p.add("renderAs.embedTenantName", "not allowed with type USER")
		} else if !IsTenantName(ra.EmbedTenantName) {
			p.add("renderAs.embedTenantName", ruleTenantName)
		}
	}
	switch {
	case ra.ExternalID != "" && ra.Type == SubjectUser:
		p.add("renderAs.externalId", "not allowed with type USER")
	case ra.ExternalID != "":
		checkIdentifier(p, "renderAs.externalId", ra.ExternalID, true)
	case ra.Type == SubjectEmbedUser:
		p.add("renderAs.externalId", ruleRequired)
	}
	if ra.Groups != nil {
		checkGroupNames(p, "renderAs.groups", ra.Groups)
	}
	if ra.SecurityContext != nil {
		checkEncodable(p, "renderAs.securityContext", ra.SecurityContext)
	}
	if ra.UserAttributes != nil {
		checkAttributeInputs(p, "renderAs.userAttributes", ra.UserAttributes, nil)
	}
}

// checkMember checks the member of a dashboard control override.
func checkMember(p *problems, field string, i int, member string) {
	switch {
	case member == "":
		p.add(indexField(field, i, ".member"), ruleRequired)
	case !memberPattern.MatchString(member):
		p.add(indexField(field, i, ".member"), ruleMember)
	}
}

// isFilterOperator reports whether op is a dashboard filter operator.
func isFilterOperator(op string) bool {
	switch op {
	case "equals", "not_equals", "greater_than", "greater_than_or_equal", "less_than",
		"less_than_or_equal", "contains", "not_contains", "starts_with", "not_starts_with",
		"ends_with", "not_ends_with", "is_null", "is_not_null", "is_empty", "is_not_empty",
		"between", "custom":
		return true
	}
	return false
}

// decodeExportJob reads {"jobId", "expiresAt"}.
func decodeExportJob(body []byte) (*ExportJob, error) {
	var w struct {
		JobID     flexString `json:"jobId"`
		ExpiresAt flexTime   `json:"expiresAt"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.JobID == "" {
		return nil, errors.New("jobId missing")
	}
	return &ExportJob{JobID: string(w.JobID), ExpiresAt: time.Time(w.ExpiresAt)}, nil
}

// decodeExportStatus reads the job status.
func decodeExportStatus(body []byte) (*ExportStatus, error) {
	var w struct {
		Status      ExportStatusValue `json:"status"`
		Progress    *float64          `json:"progress"`
		Error       *string           `json:"error"`
		ContentType *string           `json:"contentType"`
	}
	if err := json.Unmarshal(unwrapData(body), &w); err != nil {
		return nil, err
	}
	if w.Status == "" {
		return nil, errors.New("status missing")
	}
	st := &ExportStatus{Status: w.Status, Progress: w.Progress}
	if w.Error != nil {
		st.Error = *w.Error
	}
	if w.ContentType != nil {
		st.ContentType = *w.ContentType
	}
	return st, nil
}

// exportsPath is /api/v1/deployments/{id}/dashboard-exports.
func exportsPath(deploymentID int64) string {
	return deploymentPath(deploymentID) + "/dashboard-exports"
}

// checkJob is the path check of the job endpoints.
func checkJob(deploymentID int64, jobID string) []FieldError {
	probs := checkDeployment(deploymentID)
	if strings.TrimSpace(jobID) == "" {
		probs = append(probs, FieldError{Field: "jobId", Rule: "is required"})
	}
	return probs
}

// SubmitDashboardExport submits a PNG or PDF render of a published
// dashboard: POST /api/v1/deployments/{deploymentId}/dashboard-exports.
// A renderAs.externalId is sent trimmed and lower-cased, as
// GenerateSession sends the external id (req itself is not modified).
// The job and its file are dropped at the returned ExpiresAt (5 minutes);
// wait for it with WaitDashboardExport and download it before then. The
// call is not retried once it may have reached the platform.
func (c *Client) SubmitDashboardExport(ctx context.Context, deploymentID int64, req *DashboardExportRequest) (*ExportJob, error) {
	// A nil request is checked as an empty one, so that every rule it
	// breaks is reported (Validate takes a nil receiver).
	if err := validationErr("dashboard-export", checkDeployment(deploymentID), req.Validate()); err != nil {
		return nil, err
	}
	// Validate checks renderAs.externalId as GenerateSession's externalId,
	// trimmed and lower-cased (the embed user is the one GenerateSession
	// provisions under that id), so that form is sent, in a copy: the
	// caller's request is never changed.
	send := req
	if ra := req.RenderAs; ra != nil {
		if id := NormalizeExternalID(ra.ExternalID); id != ra.ExternalID {
			cp, raCopy := *req, *ra
			raCopy.ExternalID = id
			cp.RenderAs = &raCopy
			send = &cp
		}
	}
	return fetch(ctx, c, http.MethodPost, exportsPath(deploymentID), send,
		call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports"}, decodeExportJob)
}

// DashboardExportStatus polls an export job:
// GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}. Only
// the identity that submitted the job can poll it; an expired job gives a
// 404.
func (c *Client) DashboardExportStatus(ctx context.Context, deploymentID int64, jobID string) (*ExportStatus, error) {
	if err := validationErr("dashboard-export-status", checkJob(deploymentID, jobID), nil); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodGet, exportsPath(deploymentID)+"/"+url.PathEscape(jobID), nil,
		call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}"}, decodeExportStatus)
}

// DownloadDashboardExport streams the file of a completed export:
// GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download?filename=.
// filename is the stem without extension (empty: the platform's default,
// "dashboard"). A job still rendering gives ErrConflict, a failed one
// ErrUnprocessable, an expired one ErrNotFound. Close the file's Body.
func (c *Client) DownloadDashboardExport(ctx context.Context, deploymentID int64, jobID, filename string) (*ExportFile, error) {
	probs := checkJob(deploymentID, jobID)
	if strings.ContainsAny(filename, "/\\") || strings.ContainsFunc(filename, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		probs = append(probs, FieldError{Field: "filename", Rule: "must be a file name stem without directories or control characters"})
	}
	if err := validationErr("dashboard-export-download", probs, nil); err != nil {
		return nil, err
	}
	q := url.Values{}
	if filename != "" {
		q.Set("filename", filename)
	}
	p := withQuery(exportsPath(deploymentID)+"/"+url.PathEscape(jobID)+"/download", q)
	hreq, err := c.NewRequest(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "application/pdf, image/png, application/json;q=0.5")
	resp, _, err := c.send(hreq, call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download", stream: true})
	if err != nil {
		return nil, err
	}
	if err := c.rejectDocument(hreq, resp); err != nil {
		return nil, err
	}
	f := &ExportFile{
		Body:        resp.Body,
		ContentType: resp.Header.Get("Content-Type"),
		Filename:    attachmentName(resp.Header.Get("Content-Disposition")),
	}
	if f.Filename == "" {
		stem := filename
		if stem == "" {
			stem = "dashboard"
		}
		mt, _, _ := mime.ParseMediaType(f.ContentType)
		switch mt {
		case "application/pdf":
			stem += ".pdf"
		case "image/png":
			stem += ".png"
		}
		f.Filename = stem
	}
	return f, nil
}

// WaitDashboardExport polls an export job until it completes or fails,
// with a growing delay (see WithExportPollInterval).
//
// A completed job returns its status. A failed job returns its status and
// an *ExportFailedError carrying the platform's reason. A job that reaches
// job.ExpiresAt first, or that the platform no longer knows (404), gives an
// error matching ErrExportExpired. A cancelled ctx stops the wait at once.
func (c *Client) WaitDashboardExport(ctx context.Context, deploymentID int64, job *ExportJob) (*ExportStatus, error) {
	var jobID string
	if job != nil {
		jobID = job.JobID
	}
	if err := validationErr("dashboard-export-status", checkJob(deploymentID, jobID), nil); err != nil {
		return nil, err
	}
	delay := c.pollMin
	for {
		if !job.ExpiresAt.IsZero() && !c.now().Before(job.ExpiresAt) {
			return nil, fmt.Errorf("%w: job %s passed its expiry %s before completing; submit it again", ErrExportExpired, jobID, job.ExpiresAt.Format(time.RFC3339))
		}
		st, err := c.DashboardExportStatus(ctx, deploymentID, jobID)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, fmt.Errorf("%w: the platform no longer knows job %s: %w", ErrExportExpired, jobID, err)
			}
			return nil, err
		}
		switch st.Status {
		case ExportCompleted:
			return st, nil
		case ExportFailed:
			return st, &ExportFailedError{JobID: jobID, Reason: st.Error}
		}
		wait := delay
		if !job.ExpiresAt.IsZero() {
			if left := job.ExpiresAt.Sub(c.now()); left < wait {
				wait = max(left, 0)
			}
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("embedkit: waiting for dashboard export %s: %w", jobID, err)
		}
		delay = min(delay*3/2+1, c.pollMax)
	}
}
