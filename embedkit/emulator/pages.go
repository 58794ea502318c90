package emulator

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The pages an embedding iframe loads, and the one endpoint their script
// reads its data from. A page carries no secret: its script reads the
// single-use session id from the page address, exchanges it for an embed
// token at /api/v1/embed/session/token, keeps the token in memory, and
// calls /embed/api/context with it every two seconds. A revoked or expired
// token makes that call answer 401, which the page shows as "session
// ended" (revoked) or "Session expired" (past the trust end, 23 hours after
// the exchange; the page usually sees that end first, from the context's
// serverTime). The script and styles are served from /embed/assets/, so the
// pages run under a Content-Security-Policy without inline code.

//go:embed assets
var assetFS embed.FS

// pageTemplates are the HTML pages: page.html for every surface and
// error.html for a page that does not exist.
var pageTemplates = template.Must(template.ParseFS(assetFS, "assets/*.html"))

// embedCSP is the Content-Security-Policy of the pages: same-origin script
// and style only, pictures from anywhere over HTTPS, framable by any host.
const embedCSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: https:; frame-ancestors *; base-uri 'none'; form-action 'none'"

// embedAssets are the files served under /embed/assets/ and their types.
var embedAssets = map[string]string{
	"embed.js":  "text/javascript; charset=utf-8",
	"embed.css": "text/css; charset=utf-8",
}

// Embed surfaces, as the postMessage protocol names them.
const (
	surfaceDashboard = "dashboard"
	surfaceApp       = "app"
	surfaceChat      = "chat"
)

// embedPage is what page.html is rendered from.
type embedPage struct {
	Surface      string
	PublicID     string
	DeploymentID int64
	Title        string
	// SessionParam is the query parameter holding the session id:
	// "sessionId" for chat, "session" elsewhere.
	SessionParam string
	// Chrome is which parts of the page show, from the address switches.
	Chrome pageChrome
	// SessionRenewal is whether the page plays the platform's session
	// renewal messages (not Fixture.PredatesSessionRenewal), and
	// ExpiringLeadMS the lead of cube:event:session-expiring in
	// milliseconds (Fixture.SessionExpiringLead).
	SessionRenewal bool
	ExpiringLeadMS int64
}

// errorPage is what error.html is rendered from.
type errorPage struct {
	Status  int
	Heading string
	Message string
}

// handleEmbedPage serves everything under /embed/ except the context
// endpoint:
//
//	/embed/dashboard/{publicId}?session=...                published dashboard
//	/embed/d/{deploymentId}/dashboard/{publicId}?session=...  the same, in one deployment
//	/embed/d/{deploymentId}/app[/...]?session=...          creator-mode app
//	/embed/chat?sessionId=...                              analytics chat
//	/embed/assets/{embed.js,embed.css}                     the pages' script and styles
//
// The address's chrome switches (allowExport and the show... hide
// switches, see readChrome) decide which parts of the page are rendered
// hidden. An unknown dashboard or path gets an HTML 404 page.
func (s *Server) handleEmbedPage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeErrorPage(w, http.StatusMethodNotAllowed, "Method not allowed", "Embedded pages are loaded with GET.")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/embed/")
	if !ok {
		writeErrorPage(w, http.StatusNotFound, "Page not found", "There is no embedded page at this address.")
		return
	}
	if name, ok := strings.CutPrefix(rest, "assets/"); ok {
		serveEmbedAsset(w, r, name)
		return
	}

	page, ok := s.resolveEmbedPage(strings.Split(rest, "/"))
	if !ok {
		writeErrorPage(w, http.StatusNotFound, "Dashboard not found", "This dashboard does not exist or is not published for embedding.")
		return
	}
	page.Chrome = readChrome(page.Surface, r.URL.Query(), s.downloadsRestricted())
	page.SessionRenewal, page.ExpiringLeadMS = s.sessionRenewal()
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, "page.html", page); err != nil {
		s.writeError(w, http.StatusInternalServerError, "render embedded page")
		return
	}
	setPageHeaders(w.Header())
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// resolveEmbedPage maps the path segments after /embed/ to a page.
func (s *Server) resolveEmbedPage(seg []string) (embedPage, bool) {
	switch {
	case len(seg) == 2 && seg[0] == "dashboard":
		return s.dashboardPage(0, seg[1])
	case len(seg) == 1 && seg[0] == "chat":
		return embedPage{Surface: surfaceChat, Title: "Analytics chat", SessionParam: "sessionId"}, true
	case len(seg) >= 3 && seg[0] == "d":
		dep, err := strconv.ParseInt(seg[1], 10, 64)
		if err != nil || dep <= 0 {
			return embedPage{}, false
		}
		switch {
		case len(seg) == 4 && seg[2] == "dashboard":
			return s.dashboardPage(dep, seg[3])
		case seg[2] == "app":
			// In-app paths such as /embed/d/42/app/workbook/130 load the
			// same app.
			return embedPage{Surface: surfaceApp, DeploymentID: dep, Title: "Creator workspace", SessionParam: "session"}, true
		}
	}
	return embedPage{}, false
}

// dashboardPage is the page of a published dashboard, if it exists.
func (s *Server) dashboardPage(deploymentID int64, publicID string) (embedPage, bool) {
	if publicID == "" {
		return embedPage{}, false
	}
	title, ok := s.dashboardByPublicID(deploymentID, publicID)
	if !ok {
		return embedPage{}, false
	}
	return embedPage{
		Surface:      surfaceDashboard,
		PublicID:     publicID,
		DeploymentID: deploymentID,
		Title:        title,
		SessionParam: "session",
	}, true
}

// setPageHeaders sets the headers of an HTML page.
func setPageHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", embedCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// writeErrorPage answers status with a small HTML page.
func writeErrorPage(w http.ResponseWriter, status int, heading, message string) {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, "error.html", errorPage{Status: status, Heading: heading, Message: message}); err != nil {
		http.Error(w, heading, status)
		return
	}
	setPageHeaders(w.Header())
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// serveEmbedAsset serves one of the pages' static files.
func serveEmbedAsset(w http.ResponseWriter, r *http.Request, name string) {
	ctype, ok := embedAssets[name]
	if !ok {
		writeErrorPage(w, http.StatusNotFound, "Not found", "There is no such file.")
		return
	}
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil {
		writeErrorPage(w, http.StatusNotFound, "Not found", "There is no such file.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// embedContext is the answer of /embed/api/context: the identity, settings
// and theme signed into the viewer's embed token, the dashboard title, and
// the rows the viewer may see.
type embedContext struct {
	ExternalID      string         `json:"externalId,omitempty"`
	InternalID      string         `json:"internalId,omitempty"`
	DisplayName     string         `json:"displayName,omitempty"`
	Picture         string         `json:"picture,omitempty"`
	Email           string         `json:"email,omitempty"`
	Tenant          string         `json:"tenant,omitempty"`
	DeploymentID    int64          `json:"deploymentId"`
	CreatorMode     bool           `json:"creatorMode"`
	BranchName      string         `json:"branchName,omitempty"`
	Settings        map[string]any `json:"settings"`
	Theme           map[string]any `json:"theme"`
	SecurityContext map[string]any `json:"securityContext"`
	Attributes      map[string]any `json:"attributes"`
	// ExpiresAt is the token's signed expiry; the page stops trusting the
	// token an hour before it.
	ExpiresAt time.Time `json:"expiresAt"`
	// ServerTime is the platform's clock, so the page judges expiry by it
	// and not by the browser's.
	ServerTime time.Time `json:"serverTime"`
	PublicID   string    `json:"publicId,omitempty"`
	Title      string    `json:"title,omitempty"`
	// RenderError is the dashboard fixture's renderError: the page shows
	// that the dashboard failed to render.
	RenderError string      `json:"renderError,omitempty"`
	Rows        []sampleRow `json:"rows"`
	// Dashboards are the published dashboards of the viewer's deployment,
	// the page's in-embed navigation.
	Dashboards []embedDashboard `json:"dashboards"`
}

// embedDashboard is one entry of the in-embed navigation.
type embedDashboard struct {
	PublicID string `json:"publicId"`
	Title    string `json:"title"`
}

// handleEmbedContext answers GET /embed/api/context for the page script.
// It takes the embed token as "Authorization: Bearer <token>" and answers
// 401 when the token is missing, malformed, not signed with the embed
// secret, expired by the emulator's clock, or revoked. With ?publicId= it
// adds the dashboard's title (404 when the viewer's deployment has no such
// dashboard) and its rows.
//
// The token is checked against its deployment only, never against the
// page or dashboard its session was minted for: the platform's
// documentation states no narrower binding, so a session opens every
// surface of its deployment. That is the emulator's choice, written in
// the package documentation ("Iframe pages and sample data").
func (s *Server) handleEmbedContext(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	c, now, ok := s.embedToken(w, r)
	if !ok {
		return
	}
	expires := time.Unix(c.ExpiresAt, 0).UTC()
	out := embedContext{
		ExternalID:      c.ExternalID,
		InternalID:      c.InternalID,
		DisplayName:     c.DisplayName,
		Picture:         c.Picture,
		Email:           c.Email,
		Tenant:          c.Tenant,
		DeploymentID:    c.DeploymentID,
		CreatorMode:     c.CreatorMode,
		BranchName:      c.BranchName,
		Settings:        nonNil(c.Settings),
		Theme:           nonNil(c.Theme),
		SecurityContext: nonNil(c.SecurityContext),
		Attributes:      nonNil(c.Attributes),
		ExpiresAt:       expires,
		ServerTime:      now.UTC(),
	}
	if pid := r.URL.Query().Get("publicId"); pid != "" {
		title, ok := s.embeddableDashboard(w, c.DeploymentID, pid)
		if !ok {
			return
		}
		out.PublicID, out.Title = pid, title
		out.RenderError = s.dashboardRenderError(pid)
	}
	out.Dashboards = s.publishedDashboards(c.DeploymentID)
	out.Rows = s.rowsFor(out.PublicID, c.SecurityContext, c.Attributes)

	b, err := json.Marshal(out)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "encode embed context")
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// embedToken reads the embed token of r, sent as "Authorization: Bearer
// <token>", and answers 401 itself when it is missing, malformed, not
// signed with the embed secret, expired by the emulator's clock, or
// revoked. It returns the token's claims and the emulator's time.
func (s *Server) embedToken(w http.ResponseWriter, r *http.Request) (*tokenClaims, time.Time, bool) {
	h := w.Header()
	unauthorized := func(msg string) (*tokenClaims, time.Time, bool) {
		h.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		s.writeError(w, http.StatusUnauthorized, msg)
		return nil, time.Time{}, false
	}
	raw, ok := bearerToken(r)
	if !ok {
		h.Set("WWW-Authenticate", "Bearer")
		s.writeError(w, http.StatusUnauthorized, "missing embed token")
		return nil, time.Time{}, false
	}
	c, err := parseToken(s.secret, raw)
	if err != nil {
		return unauthorized("invalid embed token")
	}
	now := s.now()
	if c.ExpiresAt == 0 || !now.Before(time.Unix(c.ExpiresAt, 0)) {
		return unauthorized("embed token expired")
	}
	if c.Revocable && s.tokenRevoked(c.ID) {
		return unauthorized("embed token revoked")
	}
	return c, now, true
}

// errEmbedNotAllowed is the 403 message for a dashboard whose "Allow
// signed embedding" switch is off (the message is the emulator's; the
// documentation gives the status only).
const errEmbedNotAllowed = "signed embedding is not allowed for this dashboard"

// handleEmbedDashboard answers GET /api/v1/embed/dashboard/{publicId}, the
// call the platform's documentation names for a signed dashboard: 403
// when its "Allow signed embedding" switch is off. It takes the embed
// token as its Bearer credential, like /embed/api/context, and answers 404
// for a dashboard that is not published in the token's deployment. The
// 200 body, {publicId, title}, is the emulator's: the documentation does
// not show one.
func (s *Server) handleEmbedDashboard(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	c, _, ok := s.embedToken(w, r)
	if !ok {
		return
	}
	pid := r.PathValue("publicId")
	title, ok := s.embeddableDashboard(w, c.DeploymentID, pid)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusOK, embedDashboard{PublicID: pid, Title: title})
}

// embeddableDashboard returns the title of dashboard publicID of a
// deployment, or answers 404 when it is not published there and 403 when
// it does not allow signed embedding, and reports false.
func (s *Server) embeddableDashboard(w http.ResponseWriter, deploymentID int64, publicID string) (string, bool) {
	title, ok := s.dashboardByPublicID(deploymentID, publicID)
	if !ok {
		s.writeError(w, http.StatusNotFound, "dashboard not found")
		return "", false
	}
	s.mu.Lock()
	d := s.st.byPublicID[publicID]
	allowed := d != nil && (d.AllowEmbed == nil || *d.AllowEmbed)
	s.mu.Unlock()
	if !allowed {
		s.writeError(w, http.StatusForbidden, errEmbedNotAllowed)
		return "", false
	}
	return title, true
}

// bearerToken returns the credential of an "Authorization: Bearer ..."
// header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// nonNil returns m, or an empty map when m is nil, so JSON shows {} and
// the page script never meets null.
func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// sessionRenewal reports whether the embedded pages play the platform's
// session renewal messages, and the lead of cube:event:session-expiring
// in milliseconds.
func (s *Server) sessionRenewal() (bool, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.st.fx.PredatesSessionRenewal, s.st.fx.sessionExpiringLead().Milliseconds()
}

// dashboardRenderError is the renderError of dashboard publicID.
func (s *Server) dashboardRenderError(publicID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.st.byPublicID[publicID]; d != nil {
		return d.RenderError
	}
	return ""
}

// publishedDashboards lists the published dashboards of a deployment (every
// deployment for 0), by public id, leaving out those marked TestOnly.
func (s *Server) publishedDashboards(deploymentID int64) []embedDashboard {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []embedDashboard{}
	for id, d := range s.st.byPublicID {
		if d.Published && !d.TestOnly && (deploymentID == 0 || d.deploymentID == deploymentID) {
			out = append(out, embedDashboard{PublicID: id, Title: d.Title})
		}
	}
	slices.SortFunc(out, func(a, b embedDashboard) int { return strings.Compare(a.PublicID, b.PublicID) })
	return out
}
