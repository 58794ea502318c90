package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/middleware"
)

// TestDemoInBrowser drives the demo in one headless Chromium: one demo and
// one browser process for every scenario, a new browser context (cookie
// jar) per scenario, users in sequence.
func TestDemoInBrowser(t *testing.T) {
	s := newStack(t)

	t.Run("sign in", func(t *testing.T) {
		for _, u := range []demoUser{ana, ben, chloe} {
			t.Run(u.username, func(t *testing.T) { testSignIn(t, s, u) })
		}
	})
	t.Run("reload and second tab", func(t *testing.T) { testReloadAndSecondTab(t, s, ben) })
	t.Run("locale follows settings", func(t *testing.T) { testLocaleFollowsSettings(t, s, ana) })
	t.Run("logout revokes", func(t *testing.T) { testLogoutRevokes(t, s, chloe) })
	t.Run("logout ends the other tabs", func(t *testing.T) { testLogoutEndsOtherTabs(t, s, ben) })
	t.Run("another origin cannot end the frames", func(t *testing.T) { testOtherOriginCannotEndFrames(t, s, ana) })
	t.Run("refused in a foreign frame", func(t *testing.T) { testForeignFrame(t, s, ben) })
	t.Run("refused in a sibling origin's frame", func(t *testing.T) { testSiblingOriginFrame(t, s, ana) })
	t.Run("link from another site", func(t *testing.T) { testLinkFromAnotherSite(t, s, chloe) })
	t.Run("events and filters", func(t *testing.T) { testEventsAndFilters(t, s, ana) })
	t.Run("renewal", func(t *testing.T) { testRenewal(t, s, ben) })
	t.Run("project scoped by route", func(t *testing.T) { testScopedProject(t, s, ana) })
	t.Run("ask the chat", func(t *testing.T) { testAsk(t, s, ben) })
	t.Run("custom element and per-frame actions", func(t *testing.T) { testCustomElementAndOneFrameActions(t, s, chloe) })
	t.Run("the platform page on a bare host page", func(t *testing.T) { testBarePage(t, s) })
	t.Run("React component in StrictMode", func(t *testing.T) { testReactStrictMode(t, s, ana) })
	t.Run("the package's ES module", func(t *testing.T) { testModulePage(t, s, ben) })
	// Last: it moves the emulator's clock and switches its fixture.
	t.Run("renewal in place", func(t *testing.T) { testRenewalInPlace(t, s, ana) })
}

// testSignIn signs u in through the identity provider's form and checks
// the dashboard shows u's name, only u's region, u's number format and
// time zone, and that the host page heard the embed's ready event.
func testSignIn(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	e := s.openDashboard(t, tab)

	if e.Viewer != u.name {
		t.Errorf("embed viewer name %q, want %q", e.Viewer, u.name)
	}
	checkDemoChrome(t, tab)
	for _, r := range e.Rows {
		if r.Region != u.region {
			t.Errorf("embed shows a %s row (%s) to %s, who may see %s only", r.Region, r.Month, u.username, u.region)
		}
		if !u.money.MatchString(r.Revenue) {
			t.Errorf("revenue %q of %s %s is not in %s format", r.Revenue, r.Region, r.Month, u.locale)
		}
	}
	if e.Locale != u.locale || e.DataLocale != u.locale {
		t.Errorf("embed locale #locale=%q data-locale=%q, want %s", e.Locale, e.DataLocale, u.locale)
	}
	if e.Zone != u.zone || e.DataZone != u.zone {
		t.Errorf("embed time zone #timezone=%q data-timezone=%q, want %s", e.Zone, e.DataZone, u.zone)
	}
	if embedHearsHost(t, s, tab) {
		waitHost(t, tab, "the host status line to show the embed live", func(h hostState) bool {
			return h.Embed == "live"
		})
	}

	s.screenshot(t, tab, "1-dashboard-"+u.username)
	if u.username == ana.username && os.Getenv("EMBEDKIT_UPDATE_SCREENSHOT") == "1" {
		writeFile(t, filepath.Join("..", "..", "..", "docs", "demo-dashboard.png"), viewportPNG(t, tab))
	}
	s.signOut(t, tab)
}

// testReloadAndSecondTab checks the dashboard page's embed path, the
// README's default: the page's handler mints as it renders, so the
// iframe src is the platform's URL with a single-use session. Loading the
// iframe's own document again (iframe.src = iframe.src) asks for the
// used-up URL: the host script re-mints the frame through the session
// endpoint, by its data-embedkit-target, and it is ready again with one
// new session, the frame endpoint untouched. A second tab renders the
// page again with its own session, and logout revokes every id the pages
// minted.
func testReloadAndSecondTab(t *testing.T, s *stack, u demoUser) {
	start := sessionIDs(s.sessions(t))
	first := s.session(t)
	s.signIn(t, first, u)
	s.openDashboard(t, first)
	dashboard := location(t, first)
	firstID := frameSession(t, s, first)

	markEmbed(t, first)
	before := sessionIDs(s.sessions(t))
	calls := embedCalls(t, first)
	do(t, first, "load the embed iframe's used-up URL again",
		chromedp.Evaluate[chromedp.Void](`(() => {
			const f = document.getElementById("embed-frame");
			f.src = f.src;
		})()`))
	e := waitEmbed(t, first, "the re-minted embed ready", func(e embedState) bool {
		return !e.Marker && ready(e)
	})
	if e.Viewer != u.name {
		t.Errorf("re-minted embed shows %q, want %q", e.Viewer, u.name)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 1 {
		t.Errorf("re-minting the used-up frame minted %d sessions, want 1", len(minted))
	}
	if id := frameSession(t, s, first); id == firstID {
		t.Error("the iframe still has its used-up session after the re-mint")
	}
	after := embedCalls(t, first)
	if after.Session != calls.Session+1 || after.Frame != calls.Frame {
		t.Errorf("the re-mint asked the session endpoint %d times and the frame endpoint %d times, want once and never",
			after.Session-calls.Session, after.Frame-calls.Frame)
	}
	waitHost(t, first, "the host status line live again", func(h hostState) bool { return h.Embed == "live" })
	if n := countLogged(t, first, "session-renewed"); n != 1 {
		t.Errorf("the event log has %d session-renewed events, want 1", n)
	}

	second := s.tab(t, first)
	do(t, second, "open the dashboard in a second tab", chromedp.Navigate(dashboard))
	e2 := waitEmbed(t, second, "the second tab's embed ready", ready)
	if e2.Viewer != u.name {
		t.Errorf("second tab's embed shows %q, want %q", e2.Viewer, u.name)
	}
	if id := frameSession(t, s, second); id == firstID || id == frameSession(t, s, first) {
		t.Error("the second tab's page carries the first tab's session")
	}
	if e := readEmbedNow(t, first); !ready(e) {
		t.Errorf("first tab's embed is %q after the second tab opened, want ready", e.State)
	}

	minted := mintedSince(start, s.sessions(t))
	if len(minted) != 3 {
		t.Errorf("two page loads and a re-mint minted %d sessions, want 3", len(minted))
	}
	s.signOut(t, first)
	mine := sessionIDs(minted)
	for _, se := range s.sessions(t) {
		if mine[se.SessionID] && se.State != "revoked" {
			t.Errorf("after logout a session the pages minted (created %s) is %q, want revoked", se.CreatedAt.Format(time.RFC3339), se.State)
		}
	}
}

// frameSession returns the session id in the src of tab's embed iframe,
// which must be the platform's URL, as the page's handler or the
// session endpoint set it.
func frameSession(t *testing.T, s *stack, tab context.Context) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	src, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("embed-frame").src`))
	if err != nil {
		t.Fatalf("read the iframe src: %v", err)
	}
	u, err := url.Parse(src)
	if err != nil || origin(src) != s.emulator || u.Query().Get("session") == "" {
		t.Fatalf("the iframe src is not the platform's URL with a session (origin %q)", origin(src))
	}
	return u.Query().Get("session")
}

// kitCalls counts the host page's requests to the kit's endpoints.
type kitCalls struct {
	Session int `json:"session"` // POST /embed/session
	Frame   int `json:"frame"`   // /embed/frame/...
}

// embedCalls counts, from the host page's resource timing, its requests
// to the session and frame endpoints so far.
func embedCalls(t *testing.T, tab context.Context) kitCalls {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	c, err := readPage[kitCalls](ctx, `JSON.stringify((() => {
		const paths = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
		return {
			session: paths.filter((p) => p === "/embed/session").length,
			frame: paths.filter((p) => p.startsWith("/embed/frame/")).length,
		};
	})())`)
	if err != nil {
		t.Fatalf("read the page's resource timing: %v", err)
	}
	return c
}

// countLogged returns how many name events the host page's event log
// lists.
func countLogged(t *testing.T, tab context.Context, name string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	names, err := eventLog(ctx)
	if err != nil {
		t.Fatalf("read the event log: %v", err)
	}
	return count(names, name)
}

// testLocaleFollowsSettings changes the language in the settings panel:
// the embed follows at once, without reloading, the choice is saved, and
// a new page load uses it.
func testLocaleFollowsSettings(t *testing.T, s *stack, u demoUser) {
	const next = "en-US"
	if u.locale == next {
		t.Fatalf("pick a user whose locale is not %s", next)
	}
	tab := s.session(t)
	s.signIn(t, tab, u)
	s.openDashboard(t, tab)
	if h := waitHost(t, tab, "the settings panel", func(h hostState) bool { return h.Locale != "" }); h.Locale != u.locale {
		t.Errorf("settings panel shows locale %q, want the profile's %s", h.Locale, u.locale)
	}

	if !embedHearsHost(t, s, tab) {
		s.signOut(t, tab)
		return
	}
	markEmbed(t, tab)
	do(t, tab, "choose "+next+" in the settings panel",
		chromedp.SetValue(chromedp.CSS("select#locale-select"), next),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("locale-select").dispatchEvent(new Event("change", {bubbles: true}))`))
	e := waitEmbed(t, tab, "the embed in "+next, func(e embedState) bool {
		return e.Locale == next && e.DataLocale == next
	})
	if !e.Marker {
		t.Error("the embed reloaded to change locale; want it to follow in place")
	}
	if !ready(e) {
		t.Errorf("embed is %q after the locale change, want ready", e.State)
	}
	for _, r := range e.Rows {
		if !ben.money.MatchString(r.Revenue) {
			t.Errorf("revenue %q of %s %s is not in %s format after the change", r.Revenue, r.Region, r.Month, next)
		}
	}
	if e.Zone != u.zone {
		t.Errorf("time zone became %q after a locale change, want %s", e.Zone, u.zone)
	}
	waitHost(t, tab, "the settings saved", func(h hostState) bool { return h.Saved == "saved" })

	do(t, tab, "reload the dashboard page", chromedp.Reload())
	e = waitEmbed(t, tab, "the embed in the saved locale after a reload", func(e embedState) bool {
		return ready(e) && !e.Marker
	})
	if e.Locale != next {
		t.Errorf("after a page reload the embed locale is %q, want the saved %s", e.Locale, next)
	}
	s.signOut(t, tab)
}

// testLogoutRevokes opens the dashboard in two tabs, logs out in one, and
// checks the platform holds every session of the user revoked and the
// other tab's frame ended.
func testLogoutRevokes(t *testing.T, s *stack, u demoUser) {
	before := sessionIDs(s.sessions(t))
	first := s.session(t)
	s.signIn(t, first, u)
	s.openDashboard(t, first)
	other := s.watchTab(t, first, location(t, first))

	minted := mintedSince(before, s.sessions(t))
	if len(minted) < 2 {
		t.Fatalf("two dashboard loads minted %d sessions, want at least 2", len(minted))
	}
	externalID := minted[0].ExternalID
	for _, se := range minted {
		if se.ExternalID != externalID {
			t.Fatalf("sessions minted for one user carry different external ids %q and %q", externalID, se.ExternalID)
		}
	}
	if externalID == "" {
		t.Fatal("minted sessions carry no external id")
	}

	s.signOut(t, first)
	loggedOut := time.Now()
	var mine, open []emulatorSession
	for _, se := range s.sessions(t) {
		if se.ExternalID != externalID {
			continue
		}
		mine = append(mine, se)
		if se.State != "revoked" {
			open = append(open, se)
		}
	}
	if len(mine) < len(minted) {
		t.Errorf("the platform lists %d sessions of %s, want at least %d", len(mine), u.username, len(minted))
	}
	for _, se := range open {
		t.Errorf("after logout a session of %s created %s is %q, want revoked", u.username, se.CreatedAt.Format(time.RFC3339), se.State)
	}

	// The logout form tells the other tab (tabs.js), which ends and
	// blanks its frame; testLogoutEndsOtherTabs checks how.
	waitTabEnded(t, other, "the other tab's frame to end")
	took := time.Since(loggedOut)
	t.Logf("the other tab showed the session ended %s after logout", took.Round(10*time.Millisecond))
	waitHost(t, other, "the other tab's header to stop naming the signed-out user", func(h hostState) bool {
		return h.Account == "Signed out"
	})
	s.screenshot(t, other, "4-session-ended-other-tab")
	s.screenshot(t, first, "4-signed-out")
}

// testForeignFrame loads a page from another origin that frames the app's
// dashboard list, while signed in, so the app would render its page.
// The app's frame-ancestors policy must stop it: Chromium then commits
// an error page in the frame, whose frame-tree entry names the app's URL
// as unreachable, and the frame holds no app content. A frame of the
// platform's page (frame-ancestors *) on the same foreign page shows that
// frames there do render when allowed.
func testForeignFrame(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)

	target := s.app + "/dashboards"
	control := s.emulator + "/embed/dashboard/no-such-dashboard"
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, foreignPage, target, control)
	}))
	defer foreign.Close()
	if origin(foreign.URL) == s.app {
		t.Fatal("the foreign page must be on another origin than the app")
	}

	do(t, tab, "load a foreign page framing the app", chromedp.Navigate(foreign.URL))
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatalf("frame tree: %v", err)
	}
	frames := map[string]*cdp.Frame{}
	for _, c := range tree.FrameTree.ChildFrames {
		frames[c.Frame.Name] = c.Frame
	}
	host, ctl := frames["host-app"], frames["platform"]
	if host == nil || ctl == nil {
		t.Fatalf("foreign page has frames %v, want host-app and platform", slices.Sorted(maps.Keys(frames)))
	}
	if ctl.UnreachableURL != "" || origin(ctl.URL) != s.emulator {
		t.Fatalf("control frame did not render the platform page (origin %q, unreachable %t): the check below would prove nothing", origin(ctl.URL), ctl.UnreachableURL != "")
	}
	if origin(host.URL) == s.app {
		t.Errorf("the app rendered inside a foreign frame (frame at %s%s)", origin(host.URL), pathOf(host.URL))
	}
	if host.UnreachableURL != target {
		t.Errorf("the app's frame was not blocked: unreachable URL %q, want %q", host.UnreachableURL, target)
	}

	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#host-app")))
	if err != nil {
		t.Fatalf("find the app's frame: %v", err)
	}
	if nodes[0].ContentDocument != nil {
		menus, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#account-menu, #dashboards"), chromedp.FromNode(nodes[0]), chromedp.AtLeast(0)))
		if err != nil {
			t.Fatalf("look into the app's frame: %v", err)
		}
		if len(menus) != 0 {
			t.Errorf("the app's page rendered in the foreign frame (%d app elements found)", len(menus))
		}
	}
	do(t, tab, "go back to the app", chromedp.Navigate(s.app+"/dashboards"))
	s.signOut(t, tab)
}

// testSiblingOriginFrame loads a page of another origin of the same site
// (another port of the host's address, as user content on a sibling
// subdomain would be) that frames the kit's frame endpoint while the
// viewer is signed in: the endpoint refuses it and mints nothing.
func testSiblingOriginFrame(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	sibling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Sibling</title><iframe id="f" src="%s/embed/frame/dashboard/sales-overview"></iframe>`, s.app)
	}))
	defer sibling.Close()
	if origin(sibling.URL) == s.app || !strings.HasPrefix(sibling.URL, "http://127.0.0.1:") {
		t.Fatalf("the sibling page must be another origin of the app's site, got %s", origin(sibling.URL))
	}
	before := sessionIDs(s.sessions(t))
	do(t, tab, "load a sibling-origin page framing the frame endpoint", chromedp.Navigate(sibling.URL))
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	err := pollUntil(ctx, func(ctx context.Context) (bool, error) {
		tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
		if err != nil || len(tree.FrameTree.ChildFrames) == 0 {
			return false, nil
		}
		f := tree.FrameTree.ChildFrames[0].Frame
		return f.URL != "" && f.URL != "about:blank", nil
	})
	if err != nil {
		t.Fatalf("the sibling page's frame never loaded: %v", err)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 0 {
		t.Errorf("a sibling origin's frame minted %d sessions for the signed-in viewer", len(minted))
	}
	do(t, tab, "go back to the app", chromedp.Navigate(s.app+"/dashboards"))
	s.signOut(t, tab)
}

// testLinkFromAnotherSite follows a link to a dashboard page from a page
// of another site (a web mail, a chat), while signed in: the page's
// handler mints nothing for the cross-site navigation and gives the
// iframe the frame endpoint's URL, whose same-origin load mints once, so
// the dashboard still opens. A site that kept navigating a popup to the
// page could otherwise spend the viewer's mint limit.
func testLinkFromAnotherSite(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	mail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Mail</title><a id="link" href="%s/dashboards/sales-overview">Sales this week</a>`, s.app)
	}))
	defer mail.Close()
	// localhost and 127.0.0.1 are two sites to the browser.
	mailURL := strings.Replace(mail.URL, "127.0.0.1", "localhost", 1)
	if !strings.HasPrefix(s.app, "http://127.0.0.1:") || !strings.HasPrefix(mailURL, "http://localhost:") {
		t.Fatalf("the mail page must be another site than the app (%s), got %s", origin(s.app), origin(mailURL))
	}
	before := sessionIDs(s.sessions(t))
	do(t, tab, "open the mail page", chromedp.Navigate(mailURL))
	click(t, tab, "#link")
	waitHost(t, tab, "the dashboard page", func(h hostState) bool {
		return strings.HasPrefix(h.URL, s.app+"/dashboards/sales-overview") && h.Frame
	})
	e := waitEmbed(t, tab, "the embed ready", ready)
	if e.Viewer != u.name {
		t.Errorf("the embed shows %q, want %q", e.Viewer, u.name)
	}
	src := waitPage(t, tab, "the iframe's src attribute", `JSON.stringify(document.getElementById("embed-frame").getAttribute("src"))`, func(string) bool { return true })
	if !strings.HasPrefix(src, middleware.DefaultFramePrefix) || !strings.Contains(src, middleware.ArrivalParam+"=") {
		u, _ := url.Parse(src) // the path only: a platform URL would carry a session id
		t.Errorf("the page reached from another site has an iframe src of %s%s, want the frame endpoint's URL", u.Host, u.Path)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 1 {
		t.Errorf("following the link minted %d sessions, want 1 (the iframe's load)", len(minted))
	}
	if c := embedCalls(t, tab); c.Frame != 1 || c.Session != 0 {
		t.Errorf("the page asked the frame endpoint %d times and the session endpoint %d times, want once and never", c.Frame, c.Session)
	}
	s.signOut(t, tab)
}

// foreignPage frames the app (first %s) and, as a control, a page of the
// platform (second %s), which allows any ancestor.
const foreignPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another site</title></head>
<body>
<h1>Another site</h1>
<iframe id="host-app" name="host-app" src="%s" width="600" height="400"></iframe>
<iframe id="platform" name="platform" src="%s" width="600" height="400"></iframe>
</body></html>`

// markEmbed sets window.__marker in the embed iframe of tab; a reload of
// the iframe clears it.
func markEmbed(t *testing.T, tab context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if _, err := inEmbed[bool](ctx, `(window.__marker = 1) === 1`); err != nil {
		t.Fatalf("mark the embed: %v", err)
	}
}

// readEmbedNow reads the embed iframe of tab once, failing t on error.
func readEmbedNow(t *testing.T, tab context.Context) embedState {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	e, err := readEmbed(ctx)
	if err != nil {
		t.Fatalf("read the embed: %v", err)
	}
	return e
}

// writeFile writes b to dst, making its folder, replacing dst.
func writeFile(t *testing.T, dst string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("updated", dst)
}

// checkDemoChrome checks, in the embed, that the demo's Target.Chrome
// (edit and duplicate buttons hidden, exports allowed) shows as it would
// on the platform, and that the navigation offers no test-only dashboard.
func checkDemoChrome(t *testing.T, tab context.Context) {
	t.Helper()
	raw, err := inEmbed[string](tab, `(() => {
		const shown = (id) => { const el = document.getElementById(id); return el ? el.checkVisibility() : null; };
		return JSON.stringify({
			title: shown("dashboard-title"), edit: shown("edit-button"), duplicate: shown("duplicate-button"),
			exportMenu: shown("export-menu"), download: shown("download-csv"),
			nav: Array.from(document.querySelectorAll("#embed-nav a")).map((a) => a.textContent),
		});
	})()`)
	if err != nil {
		t.Fatalf("read the embed's chrome: %v", err)
	}
	var got struct {
		Title, Edit, Duplicate, ExportMenu, Download *bool
		Nav                                          []string
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"title": true, "edit": false, "duplicate": false, "export menu": true, "download": true}
	for name, v := range map[string]*bool{"title": got.Title, "edit": got.Edit, "duplicate": got.Duplicate, "export menu": got.ExportMenu, "download": got.Download} {
		if v == nil || *v != want[name] {
			t.Errorf("embed %s shown = %v, want %v (the demo's Target.Chrome)", name, v, want[name])
		}
	}
	if len(got.Nav) == 0 || slices.Contains(got.Nav, "Broken") {
		t.Errorf("embed navigation %q, want the demo's dashboards without the test-only Broken", got.Nav)
	}
}
