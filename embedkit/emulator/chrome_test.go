package emulator

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// chromeIDs are the page elements the chrome switches show and hide, by
// surface.
var chromeIDs = map[string][]string{
	surfaceDashboard: {"embed-header", "back-button", "dashboard-title", "edit-button", "duplicate-button", "export-menu", "download-csv"},
	surfaceApp:       {"embed-header", "workbook-back-button", "dashboard-title"},
	surfaceChat:      {"embed-header", "dashboard-title", "new-chat", "chat-history", "chat-form"},
}

// hiddenIDs parses page and returns, of the ids given, those whose
// element or an ancestor carries the hidden attribute; it fails t when
// one of the ids is not in the page.
func hiddenIDs(t *testing.T, page string, ids []string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	var hidden []string
	var walk func(n *html.Node, inHidden bool)
	walk = func(n *html.Node, inHidden bool) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "hidden" {
					inHidden = true
				}
			}
			for _, a := range n.Attr {
				if a.Key == "id" && slices.Contains(ids, a.Val) {
					found[a.Val] = true
					if inHidden {
						hidden = append(hidden, a.Val)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHidden)
		}
	}
	walk(doc, false)
	for _, id := range ids {
		if !found[id] {
			t.Fatalf("page has no #%s", id)
		}
	}
	slices.Sort(hidden)
	return hidden
}

func TestEmbedPageChrome(t *testing.T) {
	const dash = "/embed/dashboard/sales-overview?session=0123"
	const app = "/embed/d/1/app?session=0123"
	const chat = "/embed/chat?sessionId=0123"
	// noExport is what a dashboard hides without allowExport=true.
	noExport := []string{"download-csv", "export-menu"}
	tests := []struct {
		name, target string
		surface      string
		hidden       []string
	}{
		{"dashboard defaults", dash, surfaceDashboard, noExport},
		{"allowExport=true", dash + "&allowExport=true", surfaceDashboard, nil},
		{"allowExport=True does not count", dash + "&allowExport=True", surfaceDashboard, noExport},
		{"allowExport=1 does not count", dash + "&allowExport=1", surfaceDashboard, noExport},
		{"showDashboardExportMenu=false", dash + "&allowExport=true&showDashboardExportMenu=false", surfaceDashboard, []string{"export-menu"}},
		{"showDashboardHeader=false", dash + "&showDashboardHeader=false", surfaceDashboard,
			[]string{"back-button", "dashboard-title", "download-csv", "duplicate-button", "edit-button", "embed-header", "export-menu"}},
		{"showDashboardHeader=false outranks showDashboardTitle=true", dash + "&showDashboardHeader=false&showDashboardTitle=true&allowExport=true", surfaceDashboard,
			[]string{"back-button", "dashboard-title", "duplicate-button", "edit-button", "embed-header"}},
		{"showDashboardHeader=FALSE does not count", dash + "&showDashboardHeader=FALSE", surfaceDashboard, noExport},
		{"showDashboardHeader=0 does not count", dash + "&showDashboardHeader=0", surfaceDashboard, noExport},
		{"showDashboardBackButton=false", dash + "&showDashboardBackButton=false", surfaceDashboard, []string{"back-button", "download-csv", "export-menu"}},
		{"showDashboardTitle=false", dash + "&showDashboardTitle=false", surfaceDashboard, []string{"dashboard-title", "download-csv", "export-menu"}},
		{"showDashboardEditButton=false", dash + "&showDashboardEditButton=false", surfaceDashboard, []string{"download-csv", "edit-button", "export-menu"}},
		{"showDashboardDuplicateButton=false", dash + "&showDashboardDuplicateButton=false", surfaceDashboard, []string{"download-csv", "duplicate-button", "export-menu"}},
		{"chat switches ignored on a dashboard", dash + "&showChatInput=false&showNewChat=false&showWorkbookBackButton=false", surfaceDashboard, noExport},
		{"app defaults", app, surfaceApp, nil},
		{"showWorkbookBackButton=false", app + "&showWorkbookBackButton=false", surfaceApp, []string{"workbook-back-button"}},
		{"dashboard switches ignored in the app", app + "&showDashboardHeader=false&showDashboardTitle=false", surfaceApp, nil},
		{"chat defaults", chat, surfaceChat, nil},
		{"showNewChat=false", chat + "&showNewChat=false", surfaceChat, []string{"new-chat"}},
		{"showChatInput=false", chat + "&showChatInput=false", surfaceChat, []string{"chat-form"}},
		{"showChatHistory=false", chat + "&showChatHistory=false", surfaceChat, []string{"chat-history"}},
		{"showChatInput=no does not count", chat + "&showChatInput=no", surfaceChat, nil},
		{"dashboard switches ignored in the chat", chat + "&showDashboardHeader=false&showDashboardTitle=false", surfaceChat, nil},
	}
	s := newPagesServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := serve(t, s, "GET", tt.target, "", nil)
			body := readBody(t, res)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			got := hiddenIDs(t, body, chromeIDs[tt.surface])
			if !slices.Equal(got, tt.hidden) {
				t.Errorf("hidden = %v, want %v", got, tt.hidden)
			}
		})
	}
}

func TestEmbedPageDownloadsRestricted(t *testing.T) {
	s := newPagesServerWith(t, func(f *Fixture) { f.DataDownloadsRestricted = true })
	res := serve(t, s, "GET", "/embed/dashboard/sales-overview?session=0123&allowExport=true", "", nil)
	got := hiddenIDs(t, readBody(t, res), []string{"download-csv", "export-menu"})
	if want := []string{"download-csv", "export-menu"}; !slices.Equal(got, want) {
		t.Errorf("with data downloads restricted, hidden = %v, want %v", got, want)
	}
}

func TestEmbedExport(t *testing.T) {
	s := newPagesServer(t)
	_, token := embedToken(t, s, `{"deploymentId":1,"externalId":"u1","securityContext":{"region":"EMEA"}}`)
	tests := []struct {
		name, target, auth string
		status             int
		ctype              string
	}{
		{"png", "/embed/api/export?publicId=sales-overview&format=png", "Bearer " + token, http.StatusOK, contentTypePNG},
		{"pdf", "/embed/api/export?publicId=sales-overview&format=pdf", "Bearer " + token, http.StatusOK, contentTypePDF},
		{"unknown format", "/embed/api/export?publicId=sales-overview&format=csv", "Bearer " + token, http.StatusBadRequest, ""},
		{"unpublished dashboard", "/embed/api/export?publicId=draft-board&format=png", "Bearer " + token, http.StatusNotFound, ""},
		{"no token", "/embed/api/export?publicId=sales-overview&format=png", "", http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := serve(t, s, "GET", tt.target, tt.auth, nil)
			body := readBody(t, res)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %.200s", res.StatusCode, tt.status, body)
			}
			if tt.ctype != "" && res.Header.Get("Content-Type") != tt.ctype {
				t.Errorf("Content-Type %q, want %q", res.Header.Get("Content-Type"), tt.ctype)
			}
		})
	}

	r := newPagesServerWith(t, func(f *Fixture) { f.DataDownloadsRestricted = true })
	_, token = embedToken(t, r, `{"deploymentId":1,"externalId":"u1"}`)
	if res := serve(t, r, "GET", "/embed/api/export?publicId=sales-overview&format=png", "Bearer "+token, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("with data downloads restricted: status %d, want 403", res.StatusCode)
	}
}
