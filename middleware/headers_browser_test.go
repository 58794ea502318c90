package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/internal/testbrowser"
)

// settledJS returns the page's state once its inline script and its frame
// have both reported, or 2 s after its load event, whichever is first.
const settledJS = `(() => {
	if (document.readyState !== "complete") return "";
	const s = document.documentElement.dataset.state || "";
	const nav = performance.getEntriesByType("navigation")[0];
	if ((s.includes("script") && s.includes("frame")) || performance.now() - nav.loadEventEnd > 2000) return "state:" + s;
	return "";
})()`

// TestSecurityHeadersAppPolicyInBrowser: an app's page that sends its own
// policy, allowing its inline script, runs that script under
// SecurityHeaders and still loads the platform's frame, whether the page
// sets its policy (which used to drop the kit's frame-src, blocking the
// frame) or adds it (which used to leave the kit's default-src 'self'
// beside it, blocking the script).
func TestSecurityHeadersAppPolicyInBrowser(t *testing.T) {
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><p>dashboard</p><script>parent.postMessage("frame-loaded", "*")</script>`))
	}))
	defer platform.Close()
	// The platform stand-in is another origin: 127.0.0.1 and localhost.
	platformURL := strings.Replace(platform.URL, "127.0.0.1", "localhost", 1)

	tab := testbrowser.Start(t, testbrowser.Step(testbrowser.DefaultStep), chromedp.Navigate("about:blank"))
	for _, how := range []string{"Set", "Add"} {
		t.Run(how, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /listen.js", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/javascript")
				w.Write([]byte(`addEventListener("message", (e) => { if (e.data === "frame-loaded") document.documentElement.dataset.state += " frame"; });`))
			})
			mux.HandleFunc("GET /sales", func(w http.ResponseWriter, r *http.Request) {
				const own = "default-src 'self'; script-src 'self' 'unsafe-inline'"
				if how == "Set" {
					w.Header().Set("Content-Security-Policy", own)
				} else {
					w.Header().Add("Content-Security-Policy", own)
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte(`<!doctype html><html data-state=""><head><script src="/listen.js"></script></head><body>
<script>document.documentElement.dataset.state += " script";</script>
<iframe src="` + platformURL + `/embed/dashboard/sales-overview"></iframe></body></html>`))
			})
			app := httptest.NewServer(SecurityHeaders(platformURL, HeaderOptions{Logger: slog.New(slog.DiscardHandler)})(mux))
			defer app.Close()

			ctx, cancel := context.WithTimeout(tab, testbrowser.Step(testbrowser.DefaultStep))
			defer cancel()
			if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/sales")); err != nil {
				t.Fatalf("load the page: %v", err)
			}
			state, err := chromedp.Run(ctx, chromedp.Poll[string](settledJS, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(testbrowser.Step(testbrowser.DefaultStep))))
			if err != nil {
				t.Fatalf("wait for the page: %v", err)
			}
			for _, want := range []string{"script", "frame"} {
				if !strings.Contains(state, want) {
					t.Errorf("the page's %s did not run (page state %q)", want, strings.TrimPrefix(state, "state:"))
				}
			}
		})
	}
}
