package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/internal/reactbuild"
)

// The demo's React page (/react): <EmbedkitFrame> from the npm package's
// React entry, in StrictMode, against the demo's kit and emulator. The
// page's script is bundled here, by internal/reactbuild from the same
// source as the committed /static/react.js, but with React's development
// build: only that one runs StrictMode's double render and its
// mount, unmount and mount of every effect, which is what this test is
// about. The tab is given that bundle in place of /static/react.js.

// devReactBundle builds the React page with React's development build.
func devReactBundle(t *testing.T) []byte {
	t.Helper()
	modules, err := reactbuild.NodeModules("../../..")
	if err != nil {
		t.Fatal(err)
	}
	js, err := reactbuild.Bundle(reactbuild.Options{
		Root: "../../..", Entry: "web/static/reactapp/main.js", NodeModules: modules, Development: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// serveReactBundle makes tab load js for the React page's script, and
// returns how many times it did.
func serveReactBundle(t *testing.T, tab context.Context, js []byte) *atomic.Int32 {
	t.Helper()
	ctx, cancel := context.WithCancel(tab)
	t.Cleanup(cancel)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	pattern := "*/static/react.js"
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: pattern}}}); err != nil {
		t.Fatalf("intercept the React page's script: %v", err)
	}
	var served atomic.Int32
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			served.Add(1)
			_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID:       ev.RequestID,
				ResponseCode:    http.StatusOK,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/javascript; charset=utf-8"}, {Name: "Cache-Control", Value: "no-store"}},
				Body:            js,
			})
		}
	}()
	t.Cleanup(func() { _, _ = chromedp.Call(ctx, fetch.Disable, cdp.Empty{}) })
	return &served
}

// timerProbe keeps the page's pending timers of 5 s or more: the host
// page's (a first load's ready timeout, a probe's or a renewal's request
// timeout and backoff, the timed renewal); React's and the page's own are
// shorter. It is installed before any script of the page runs.
const timerProbe = `(() => {
	const pending = new Map();
	const set = window.setTimeout, clear = window.clearTimeout;
	window.setTimeout = function (fn, ms, ...args) {
		const id = set.call(window, function () {
			pending.delete(id);
			if (typeof fn === "function") return fn.apply(this, arguments);
		}, ms, ...args);
		if (Number(ms) >= 5000) pending.set(id, Number(ms));
		return id;
	};
	window.clearTimeout = function (id) {
		pending.delete(id);
		return clear.call(window, id);
	};
	window.__longTimers = () => Array.from(pending.values());
})()`

// longTimers returns the delays, in ms, of the page's pending long timers.
func longTimers(t *testing.T, tab context.Context) []int {
	t.Helper()
	raw, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(window.__longTimers())`))
	if err != nil {
		t.Fatalf("read the page's timers: %v", err)
	}
	var ms []int
	if err := json.Unmarshal([]byte(raw), &ms); err != nil {
		t.Fatal(err)
	}
	return ms
}

// reactPage is what the test reads of the React page.
type reactPage struct {
	Iframes   int    `json:"iframes"`
	Src       string `json:"src"`
	Target    string `json:"target"`
	Unmounted bool   `json:"unmounted"`
	// State is the iframe's data-embedkit-state; Shown that it has a box.
	State string `json:"state"`
	Shown bool   `json:"shown"`
}

const reactPageJS = `(() => {
	const f = document.querySelector("iframe[data-embedkit]");
	return JSON.stringify({
		iframes: document.querySelectorAll("iframe").length,
		src: f ? f.getAttribute("src") : "",
		target: f ? f.getAttribute("data-embedkit-target") : "",
		unmounted: !!document.getElementById("react-unmounted"),
		state: f ? f.getAttribute("data-embedkit-state") || "" : "",
		shown: !!f && f.getClientRects().length > 0
	});
})()`

// waitReactPage polls the React page of tab until ok holds.
func waitReactPage(t *testing.T, tab context.Context, what string, ok func(reactPage) bool) reactPage {
	t.Helper()
	return waitPage(t, tab, what, reactPageJS, ok)
}

// checkActions checks the filterUrlParameter of every action the embed of
// tab received since its recorder was installed: set-filter actions
// only, these and no more.
func checkActions(t *testing.T, tab context.Context, when string, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	raw, err := inEmbed[string](ctx, `JSON.stringify(window.__actions || null)`)
	if err != nil {
		t.Fatalf("read the embed's actions %s: %v", when, err)
	}
	var got []struct {
		Type    string `json:"type"`
		Payload struct {
			FilterURLParameter string `json:"filterUrlParameter"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	var params []string
	for _, a := range got {
		if a.Type != "cube:action:set-filter" {
			t.Errorf("%s the embed received %s, want set-filter actions only", when, a.Type)
			continue
		}
		params = append(params, a.Payload.FilterURLParameter)
	}
	if !slices.Equal(params, want) {
		t.Errorf("%s the embed received set-filter %q, want %q", when, params, want)
	}
}

// chooseReact picks value in the React page's select id, as a user does.
func chooseReact(t *testing.T, tab context.Context, id, value string) {
	t.Helper()
	evalHost(t, tab, fmt.Sprintf("choose %q in #%s", value, id), fmt.Sprintf(`(() => {
		const s = document.getElementById(%q);
		s.value = %q;
		s.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, id, value))
}

// testReactStrictMode drives the React page: in StrictMode one mount is
// one iframe and one session, and one listener (every event logged
// once); a filters prop change is one live set-filter (the embed
// receives it and nothing more, also when the page renders again), no
// reload and no mint, and a member dropped from the prop is cleared;
// a colorScheme prop change is live too; useEmbedkitFrame's handle
// refreshes the embed; hidden in an <Activity> and shown again, the frame
// is the same ready one;
// unmounting removes the frame, releases it (no timer of it is left)
// and mints nothing; a new mount is one new
// frame and session that gets the filters prop as it is then; a new
// target among the demo's plain dashboards moves the frame in place (the
// same iframe and document, no session, no ready).
func testReactStrictMode(t *testing.T, s *stack, u demoUser) {
	js := devReactBundle(t)
	if !strings.Contains(string(js), "react-dom.development") && !strings.Contains(string(js), "react.development") {
		t.Fatal("the test's bundle is not React's development build, which alone runs StrictMode's checks")
	}
	tab := s.session(t)
	s.signIn(t, tab, u)
	served := serveReactBundle(t, tab, js)

	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: timerProbe}); err != nil {
		t.Fatalf("install the timer probe: %v", err)
	}
	before := sessionIDs(s.sessions(t))
	do(t, tab, "open the React page", chromedp.Navigate(s.app+"/react"))
	waitLog(t, tab, "ready", 1)
	e := waitEmbed(t, tab, "the React page's embed ready", ready)
	if served.Load() == 0 {
		t.Fatal("the page did not load the test's development bundle")
	}
	if e.Viewer != u.name {
		t.Errorf("the React page's embed shows %q, want %q", e.Viewer, u.name)
	}
	if !embedHearsHost(t, s, tab) {
		return
	}
	names := waitLog(t, tab, "dashboard-loaded", 1)
	p := waitReactPage(t, tab, "the React page", func(reactPage) bool { return true })
	if p.Iframes != 1 || p.Src != "/embed/frame/dashboard/sales-overview" || p.Target != "dashboard/sales-overview" {
		t.Errorf("the React page holds %d iframes, the frame src %q target %q; want one, of dashboard/sales-overview", p.Iframes, p.Src, p.Target)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 1 {
		t.Errorf("one mount in StrictMode minted %d sessions, want 1", len(minted))
	}
	for _, name := range []string{"ready", "view"} {
		if n := count(names, name); n != 1 {
			t.Errorf("the component reported %d %q events, want 1: one listener per frame in StrictMode (log %v)", n, name, names)
		}
	}

	// A filters prop change: one live set-filter, no reload, no mint, and
	// nothing sent again when the page renders for other reasons (each
	// event it logs renders it again).
	all := len(e.Rows)
	markEmbed(t, tab)
	evalEmbed(t, tab, "record the actions the embed receives", `(window.__actions = [], addEventListener("message", (e) => {
		if (e.data && e.data.source === "cube-embed") window.__actions.push(e.data);
	}), true)`)
	loaded := count(names, "dashboard-loaded")
	chooseReact(t, tab, "react-filter-sales-month", "2025-03")
	e = waitEmbed(t, tab, "only March rows", func(e embedState) bool {
		return len(e.Rows) > 0 && len(e.Rows) < all && allRows(e, func(r embedRow) bool { return strings.HasPrefix(r.Month, "2025-03") })
	})
	if !e.Marker {
		t.Error("the filters prop change reloaded the embed; want a live set-filter")
	}
	waitLog(t, tab, "dashboard-loaded", loaded+1)
	march := "f_sales.month=" + url.QueryEscape(`{"value":"2025-03"}`)
	checkActions(t, tab, "after the month filter prop changed", []string{march})
	chooseReact(t, tab, "react-filter-sales-month", "")
	e = waitEmbed(t, tab, "every row back once the filter prop drops the member", func(e embedState) bool { return len(e.Rows) == all })
	if !e.Marker {
		t.Error("clearing a filter reloaded the embed")
	}
	waitLog(t, tab, "dashboard-loaded", loaded+2)
	checkActions(t, tab, "after the member left the filters prop", []string{march, "f_sales.month=" + url.QueryEscape(`{"value":null}`)})
	// Another setting prop: colorScheme, live too.
	chooseReact(t, tab, "react-scheme", "dark")
	e = waitEmbed(t, tab, "the dark colour scheme", func(e embedState) bool { return e.ColorScheme == "dark" })
	if !e.Marker {
		t.Error("the colorScheme prop change reloaded the embed")
	}

	// useEmbedkitFrame's handle: refresh, an action that is no prop.
	click(t, tab, "#react-refresh:not([disabled])")
	waitLog(t, tab, "dashboard-loaded", loaded+3)
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 1 {
		t.Errorf("after filter changes and a refresh %d sessions were minted in all, want the mount's 1", len(minted))
	}

	// Hidden in an <Activity>: React runs the component's effect cleanups
	// but keeps the iframe, so the frame is not released; shown again, it
	// is the same ready frame, heard and driven as before.
	click(t, tab, "#react-visible")
	waitReactPage(t, tab, "the frame hidden", func(p reactPage) bool { return p.Iframes == 1 && !p.Shown })
	click(t, tab, "#react-visible")
	p = waitReactPage(t, tab, "the frame shown again", func(p reactPage) bool { return p.Shown })
	if p.State != "ready" {
		t.Errorf("the frame shown again is %q, want still ready: hiding must not release a frame whose iframe stays", p.State)
	}
	loaded = count(waitLog(t, tab, "dashboard-loaded", 1), "dashboard-loaded")
	click(t, tab, "#react-refresh:not([disabled])")
	if n := count(waitLog(t, tab, "dashboard-loaded", loaded+1), "ready"); n != 1 {
		t.Errorf("after hiding and showing the frame the page heard %d ready events, want the one of its load", n)
	}
	if e := readEmbedNow(t, tab); !e.Marker {
		t.Error("hiding and showing the frame reloaded the embed")
	}

	// Unmount: the frame is gone, its timers with it (the ready frame's
	// timed renewal), and nothing more is minted.
	if got := longTimers(t, tab); len(got) == 0 {
		t.Error("the probe sees no long timer of the ready frame; want its timed renewal")
	}
	click(t, tab, "#react-toggle")
	waitReactPage(t, tab, "the frame unmounted", func(p reactPage) bool { return p.Unmounted && p.Iframes == 0 })
	if got := longTimers(t, tab); len(got) != 0 {
		t.Errorf("after unmount the page still has timers of %v ms pending; want none: unmounting releases the frame", got)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 1 {
		t.Errorf("after unmount %d sessions were minted in all, want the mount's 1", len(minted))
	}

	// A new mount is a new frame: one more session, its own ready, and
	// the filters prop as it is now, chosen while unmounted.
	chooseReact(t, tab, "react-filter-sales-month", "2025-03")
	click(t, tab, "#react-toggle")
	// The new iframe's document is reachable once it has loaded: the
	// page hears its ready first.
	names = waitLog(t, tab, "ready", 2)
	waitEmbed(t, tab, "the remounted embed ready with the month filter of its props", func(e embedState) bool {
		return ready(e) && !e.Marker && allRows(e, func(r embedRow) bool { return strings.HasPrefix(r.Month, "2025-03") })
	})
	if n := count(names, "ready"); n != 2 {
		t.Errorf("after a remount the page heard %d ready events, want 2 (log %v)", n, names)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 2 {
		t.Errorf("a second mount brought the sessions minted to %d, want 2", len(minted))
	}

	// A new target of plain dashboards (equal grant and pinned tags in the
	// kit's settings) moves the frame in place: the same iframe element
	// and document, no new session, no new ready; the month filter of the
	// props is applied afresh to the new dashboard, and nothing else.
	evalHost(t, tab, "mark the iframe element", `(document.querySelector("iframe[data-embedkit]").__mark = true)`)
	markEmbed(t, tab)
	loaded = count(waitLog(t, tab, "dashboard-loaded", 1), "dashboard-loaded")
	chooseReact(t, tab, "react-dashboard", "dashboard/regional-performance")
	names = waitLog(t, tab, "dashboard-loaded", loaded+1)
	e = waitEmbed(t, tab, "the other dashboard", func(e embedState) bool { return e.Title == "Regional performance" && ready(e) })
	if !e.Marker {
		t.Error("the target change loaded a new document; want a move in place")
	}
	if !allRows(e, func(r embedRow) bool { return strings.HasPrefix(r.Month, "2025-03") }) {
		t.Error("the moved frame lost the month filter of its props")
	}
	if n := count(names, "ready"); n != 2 {
		t.Errorf("after a move in place the page heard %d ready events, want still 2", n)
	}
	same := hostString(t, tab, "is the iframe the same element", `(() => {
		const f = document.querySelector("iframe[data-embedkit]");
		return String(document.querySelectorAll("iframe").length === 1 && f.__mark === true && f.getAttribute("data-embedkit-target"));
	})()`)
	if same != "dashboard/regional-performance" {
		t.Errorf("after the move: %q, want the one marked iframe, showing dashboard/regional-performance", same)
	}
	if minted := mintedSince(before, s.sessions(t)); len(minted) != 2 {
		t.Errorf("a move in place brought the sessions minted to %d, want still 2", len(minted))
	}
	s.screenshot(t, tab, "9-react-page")
	s.signOut(t, tab)
}
