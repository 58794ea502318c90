package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Cross-tab logout (hostpage/src/tabs.js) in Chromium: a logout in one
// tab ends the embeds of the other tabs of the app's origin at once,
// without waiting for the platform's page to notice the revoke; a page
// of another origin in the same browser cannot do the same.

// crossTabLimit is how soon after the logout click every other tab's
// frames must have ended.
const crossTabLimit = 2 * time.Second

// watchJS starts recording, in a tab with the dashboard open, the
// session-ended events of its frame and every fetch the page makes
// (address without query).
const watchJS = `(() => {
	const f = document.querySelector("iframe#embed-frame[data-embedkit]");
	window.__tabs = {ended: [], fetches: []};
	embedkit.frame(f).on("session-ended", (e) => __tabs.ended.push(JSON.stringify(e.payload)));
	const orig = window.fetch;
	window.fetch = function (u) {
		__tabs.fetches.push(String(u instanceof Request ? u.url : u).replace(/[?#].*/, ""));
		return orig.apply(this, arguments);
	};
	return true;
})()`

// tabFrame is what the host script and the page show of a tab's frame.
type tabFrame struct {
	// Present reports the iframe is in the page.
	Present bool `json:"present"`
	// State is the frame handle's state.
	State string `json:"state"`
	// Doc is the frame's document address when the page may read it
	// (about:blank after the logout), else "cross-origin": the
	// platform's page is still loaded.
	Doc     string   `json:"doc"`
	Ended   []string `json:"ended"`
	Fetches []string `json:"fetches"`
	Status  string   `json:"status"`
	Account string   `json:"account"`
}

const tabFrameJS = `(() => {
	const f = document.querySelector("iframe#embed-frame[data-embedkit]");
	let doc = "";
	if (f && f.contentWindow) {
		try { doc = f.contentWindow.location.href; } catch (e) { doc = "cross-origin"; }
	}
	const w = window.__tabs || {ended: [], fetches: []};
	const st = document.querySelector("#embed-status");
	const acct = document.querySelector("#account-name");
	return JSON.stringify({
		present: !!f,
		state: f && window.embedkit ? embedkit.frame(f).state : "",
		doc: doc, ended: w.ended, fetches: w.fetches,
		status: st ? st.dataset.state || "" : "",
		account: acct ? acct.textContent.trim() : ""
	});
})()`

// blanked reports a frame released at logout: gone, or showing
// about:blank, so no dashboard data stays on screen.
func (f tabFrame) blanked() bool { return !f.Present || f.Doc == "about:blank" }

// watchTab opens the dashboard at addr in a new tab of sess's browser
// context, waits for its embed and starts watchJS there.
func (s *stack) watchTab(t *testing.T, sess context.Context, addr string) context.Context {
	t.Helper()
	tab := s.tab(t, sess)
	do(t, tab, "open the dashboard in another tab", chromedp.Navigate(addr))
	waitEmbed(t, tab, "the other tab's embed ready", ready)
	waitPage(t, tab, "the other tab's frame ready", tabFrameJS, func(f tabFrame) bool { return f.State == "ready" })
	do(t, tab, "watch the other tab's frame", chromedp.Evaluate[chromedp.Void](watchJS))
	return tab
}

// waitTabEnded waits until the frame of tab has ended by a logout and
// checks what the viewer and the page see: state ended, one
// session-ended {reason: "logout"}, the frame blank, the status line
// ended. It returns what it read.
func waitTabEnded(t *testing.T, tab context.Context, what string) tabFrame {
	t.Helper()
	f := waitPage(t, tab, what, tabFrameJS, func(f tabFrame) bool {
		return f.State == "ended" && f.blanked()
	})
	if len(f.Ended) == 0 || f.Ended[0] != `{"reason":"logout"}` {
		t.Errorf("%s: session-ended payloads %q, want first {reason: logout} (the logout, not the platform noticing the revoke)", what, f.Ended)
	}
	if f.Status != "ended" {
		t.Errorf("%s: the status line shows %q, want ended", what, f.Status)
	}
	return f
}

// testLogoutEndsOtherTabs signs u in, opens the dashboard in two tabs and
// logs out in the first: the second tab's frame must end within
// crossTabLimit (sooner than the platform's page polls its token), be
// blank, and make no request afterwards.
func testLogoutEndsOtherTabs(t *testing.T, s *stack, u demoUser) {
	first := s.session(t)
	s.signIn(t, first, u)
	s.openDashboard(t, first)
	other := s.watchTab(t, first, location(t, first))

	clicked := time.Now()
	click(t, first, "#account-menu > summary")
	click(t, first, "#logout-button")
	f := waitTabEnded(t, other, "the other tab's frame to end")
	took := time.Since(clicked)
	t.Logf("the other tab's frame ended %s after the logout click", took.Round(10*time.Millisecond))
	if took > crossTabLimit {
		t.Errorf("the other tab's frame ended %s after the logout, want within %s", took, crossTabLimit)
	}
	fetched := len(f.Fetches)
	waitHost(t, first, "a signed-out page of the app", func(h hostState) bool {
		return strings.HasPrefix(h.URL, s.app+"/") && h.SignIn && h.Account == ""
	})

	// Longer than the platform's page polls and than a renewal's first
	// retry: nothing may start again.
	time.Sleep(embedPoll + time.Second)
	later, err := readPage[tabFrame](other, tabFrameJS)
	if err != nil {
		t.Fatalf("read the other tab: %v", err)
	}
	if later.State != "ended" || !later.blanked() {
		t.Errorf("%s after the logout the other tab's frame is %q showing %q, want ended and blank", embedPoll+time.Second, later.State, later.Doc)
	}
	if extra := later.Fetches[fetched:]; len(extra) > 0 {
		t.Errorf("the other tab requested %q after its frame ended, want nothing", extra)
	}
	if len(later.Ended) != 1 {
		t.Errorf("session-ended fired %d times in the other tab (%q), want once", len(later.Ended), later.Ended)
	}
	if later.Account != "Signed out" {
		t.Errorf("the other tab's header shows %q, want Signed out", later.Account)
	}
	s.screenshot(t, other, "4-logout-other-tab-blank")
}

// announceJS is what a tab that logs out sends (tabs.js), sent by hand:
// on the kit's BroadcastChannel and through its storage key.
const announceJS = `(() => {
	const msg = {embedkit: "signed-out", at: Date.now()};
	const c = new BroadcastChannel("embedkit");
	c.postMessage(msg);
	c.close();
	localStorage.setItem("embedkit:signed-out", JSON.stringify(msg));
	localStorage.removeItem("embedkit:signed-out");
	return true;
})()`

// testOtherOriginCannotEndFrames opens, in the browser context of a
// signed-in viewer with the dashboard open, a page of another origin
// (a loopback server on another port) that sends exactly what a logout
// sends: the dashboard must stay. The same script run in a page of the
// app's own origin ends it, so the check above could fail.
func testOtherOriginCannotEndFrames(t *testing.T, s *stack, u demoUser) {
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>another site</title><p id="ok">another origin</p>`)
	}))
	t.Cleanup(foreign.Close)
	if !strings.HasPrefix(foreign.URL, "http://127.0.0.1:") || foreign.URL == s.app {
		t.Fatalf("foreign server at %s, want another loopback origin than %s", foreign.URL, s.app)
	}

	first := s.session(t)
	s.signIn(t, first, u)
	s.openDashboard(t, first)
	dash := location(t, first)
	other := s.watchTab(t, first, dash)

	evil := s.tab(t, first)
	do(t, evil, "open a page of another origin and send a logout from it",
		chromedp.Navigate(foreign.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#ok")),
		chromedp.Evaluate[chromedp.Void](announceJS),
	)
	time.Sleep(crossTabLimit)
	for name, tab := range map[string]context.Context{"the first tab": first, "the watched tab": other} {
		f, err := readPage[tabFrame](tab, tabFrameJS)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if f.State != "ready" || f.Doc != "cross-origin" {
			t.Errorf("after another origin's logout message %s's frame is %q showing %q, want ready with the platform's page", name, f.State, f.Doc)
		}
	}
	if e, err := readEmbed(other); err != nil || !ready(e) {
		t.Errorf("after another origin's logout message the watched tab's embed is %+v (%v), want ready with rows", e, err)
	}

	// The control: the same script from a page of the app's origin (one
	// without the host script) ends both.
	do(t, evil, "send the same from a page of the app's origin",
		chromedp.Navigate(s.app+"/dashboards"),
		chromedp.WaitVisible(chromedp.CSS("#dashboards")),
		chromedp.Evaluate[chromedp.Void](announceJS),
	)
	waitTabEnded(t, other, "the watched tab's frame to end after a same-origin logout message")
}
