package e2e

import (
	"context"
	"html/template"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/embedkit/emulator"
)

// contextLoaded reports whether the emulator's embedded page has loaded
// its viewer's context, after which it posts ready.
func contextLoaded(em *emulator.Server) bool {
	for _, r := range em.Requests() {
		if r.Path == "/embed/api/context" && r.Status == http.StatusOK {
			return true
		}
	}
	return false
}

// latePage is the README's page with its host script at /late/host.js,
// which arrives after the frame posted its one ready event; it records
// the session-renewed events the frame gets.
var latePage = template.Must(template.New("late").Parse(`<!doctype html><meta charset="utf-8"><title>late script</title>
<script>window.__renewed = []; document.addEventListener("embedkit:session-renewed", (e) => window.__renewed.push(e.detail.payload.reason));</script>
<iframe src="{{.Frame.URL}}" data-embedkit data-embedkit-target="sales" title="Sales overview"></iframe>
<script src="/late/host.js" defer></script>`))

// late serves latePage, the README's page through PageFrame.
func (b *behaviourHost) late(w http.ResponseWriter, r *http.Request) {
	sales, _ := b.kit.Target("sales")
	frame, err := b.kit.PageFrame(w, r, sales)
	if err != nil {
		b.kit.ServeError(w, r, err)
		return
	}
	_ = latePage.Execute(w, map[string]any{"Frame": frame})
}

// TestLateHostScriptHearsReady: the platform sends ready once, when its
// page mounts. A host script that arrives after that (a slow network, a
// busy machine) finds the frame already on the platform's page; it loads
// the frame again, once, with a new session, hears that page's ready, and
// the frame is ready, not failed as never-ready 30 s later.
func TestLateHostScriptHearsReady(t *testing.T) {
	b := newBehaviourHost(t)
	browser := behaviourBrowser(t)
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	start(t, ctx, cancel, "open a tab")
	do(t, ctx, "open the page", chromedp.Navigate(b.host+"/late"))
	step, stop := context.WithTimeout(ctx, stepTimeout)
	defer stop()
	began := time.Now()
	reasons, err := chromedp.Run(step, chromedp.Poll[[]string](`(() => {
  const f = document.querySelector("iframe[data-embedkit]");
  return f && f.getAttribute("data-embedkit-state") === "ready" && window.__renewed;
})()`, chromedp.WithPollingInterval(pollEvery), chromedp.WithPollingTimeout(stepTimeout)))
	if err != nil {
		t.Fatalf("the frame did not become ready after its late script: %v; frame states then: %s", err, pendingStates(ctx))
	}
	if len(reasons) != 1 || reasons[0] != "missed-ready" {
		t.Errorf("session-renewed reasons %v, want one missed-ready (the kit loaded the frame again)", reasons)
	}
	if took := time.Since(began); took > 25*time.Second {
		t.Errorf("ready after %s, want well before the 30 s first-load timeout", took)
	}
	if n := len(b.em.Sessions()); n != 2 {
		t.Errorf("%d sessions minted, want 2 (the page's, and the reload's)", n)
	}
}
