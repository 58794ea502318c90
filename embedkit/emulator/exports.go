package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Dashboard export jobs. A job's life, deterministic for tests:
//
//   - submit: status "pending", progress 0; expiresAt = submit + 5 minutes;
//   - the first status poll answers "pending" (progress 0), the second
//     "processing" (progress 50), the third and later the final status;
//   - independently of polls, a job is finished once the clock is
//     renderDuration (2 s) past submission;
//   - final status: "completed" (progress 100, contentType set) or
//     "failed" (error set) when the dashboard has a renderError or the
//     renderer fails;
//   - at expiresAt the job and its file are dropped: poll and download give
//     404.
//
// Download answers 409 while the job is pending or processing, 422 after a
// failed render, and otherwise the PNG or PDF file as an attachment named
// <filename>.<format> (filename query parameter, default "dashboard").
const (
	exportLifetime = 5 * time.Minute
	renderDuration = 2 * time.Second
	pollsToFinish  = 3
)

type exportJob struct {
	id           string
	deploymentID int64
	publicID     string
	title        string
	renderError  string
	format       string
	submitter    string // username of the submitting identity
	identity     string // identity rendered as (in-flight limit)
	secContext   map[string]any
	attributes   map[string]any
	createdAt    time.Time
	expiresAt    time.Time
	polls        int

	rendered    bool
	failed      bool
	errMsg      string
	file        []byte
	contentType string
}

// finishedAt reports whether the render is over at now.
func (j *exportJob) finishedAt(now time.Time) bool {
	return j.polls >= pollsToFinish || !now.Before(j.createdAt.Add(renderDuration))
}

type exportBody struct {
	DashboardID       *int64           `json:"dashboardId"`
	DashboardPublicID *string          `json:"dashboardPublicId"`
	Format            *string          `json:"format"`
	RenderAs          *renderAsBody    `json:"renderAs"`
	Filters           []map[string]any `json:"filters"`
	TimeGrains        []map[string]any `json:"timeGrains"`
	MemberSwitchers   []map[string]any `json:"memberSwitchers"`
}

type renderAsBody struct {
	Type            *string          `json:"type"`
	UserID          *int64           `json:"userId"`
	Email           *string          `json:"email"`
	EmbedTenantName *string          `json:"embedTenantName"`
	ExternalID      *string          `json:"externalId"`
	Groups          []string         `json:"groups"`
	SecurityContext map[string]any   `json:"securityContext"`
	UserAttributes  []attributeInput `json:"userAttributes"`
}

// handleSubmitExport is POST /api/v1/deployments/{id}/dashboard-exports.
// Order of checks: credential (401), key scope (403), deployment (404),
// body (400: both or neither dashboard id, format), data downloads
// restricted (403), renderAs by a non-administrator (403), dashboard not in
// the deployment (404), unpublished dashboard (400), manage access (403),
// renderAs subject (400/404), exports in flight for the rendered identity
// (429).
func (s *Server) handleSubmitExport(w http.ResponseWriter, r *http.Request) {
	p, depID, ok := s.deploymentFor(w, r)
	if !ok {
		return
	}
	var b exportBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	if (b.DashboardID == nil) == (b.DashboardPublicID == nil) {
		s.writeError(w, http.StatusBadRequest, "dashboardId: give exactly one of dashboardId or dashboardPublicId")
		return
	}
	if b.Format == nil || (*b.Format != "png" && *b.Format != "pdf") {
		s.writeError(w, http.StatusBadRequest, "format: must be png or pdf")
		return
	}
	for i, f := range b.Filters {
		if m, _ := f["member"].(string); !strings.Contains(strings.Trim(m, "."), ".") {
			s.writeError(w, http.StatusBadRequest, indexPath("filters", i)+".member: must be a member name such as Orders.status")
			return
		}
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.sweepLocked(now)
	if st.fx.DataDownloadsRestricted {
		s.writeError(w, http.StatusForbidden, "data downloads are restricted on this account")
		return
	}
	if b.RenderAs != nil && !p.admin {
		s.writeError(w, http.StatusForbidden, "renderAs needs an account administrator")
		return
	}
	var db *dashboardRec
	if b.DashboardID != nil {
		db = st.dashboards[*b.DashboardID]
	} else {
		db = st.byPublicID[*b.DashboardPublicID]
	}
	if db == nil || db.deploymentID != depID {
		ref := ""
		if b.DashboardID != nil {
			ref = fmt.Sprintf("%d", *b.DashboardID)
		} else {
			ref = fmt.Sprintf("%q", *b.DashboardPublicID)
		}
		s.writeError(w, http.StatusNotFound, "dashboard "+ref+" not found in deployment "+formatID(depID))
		return
	}
	if !db.Published {
		s.writeError(w, http.StatusBadRequest, fmt.Sprintf("dashboard %q is not published; only a published dashboard can be exported", db.PublicID))
		return
	}
	if !db.managers[p.username] {
		s.writeError(w, http.StatusForbidden, "manage access to the dashboard's workbook is required")
		return
	}
	subj, serr := st.resolveSubject(p, b.RenderAs)
	if serr != nil {
		s.writeError(w, serr.status, serr.msg)
		return
	}
	if subj.tenant != "" && db.SharedWithTenants != nil && !slices.Contains(db.SharedWithTenants, subj.tenant) {
		s.writeError(w, http.StatusForbidden, fmt.Sprintf("the embed subject's tenant %s lacks a share of the dashboard's workbook", subj.tenant))
		return
	}
	inFlight := 0
	for _, j := range st.exports {
		if j.identity == subj.identity && now.Before(j.expiresAt) && !j.finishedAt(now) {
			inFlight++
		}
	}
	if inFlight >= st.maxExports {
		s.writeError(w, http.StatusTooManyRequests, fmt.Sprintf("too many dashboard exports in flight for this identity (limit %d)", st.maxExports))
		return
	}
	if subj.provision != nil {
		if len(st.external) >= st.maxExternal {
			s.writeError(w, http.StatusBadRequest, fmt.Sprintf("renderAs.externalId: the account limit of %d external users is reached", st.maxExternal))
			return
		}
		st.external[subj.provision.externalID] = subj.provision
	}
	j := &exportJob{
		id: randomHex(16), deploymentID: depID, publicID: db.PublicID, title: db.Title,
		renderError: db.RenderError, format: *b.Format, submitter: p.username,
		identity: subj.identity, secContext: subj.secContext, attributes: subj.attributes,
		createdAt: now, expiresAt: now.Add(exportLifetime),
	}
	st.exports[j.id] = j
	s.writeJSON(w, http.StatusOK, map[string]string{
		"jobId":     j.id,
		"expiresAt": j.expiresAt.UTC().Format(time.RFC3339),
	})
}

type renderSubject struct {
	identity   string
	tenant     string // the embed tenant of an embed subject, else ""
	secContext map[string]any
	attributes map[string]any
	provision  *externalUser // embed subject to create when the job is accepted
}

// resolveSubject returns the identity a render uses: the caller, or the
// renderAs subject. An embed subject's groups, attributes and security
// context apply to this render only.
func (st *state) resolveSubject(p *principal, ra *renderAsBody) (*renderSubject, *statusError) {
	bad := func(status int, format string, args ...any) (*renderSubject, *statusError) {
		return nil, &statusError{status, fmt.Sprintf(format, args...)}
	}
	if ra == nil {
		return &renderSubject{
			identity:   "user:" + p.username,
			secContext: withGroups(nil, []string{}),
		}, nil
	}
	if ra.Type == nil {
		return bad(http.StatusBadRequest, "renderAs.type: is required (USER or EMBED_USER)")
	}
	switch *ra.Type {
	case "USER":
		var u *userRec
		switch {
		case ra.UserID != nil:
			u = st.userByID[*ra.UserID]
		case ra.Email != nil:
			for _, cand := range st.users {
				if strings.EqualFold(cand.email, *ra.Email) {
					u = cand
				}
			}
		default:
			return bad(http.StatusBadRequest, "renderAs.userId: give userId or email of the console user")
		}
		if u == nil {
			return bad(http.StatusNotFound, "renderAs: console user not found")
		}
		if !u.active {
			return bad(http.StatusNotFound, "renderAs: console user is deactivated")
		}
		return &renderSubject{identity: "user:" + u.username, secContext: withGroups(nil, []string{})}, nil
	case "EMBED_USER":
	default:
		return bad(http.StatusBadRequest, "renderAs.type: must be USER or EMBED_USER")
	}
	if ra.ExternalID == nil || *ra.ExternalID == "" {
		return bad(http.StatusBadRequest, "renderAs.externalId: is required for EMBED_USER")
	}
	ext := *ra.ExternalID
	if ext != strings.ToLower(strings.TrimSpace(ext)) {
		return bad(http.StatusBadRequest, "renderAs.externalId: must be lowercase and trimmed")
	}
	tenantName := st.fx.Tenant
	if ra.EmbedTenantName != nil {
		if !tenantNamePattern.MatchString(*ra.EmbedTenantName) {
			return bad(http.StatusBadRequest, "renderAs.embedTenantName: must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$")
		}
		tenantName = *ra.EmbedTenantName
	}
	var missing []string
	for _, g := range dedupe(ra.Groups) {
		if !st.groups[g] {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		return bad(http.StatusBadRequest, "Groups with names %s not found", strings.Join(missing, ", "))
	}
	if err := checkNames("renderAs.userAttributes", len(ra.UserAttributes), func(i int) *string { return ra.UserAttributes[i].Name }); err != nil {
		return bad(http.StatusBadRequest, "%s", err.Error())
	}
	for i, a := range ra.UserAttributes {
		def, ok := st.attrs[*a.Name]
		if !ok {
			return bad(http.StatusBadRequest, "User attributes not found")
		}
		if got := valueType(a.Value); got != "null" && !valueMatches(def.Type, got) {
			return bad(http.StatusBadRequest, "renderAs.userAttributes[%d].value: attribute %q has type %s", i, def.Name, def.Type)
		}
	}
	subj := &renderSubject{identity: "embed:" + tenantName + "/" + ext, tenant: tenantName}
	u := st.external[ext]
	attrs := map[string]any{}
	groups := []string{}
	if u != nil {
		// renderAs attributes resolve against the tenant-wide catalog
		// (st.attrs above), so the stored values of that catalog apply.
		for k, v := range u.values(tenantWideCatalog, false) {
			attrs[k] = cloneValue(v)
		}
		groups = append(groups, u.groups...)
	} else {
		subj.provision = newExternalUser(ext)
		if ra.Email != nil {
			subj.provision.email = *ra.Email
		} else {
			subj.provision.email = ext
		}
	}
	if ra.Groups != nil {
		groups = dedupe(ra.Groups)
	}
	for _, a := range ra.UserAttributes {
		if a.Value == nil {
			delete(attrs, *a.Name)
		} else {
			attrs[*a.Name] = a.Value
		}
	}
	subj.secContext = withGroups(ra.SecurityContext, groups)
	subj.attributes = attrs
	return subj, nil
}

// exportFor resolves the job of a poll or download: 404 when unknown,
// expired, of another deployment or submitted by someone else.
func (s *Server) exportFor(w http.ResponseWriter, r *http.Request) (*exportJob, bool) {
	p, depID, ok := s.deploymentFor(w, r)
	if !ok {
		return nil, false
	}
	now := s.now()
	s.mu.Lock()
	j := s.st.exports[r.PathValue("jobId")]
	if j != nil && !now.Before(j.expiresAt) {
		delete(s.st.exports, j.id)
		j = nil
	}
	s.mu.Unlock()
	if j == nil || j.deploymentID != depID || j.submitter != p.username {
		s.writeError(w, http.StatusNotFound, "export job not found (unknown, expired or submitted by another identity)")
		return nil, false
	}
	return j, true
}

// exportStatus is the platform's DashboardExportStatusResponse: status,
// progress, error (failed only) and contentType (completed only), and no
// other member.
type exportStatus struct {
	Status      string  `json:"status"`
	Progress    *int    `json:"progress"`
	Error       *string `json:"error,omitempty"`
	ContentType *string `json:"contentType,omitempty"`
}

// settle renders a finished job once, outside the state lock.
func (s *Server) settle(j *exportJob, now time.Time) {
	s.mu.Lock()
	need := j.finishedAt(now) && !j.rendered
	renderErr, format, title, publicID := j.renderError, j.format, j.title, j.publicID
	sc, attrs := j.secContext, j.attributes
	s.mu.Unlock()
	if !need {
		return
	}
	var (
		file []byte
		ct   string
		msg  string
	)
	if renderErr != "" {
		msg = renderErr
	} else {
		var err error
		file, ct, err = renderExport(format, title, s.rowsFor(publicID, sc, attrs))
		if err != nil {
			msg = "render failed: " + err.Error()
		}
	}
	s.mu.Lock()
	if !j.rendered {
		j.rendered = true
		j.failed = msg != ""
		j.errMsg = msg
		j.file, j.contentType = file, ct
	}
	s.mu.Unlock()
}

// handleExportStatus is GET .../dashboard-exports/{jobId}; each poll
// advances the job (see the lifecycle above).
func (s *Server) handleExportStatus(w http.ResponseWriter, r *http.Request) {
	j, ok := s.exportFor(w, r)
	if !ok {
		return
	}
	now := s.now()
	s.mu.Lock()
	j.polls++
	polls := j.polls
	s.mu.Unlock()
	s.settle(j, now)
	s.mu.Lock()
	var out exportStatus
	progress := 0
	switch {
	case j.rendered && j.failed:
		out.Status = "failed"
		msg := j.errMsg
		out.Error = &msg
		out.Progress = nil
	case j.rendered:
		out.Status = "completed"
		progress = 100
		ct := j.contentType
		out.ContentType = &ct
		out.Progress = &progress
	case polls <= 1:
		out.Status = "pending"
		out.Progress = &progress
	default:
		out.Status = "processing"
		progress = 50
		out.Progress = &progress
	}
	s.mu.Unlock()
	s.writeJSON(w, http.StatusOK, out)
}

// handleExportDownload is GET .../dashboard-exports/{jobId}/download.
func (s *Server) handleExportDownload(w http.ResponseWriter, r *http.Request) {
	j, ok := s.exportFor(w, r)
	if !ok {
		return
	}
	s.settle(j, s.now())
	s.mu.Lock()
	rendered, failed, errMsg, file, ct, format := j.rendered, j.failed, j.errMsg, j.file, j.contentType, j.format
	s.mu.Unlock()
	switch {
	case !rendered:
		s.writeError(w, http.StatusConflict, "the export is still rendering; poll its status until it is completed")
		return
	case failed:
		s.writeError(w, http.StatusUnprocessableEntity, "the export failed: "+errMsg+"; submit a new export")
		return
	}
	name := sanitizeFilename(r.URL.Query().Get("filename")) + "." + format
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Content-Length", fmt.Sprint(len(file)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(file)
}

// sanitizeFilename keeps a safe file name stem: letters, digits, '.', '-'
// and '_' (others become '_'), at most 100 bytes, default "dashboard".
func sanitizeFilename(stem string) string {
	var b strings.Builder
	for _, c := range stem {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 100 {
			break
		}
	}
	out := strings.Trim(b.String(), "._")
	if out == "" {
		return "dashboard"
	}
	return out
}

// dashboardByPublicID returns the title of a published dashboard
// (deploymentID 0 means any deployment).
func (s *Server) dashboardByPublicID(deploymentID int64, publicID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.st.byPublicID[publicID]
	if d == nil || !d.Published || (deploymentID != 0 && d.deploymentID != deploymentID) {
		return "", false
	}
	return d.Title, true
}
