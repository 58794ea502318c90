package emulator

import (
	"net/http"
	"net/url"
	"strconv"
)

// The chrome of an embedded page is set by switches in the page address,
// which the platform documents as URL-only (a session's settings do not
// carry them):
//
//   - allowExport: only the literal "true" counts. It enables the widget
//     downloads and the whole-dashboard PNG/PDF menu; the account's data
//     download restriction outranks it.
//   - the hide switches: only the literal "false" counts; any other value,
//     "False" and "0" included, keeps the part shown.
//     showDashboardHeader=false hides the header and so overrides the four
//     switches of its parts (back button, title, edit and duplicate
//     buttons); showDashboardExportMenu hides the export menu. The
//     dashboard switches apply to dashboards, showWorkbookBackButton to the
//     creator-mode app and showNewChat, showChatInput and showChatHistory to
//     the chat.
//
// This is the emulator's own reading of the documentation; it shares no
// code with the kit's client side, so each side can catch the other.

// pageChrome is which parts of an embedded page show.
type pageChrome struct {
	// Header is the dashboard's header bar; without it none of the four
	// parts below shows.
	Header          bool
	BackButton      bool
	Title           bool
	EditButton      bool
	DuplicateButton bool
	// Downloads are the widgets' download buttons (allowExport=true).
	Downloads bool
	// ExportMenu is the whole-dashboard PNG/PDF menu: allowExport=true and
	// not hidden by showDashboardExportMenu=false.
	ExportMenu bool

	// WorkbookBackButton is the creator-mode app's back button.
	WorkbookBackButton bool

	NewChat     bool
	ChatInput   bool
	ChatHistory bool
}

// readChrome reads the chrome of a page of surface from its address query;
// downloadsRestricted is the account's data download restriction.
func readChrome(surface string, q url.Values, downloadsRestricted bool) pageChrome {
	// shown: only the literal "false" hides.
	shown := func(name string) bool { return q.Get(name) != "false" }
	var c pageChrome
	switch surface {
	case surfaceDashboard:
		c.Header = shown("showDashboardHeader")
		c.BackButton = c.Header && shown("showDashboardBackButton")
		c.Title = c.Header && shown("showDashboardTitle")
		c.EditButton = c.Header && shown("showDashboardEditButton")
		c.DuplicateButton = c.Header && shown("showDashboardDuplicateButton")
		c.Downloads = q.Get("allowExport") == "true" && !downloadsRestricted
		c.ExportMenu = c.Downloads && shown("showDashboardExportMenu")
	case surfaceApp:
		c.Header, c.Title = true, true
		c.WorkbookBackButton = shown("showWorkbookBackButton")
	case surfaceChat:
		c.Header, c.Title = true, true
		c.NewChat = shown("showNewChat")
		c.ChatInput = shown("showChatInput")
		c.ChatHistory = shown("showChatHistory")
	}
	return c
}

// downloadsRestricted reports the account's data download restriction
// (Fixture.DataDownloadsRestricted).
func (s *Server) downloadsRestricted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.fx.DataDownloadsRestricted
}

// handleEmbedExport answers GET /embed/api/export?publicId=...&format=png|pdf,
// the download behind an embedded dashboard's export menu. It takes the
// embed token as its Bearer credential, like /embed/api/context, and
// renders the rows the viewer may see. It answers 403 when the account
// restricts data downloads. The route is the emulator's: the platform
// documents the menu, not the call behind it.
func (s *Server) handleEmbedExport(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	c, _, ok := s.embedToken(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	format := q.Get("format")
	if format != "png" && format != "pdf" {
		s.writeError(w, http.StatusBadRequest, `format must be "png" or "pdf"`)
		return
	}
	pid := q.Get("publicId")
	title, ok := s.embeddableDashboard(w, c.DeploymentID, pid)
	if !ok {
		return
	}
	if s.downloadsRestricted() {
		s.writeError(w, http.StatusForbidden, "data downloads are restricted on this account")
		return
	}
	file, ct, err := renderExport(format, title, s.rowsFor(pid, c.SecurityContext, c.Attributes))
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "render export")
		return
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", `attachment; filename="`+sanitizeFilename(pid)+"."+format+`"`)
	h.Set("Content-Length", strconv.Itoa(len(file)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(file)
}
