package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The host page through the demo: the documented events reach the page's
// code, the documented actions reach the embed, renewal works the
// documented way (a reload through the frame endpoint), and the kit's own
// session-ended fires only after sign-out.

// eventLog returns the names in the demo page's #event-log, oldest first.
func eventLog(ctx context.Context) ([]string, error) {
	return readPage[[]string](ctx, `JSON.stringify(
		Array.from(document.querySelectorAll("#event-log li[data-event]"), (li) => li.dataset.event).reverse())`)
}

// count returns how many times name appears in names.
func count(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

// waitLog waits until the page's event log holds name at least n times,
// and returns the log.
func waitLog(t *testing.T, tab context.Context, name string, n int) []string {
	t.Helper()
	var last []string
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		names, err := eventLog(ctx)
		if err != nil {
			return false, nil // a navigation raced the read
		}
		last = names
		return count(names, name) >= n, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d %q event(s) in the page's event log: %v (log: %v)", n, name, err, last)
	}
	return last
}

// openLiveDashboard signs u in, opens the first dashboard and waits until
// the page has heard the embed's ready event. ok is false (and t failed)
// when the embed cannot talk to the page at all.
func (s *stack) openLiveDashboard(t *testing.T, u demoUser) (tab context.Context, ok bool) {
	t.Helper()
	tab = s.session(t)
	s.signIn(t, tab, u)
	s.openDashboard(t, tab)
	if !embedHearsHost(t, s, tab) {
		return tab, false
	}
	waitLog(t, tab, "ready", 1)
	return tab, true
}

// evalHost runs expr in the host page of tab.
func evalHost(t *testing.T, tab context.Context, what, expr string) {
	t.Helper()
	do(t, tab, what, chromedp.Evaluate[chromedp.Void](expr))
}

// evalEmbed runs expr (which must yield a truthy value) in the embed of tab.
func evalEmbed(t *testing.T, tab context.Context, what, expr string) {
	t.Helper()
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		_, err := inEmbed[bool](ctx, expr)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// askChat submits question in the embedded chat of tab.
func askChat(t *testing.T, tab context.Context, question string) {
	t.Helper()
	evalEmbed(t, tab, "ask the chat", fmt.Sprintf(`(() => {
		const input = document.getElementById("chat-input");
		if (!input || !document.getElementById("chat").checkVisibility()) return false;
		input.value = %q;
		document.getElementById("chat-form").requestSubmit();
		return true;
	})()`, question))
}

// chooseFilter picks value in the filter bar's select of member.
func chooseFilter(t *testing.T, tab context.Context, member, value string) {
	t.Helper()
	evalHost(t, tab, fmt.Sprintf("choose %s = %q in the filter bar", member, value), fmt.Sprintf(`(() => {
		const s = document.querySelector('select[data-embedkit-filter=%q]');
		s.value = %q;
		s.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, member, value))
}

// testEventsAndFilters drives the dashboard page of the demo: the
// documented events reach the page's event log, the filter bar filters
// the embed's rows live and a filter outside the viewer's rows shows
// none (filters are not security), refresh reloads the data, a bar click
// is a drilldown and a CSV download is reported without its rows.
func testEventsAndFilters(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	e := s.openDashboard(t, tab)
	if !embedHearsHost(t, s, tab) {
		return
	}
	names := waitLog(t, tab, "dashboard-loaded", 1)
	for _, want := range []string{"ready", "view"} {
		if count(names, want) != 1 {
			t.Errorf("the page heard %d %q events at load, want 1 (log %v)", count(names, want), want, names)
		}
	}
	all := len(e.Rows)

	chooseFilter(t, tab, "sales.month", "2025-03")
	e = waitEmbed(t, tab, "only March rows", func(e embedState) bool {
		return len(e.Rows) > 0 && len(e.Rows) < all && allRows(e, func(r embedRow) bool { return strings.HasPrefix(r.Month, "2025-03") })
	})
	for _, r := range e.Rows {
		if r.Region != u.region {
			t.Errorf("a live filter showed a %s row to %s", r.Region, u.username)
		}
	}
	other := "AMER"
	if u.region == other {
		other = "EMEA"
	}
	chooseFilter(t, tab, "sales.region", other)
	waitEmbed(t, tab, "no rows for a region the viewer may not see", func(e embedState) bool {
		return e.State == "ready" && len(e.Rows) == 0
	})
	chooseFilter(t, tab, "sales.region", "")
	chooseFilter(t, tab, "sales.month", "")
	waitEmbed(t, tab, "every row back after clearing the filters", func(e embedState) bool { return len(e.Rows) == all })

	loaded := count(waitLog(t, tab, "dashboard-loaded", 1), "dashboard-loaded")
	click(t, tab, "#embed-refresh")
	waitLog(t, tab, "dashboard-loaded", loaded+1)

	evalEmbed(t, tab, "click a bar of the chart", `(() => {
		const bar = document.querySelector("#chart rect.bar[data-region]");
		if (!bar) return false;
		bar.dispatchEvent(new MouseEvent("click", {bubbles: true}));
		return true;
	})()`)
	waitLog(t, tab, "drilldown", 1)

	evalEmbed(t, tab, "download the rows as CSV", `(() => {
		const b = document.getElementById("download-csv");
		if (!b) return false;
		b.click();
		return true;
	})()`)
	waitLog(t, tab, "download", 1)
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("event-log").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, fmt.Sprintf("(%d rows)", all)) {
		t.Errorf("the download event does not report the %d rows shown: %q", all, text)
	}
	s.screenshot(t, tab, "5-events-and-filters")
	s.signOut(t, tab)
}

// allRows reports whether ok holds for every row of e.
func allRows(e embedState, ok func(embedRow) bool) bool {
	for _, r := range e.Rows {
		if !ok(r) {
			return false
		}
	}
	return true
}

// testRenewal breaks the embed the way a browser does (the frame reloads
// its own address, whose single-use id is spent): the embed reports a
// fatal error, the host script re-mints through the session endpoint
// (the iframe src is the platform URL the page minted as it rendered),
// the page hears session-renewed and the embed is ready again. Then the
// session endpoint fails twice and the network drops: renewal waits,
// retries and recovers, and never reports a sign-out.
func testRenewal(t *testing.T, s *stack, u demoUser) {
	tab, ok := s.openLiveDashboard(t, u)
	if !ok {
		return
	}

	before := sessionIDs(s.sessions(t))
	markEmbed(t, tab)
	evalEmbed(t, tab, "reload the frame from inside", `(location.reload(), true)`)
	waitLog(t, tab, "session-renewed", 1)
	e := waitEmbed(t, tab, "the embed ready after the renewal", func(e embedState) bool { return ready(e) && !e.Marker })
	if e.Viewer != u.name {
		t.Errorf("renewed embed shows %q, want %q", e.Viewer, u.name)
	}
	if n := len(mintedSince(before, s.sessions(t))); n != 1 {
		t.Errorf("the renewal minted %d sessions, want 1", n)
	}
	waitHost(t, tab, "the status line live again", func(h hostState) bool { return h.Embed == "live" })

	// The session endpoint fails twice (the network, as the browser sees
	// it), then answers again.
	ctx, cancel := context.WithCancel(tab)
	defer cancel()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/embed/session"}}}); err != nil {
		t.Fatalf("intercept the session endpoint: %v", err)
	}
	var failed atomic.Int32
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method == http.MethodPost && failed.Add(1) <= 2 {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionFailed})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	renewed := count(waitLog(t, tab, "session-renewed", 1), "session-renewed")
	evalHost(t, tab, "ask for a new session", `embedkit.frame(document.getElementById("embed-frame")).reload().catch(() => {})`)
	names := waitLog(t, tab, "session-renewed", renewed+1)
	if got := count(names, "renew-failed"); got < 2 {
		t.Errorf("%d renew-failed events for two failed session requests, want 2 or more (log %v)", got, names)
	}
	if count(names, "session-ended") != 0 {
		t.Errorf("network trouble was reported as a sign-out (log %v)", names)
	}
	if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatalf("stop intercepting: %v", err)
	}
	cancel()

	// Offline, then online again.
	offline := func(off bool) {
		t.Helper()
		if _, err := chromedp.Call(tab, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}},
		}); err != nil {
			t.Fatalf("set offline=%t: %v", off, err)
		}
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	offline(true)
	renewed = count(names, "session-renewed")
	evalHost(t, tab, "ask for a new session while offline", `embedkit.frame(document.getElementById("embed-frame")).reload().catch(() => {})`)
	waitLog(t, tab, "renew-failed", count(names, "renew-failed")+1)
	offline(false)
	names = waitLog(t, tab, "session-renewed", renewed+1)
	if count(names, "session-ended") != 0 {
		t.Errorf("going offline was reported as a sign-out (log %v)", names)
	}
	waitEmbed(t, tab, "the embed ready after the network came back", ready)
	s.signOut(t, tab)
}

// testScopedProject opens a project page: its embed shows only that
// project's rows, and editing the route to a project of another region
// reaches nothing.
func testScopedProject(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	do(t, tab, "open the projects", chromedp.Navigate(s.app+"/projects"))
	var first string
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("a.project-link") || {}).pathname || ""`))
		first = href
		return err == nil && href != "", nil
	})
	if err != nil {
		t.Fatalf("no project listed for %s: %v", u.username, err)
	}
	do(t, tab, "open "+first, chromedp.Navigate(s.app+first))
	project := strings.TrimPrefix(first, "/projects/")
	e := waitEmbed(t, tab, "the project's embed ready", ready)
	raw, err := inEmbed[string](tab, `JSON.stringify(Array.from(document.querySelectorAll("#rows tr[data-region]"), (tr) => tr.dataset.project || ""))`)
	if err != nil {
		t.Fatal(err)
	}
	var projects []string
	if err := json.Unmarshal([]byte(raw), &projects); err != nil {
		t.Fatal(err)
	}
	for i, p := range projects {
		if p != project {
			t.Errorf("row %d of project %s belongs to %q", i, project, p)
		}
	}
	for _, r := range e.Rows {
		if r.Region != u.region {
			t.Errorf("project page showed a %s row to %s", r.Region, u.username)
		}
	}

	// Another region's project, by its page and by its frame route.
	before := sessionIDs(s.sessions(t))
	for _, path := range []string{"/projects/great-lakes-retail", "/projects/kansai-partners/analytics/frame"} {
		if u.region != "EMEA" {
			t.Fatal("pick an EMEA user: the paths above belong to other regions")
		}
		status, err := chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(`fetch(%q, {credentials: "same-origin"}).then((r) => r.status)`, path),
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusNotFound {
			t.Errorf("%s answered %d to %s, want 404", path, status, u.username)
		}
	}
	if n := len(mintedSince(before, s.sessions(t))); n != 0 {
		t.Errorf("routes the viewer may not see minted %d sessions", n)
	}
	s.screenshot(t, tab, "6-project")
	s.signOut(t, tab)
}

// testAsk opens the demo's chat page: a question asked in the embed
// reaches the page's own listener through the host script as ai-query
// events (submitted, then completed), with the question and no answer
// text beyond the documented payload.
func testAsk(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	click(t, tab, `a[href="/ask"]`)
	waitHost(t, tab, "the chat page", func(h hostState) bool { return h.URL == s.app+"/ask" && h.Frame })
	if !embedHearsHost(t, s, tab) {
		return
	}
	waitLog(t, tab, "ready", 1)
	evalHost(t, tab, "listen for ai-query through the per-frame API", `(() => {
		window.__asked = [];
		embedkit.frame("#embed-frame").on("ai-query", (e) => window.__asked.push(e.surface + ":" + e.payload.status + ":" + e.payload.query));
	})()`)
	askChat(t, tab, "Which region grew most?")
	waitLog(t, tab, "ai-query", 2)
	raw, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(window.__asked)`))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	if err := json.Unmarshal([]byte(raw), &asked); err != nil {
		t.Fatal(err)
	}
	want := []string{"chat:submitted:Which region grew most?", "chat:completed:Which region grew most?"}
	if !slices.Equal(asked, want) {
		t.Errorf("the page's ai-query listener heard %q, want %q", asked, want)
	}
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("event-log").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "completed: Which region grew most?") {
		t.Errorf("the event log does not show the completed question: %q", text)
	}
	s.screenshot(t, tab, "7-ask")
	s.signOut(t, tab)
}

// testCustomElementAndOneFrameActions adds an <embedkit-frame> to a
// dashboard page: it loads its own embed through the frame endpoint and
// speaks through the same API, and an action sent to one frame changes
// that frame only. Messages from the wrong origin or with another source
// are ignored.
func testCustomElementAndOneFrameActions(t *testing.T, s *stack, u demoUser) {
	tab, ok := s.openLiveDashboard(t, u)
	if !ok {
		return
	}
	evalHost(t, tab, "add an <embedkit-frame>", `(() => {
		window.__second = [];
		const el = document.createElement("embedkit-frame");
		el.setAttribute("target", "dashboard/regional-performance");
		el.setAttribute("title", "Regional performance");
		el.id = "second";
		document.querySelector(".embed-main").appendChild(el);
		el.on("ready", (e) => window.__second.push(e.name + ":" + e.surface + ":" + (e.payload.publicId || "")));
		el.on("dashboard-loaded", (e) => window.__second.push(e.name));
	})()`)
	var got []string
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.__second || [])`))
		if err != nil {
			return false, nil
		}
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			return false, err
		}
		return len(got) >= 2, nil
	})
	if err != nil {
		t.Fatalf("the custom element's embed did not report ready and dashboard-loaded: %v (heard %v)", err, got)
	}
	if got[0] != "ready:dashboard:regional-performance" {
		t.Errorf("custom element heard %q first, want its ready event", got[0])
	}

	// set-locale to the first frame only.
	evalHost(t, tab, "set the first frame's locale", `embedkit.frame("#embed-frame").setLocale("ja-JP")`)
	waitEmbed(t, tab, "the first frame in ja-JP", func(e embedState) bool { return e.Locale == "ja-JP" })
	nodes, err := chromedp.Run(tab, chromedp.Nodes(chromedp.CSS("#second iframe")))
	if err != nil || nodes[0].ContentDocument == nil {
		t.Fatalf("the custom element's iframe has no document in the page's tree: %v", err)
	}
	second, err := chromedp.Run(tab, chromedp.Poll[string](`document.getElementById("embed").dataset.locale`,
		chromedp.WithPollingInFrame(nodes[0]), chromedp.WithPollingTimeout(stepTimeout)))
	if err != nil {
		t.Fatal(err)
	}
	if second == "ja-JP" || second == "" {
		t.Errorf("the second frame's locale is %q after an action to the first; want its own", second)
	}

	// Forged messages: from the host's own origin (not the platform's),
	// and from the frame with another source.
	before, err := eventLog(tab)
	if err != nil {
		t.Fatal(err)
	}
	evalHost(t, tab, "post a forged event from the host's origin", `window.postMessage({source: "cube-embed", direction: "event", type: "cube:event:drilldown", payload: {member: "x.y"}, timestamp: Date.now(), surface: "dashboard"}, "*")`)
	evalEmbed(t, tab, "post an event with another source", `(parent.postMessage({source: "someone-else", direction: "event", type: "cube:event:drilldown", payload: {member: "x.y"}, timestamp: Date.now(), surface: "dashboard"}, "*"), true)`)
	evalEmbed(t, tab, "post a real event after them", `(parent.postMessage({source: "cube-embed", direction: "event", type: "cube:event:navigate", payload: {path: "/embed/probe"}, timestamp: Date.now(), surface: "dashboard"}, "*"), true)`)
	after := waitLog(t, tab, "navigate", count(before, "navigate")+1)
	if count(after, "drilldown") != count(before, "drilldown") {
		t.Errorf("a forged message reached the page's code (log %v)", after)
	}
	s.signOut(t, tab)
}
