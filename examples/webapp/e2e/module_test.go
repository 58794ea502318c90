package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/examples/webapp"
)

// modulePage is what the test reads of the module page.
type modulePage struct {
	State       string   `json:"state"`       // the page's status line
	FrameState  string   `json:"frameState"`  // the iframe's data-embedkit-state
	Busy        string   `json:"busy"`        // the iframe's aria-busy
	Global      bool     `json:"global"`      // whether window.embedkit exists
	Events      []string `json:"events"`      // the event log's names, newest first
	HostScripts int      `json:"hostScripts"` // <script src="/embed/host.js"> elements
}

const readModulePage = `JSON.stringify((() => {
	const f = document.getElementById("module-frame");
	return {
		state: (document.getElementById("module-state") || {}).textContent || "",
		frameState: f ? f.getAttribute("data-embedkit-state") || "" : "",
		busy: f ? f.getAttribute("aria-busy") || "" : "",
		global: typeof window.embedkit !== "undefined",
		events: [...document.querySelectorAll("#module-events li")].map((li) => li.dataset.event),
		hostScripts: document.querySelectorAll('script[src*="/embed/host.js"]').length,
	};
})())`

// waitModule polls the module page of tab until ok holds.
func waitModule(t *testing.T, tab context.Context, what string, ok func(modulePage) bool) modulePage {
	t.Helper()
	return waitPage(t, tab, what, readModulePage, ok)
}

// testModulePage opens the demo's module page, which imports the npm
// package's ES module as it is (no bundler, no served host script), and
// checks that the frame the server rendered is managed by the module: its
// state reaches ready on the page and on the iframe, one session is
// minted for it (as the page rendered: the src is the platform's URL),
// the page hears its events, and a refresh answers. When the frame loads
// its used-up URL again, the module re-mints it through the session
// endpoint by its data-embedkit-target.
func testModulePage(t *testing.T, s *stack, u demoUser) {
	tab := s.session(t)
	s.signIn(t, tab, u)
	before := sessionIDs(s.sessions(t))
	do(t, tab, "open the module page", chromedp.Navigate(s.app+webapp.ModulePath))
	p := waitModule(t, tab, "the module's frame ready", func(p modulePage) bool {
		return p.State == "ready" && p.FrameState == "ready"
	})
	if p.Global || p.HostScripts != 0 {
		t.Errorf("the module page also runs the served host script (window.embedkit %v, %d script elements)", p.Global, p.HostScripts)
	}
	if p.Busy == "true" {
		t.Error("the ready frame is still aria-busy")
	}
	if !slices.Contains(p.Events, "ready") {
		t.Errorf("the event log has no ready event: %q", p.Events)
	}
	minted := mintedSince(before, s.sessions(t))
	if len(minted) != 1 {
		t.Fatalf("the module page minted %d sessions, want 1", len(minted))
	}
	loads := count(p.Events, "dashboard-loaded")
	click(t, tab, "#module-refresh")
	waitModule(t, tab, "a dashboard-loaded after refresh", func(p modulePage) bool {
		return count(p.Events, "dashboard-loaded") > loads
	})
	if n := len(mintedSince(before, s.sessions(t))); n != 1 {
		t.Errorf("a refresh minted: %d sessions in all, want 1", n)
	}

	const src = `document.getElementById("module-frame").src`
	first, err := chromedp.Run(tab, chromedp.Evaluate[string](src))
	if err != nil || origin(first) != s.emulator {
		t.Fatalf("the module frame's src is not the platform's URL (origin %q, %v)", origin(first), err)
	}
	renewed := count(p.Events, "session-renewed")
	do(t, tab, "load the module frame's used-up URL again",
		chromedp.Evaluate[chromedp.Void](`(() => { const f = document.getElementById("module-frame"); f.src = f.src; })()`))
	waitModule(t, tab, "the module's frame re-minted and ready", func(p modulePage) bool {
		return count(p.Events, "session-renewed") > renewed && p.State == "ready" && p.FrameState == "ready"
	})
	if n := len(mintedSince(before, s.sessions(t))); n != 2 {
		t.Errorf("re-minting the module frame: %d sessions in all, want 2", n)
	}
	if now, err := chromedp.Run(tab, chromedp.Evaluate[string](src)); err != nil || now == first || origin(now) != s.emulator {
		t.Errorf("the re-minted module frame's src is its old one or not the platform's (origin %q, %v)", origin(now), err)
	}
}
