package emulator

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/embedkit/embedkit/internal/testbrowser"
)

// browserStep bounds one browser step: starting Chromium, loading a page
// and waiting for it to be ready (testbrowser.Step: only a stuck step
// meets it).
var browserStep = testbrowser.Step(testbrowser.DefaultStep)

// newBrowserTab starts a headless Chromium with one tab, stopped when t
// ends.
func newBrowserTab(t *testing.T) context.Context {
	t.Helper()
	return testbrowser.Start(t, browserStep, chromedp.Navigate("about:blank"))
}

// visibleJS reports, for every id of the chrome elements, whether the
// page shows it (checkVisibility: rendered, not display:none, no hidden
// ancestor), once the page is ready.
const visibleJS = `(() => {
	const status = document.getElementById("status");
	if (!status || status.getAttribute("data-state") !== "ready") return "";
	const out = {};
	for (const id of %s) {
		const el = document.getElementById(id);
		out[id] = el ? el.checkVisibility() : null;
	}
	return JSON.stringify(out);
})()`

// TestEmbedPageChromeInChromium loads an embedded page for every
// documented chrome switch in Chromium, with a live session, and checks
// which parts the viewer sees once the page is ready.
func TestEmbedPageChromeInChromium(t *testing.T) {
	s := newPagesServer(t)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	tab := newBrowserTab(t)

	const dash, app, chat = "/embed/d/1/dashboard/sales-overview?session=", "/embed/d/1/app?session=", "/embed/chat?sessionId="
	tests := []struct {
		name, path, query string
		surface           string
		hidden            []string
	}{
		{"dashboard defaults", dash, "", surfaceDashboard, []string{"download-csv", "export-menu"}},
		{"allowExport=true", dash, "allowExport=true", surfaceDashboard, nil},
		{"showDashboardExportMenu=false", dash, "allowExport=true&showDashboardExportMenu=false", surfaceDashboard, []string{"export-menu"}},
		{"showDashboardHeader=false overrides the four", dash, "allowExport=true&showDashboardHeader=false&showDashboardBackButton=true&showDashboardTitle=true&showDashboardEditButton=true&showDashboardDuplicateButton=true", surfaceDashboard,
			[]string{"back-button", "dashboard-title", "duplicate-button", "edit-button", "embed-header"}},
		{"showDashboardHeader=False does not count", dash, "allowExport=true&showDashboardHeader=False", surfaceDashboard, nil},
		{"showDashboardBackButton=false", dash, "allowExport=true&showDashboardBackButton=false", surfaceDashboard, []string{"back-button"}},
		{"showDashboardTitle=false", dash, "allowExport=true&showDashboardTitle=false", surfaceDashboard, []string{"dashboard-title"}},
		{"showDashboardEditButton=false", dash, "allowExport=true&showDashboardEditButton=false", surfaceDashboard, []string{"edit-button"}},
		{"showDashboardDuplicateButton=false", dash, "allowExport=true&showDashboardDuplicateButton=false", surfaceDashboard, []string{"duplicate-button"}},
		{"app defaults", app, "", surfaceApp, nil},
		{"showWorkbookBackButton=false", app, "showWorkbookBackButton=false", surfaceApp, []string{"workbook-back-button"}},
		{"chat defaults", chat, "", surfaceChat, nil},
		{"showNewChat=false", chat, "showNewChat=false", surfaceChat, []string{"new-chat"}},
		{"showChatInput=false", chat, "showChatInput=false", surfaceChat, []string{"chat-form"}},
		{"showChatHistory=false", chat, "showChatHistory=false", surfaceChat, []string{"chat-history"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := mintSession(t, s)
			target := srv.URL + tt.path + sid
			if tt.query != "" {
				target += "&" + tt.query
			}
			ids, _ := json.Marshal(chromeIDs[tt.surface])
			ctx, cancel := context.WithTimeout(tab, browserStep)
			defer cancel()
			if err := chromedp.Do(ctx, chromedp.Navigate(target)); err != nil {
				t.Fatalf("load the page: %v", err)
			}
			// Chromium may replace the page's execution context just
			// after the load (the first navigation of a new tab): a poll
			// that lands in between fails with "Cannot find context", and
			// is tried again in the new one.
			var raw string
			var err error
			for range 3 {
				raw, err = chromedp.Run(ctx, chromedp.Poll[string](strings.Replace(visibleJS, "%s", string(ids), 1),
					chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(browserStep)))
				if err == nil || !strings.Contains(err.Error(), "Cannot find context") {
					break
				}
			}
			if err != nil {
				t.Fatalf("wait for the page to be ready: %v", err)
			}
			var visible map[string]*bool
			if err := json.Unmarshal([]byte(raw), &visible); err != nil {
				t.Fatal(err)
			}
			var hidden []string
			for id, v := range visible {
				if v == nil {
					t.Fatalf("page has no #%s", id)
				}
				if !*v {
					hidden = append(hidden, id)
				}
			}
			slices.Sort(hidden)
			if !slices.Equal(hidden, tt.hidden) {
				t.Errorf("hidden in Chromium = %v, want %v", hidden, tt.hidden)
			}
		})
	}
}

// mintSession mints a session of deployment 1 over the management API,
// for a page to exchange.
func mintSession(t *testing.T, s *Server) string {
	t.Helper()
	res := serve(t, s, "POST", "/api/v1/embed/generate-session", "Bearer "+pagesAdminKey, strings.NewReader(`{"deploymentId":1,"externalId":"u1"}`))
	body := readBody(t, res)
	if res.StatusCode != 200 {
		t.Fatalf("generate-session: %d %s", res.StatusCode, body)
	}
	var gen struct{ SessionID string }
	if err := json.Unmarshal([]byte(body), &gen); err != nil {
		t.Fatal(err)
	}
	return gen.SessionID
}
