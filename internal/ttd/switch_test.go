package ttd

import (
	"context"
	"flag"
	"fmt"
	"html/template"
	"os"
	"slices"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/internal/testbrowser"
)

var switchRuns = flag.Int("ttd.switches", 10, "BenchmarkDashboardSwitch: switches of each kind")

// The switch page: the frame endpoint's iframe of {{.URL}} (a target
// name) and the host script, and window.__switch(to, how), which moves
// the frame to target to and records, by Date.now(), when it was asked
// and when the new dashboard's dashboard-loaded came.
func init() {
	template.Must(pages.New("switch").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>switch</title>` + measureScript + `
<script>
(() => {
  const ids = {sales: "sales-overview", regional: "regional-performance"};
  const s = window.__sw = {asked: null, loaded: null, want: null};
  addEventListener("message", (e) => {
    if (e.origin !== {{.Platform}} || !e.data || e.data.source !== "cube-embed") return;
    const p = e.data.payload || {};
    if (e.data.type === "cube:event:dashboard-loaded" && s.asked !== null && s.loaded === null && p.publicId === s.want) s.loaded = Date.now();
  });
  // how: "in-place" is the handle's show(), which moves the frame in
  // place where the kit's settings allow it; "new-frame" is the path
  // before it, a new iframe of the frame endpoint (a new mint, a new
  // platform page), as a single-page app's new target was.
  window.__switch = (to, how) => {
    s.want = ids[to];
    s.asked = Date.now();
    const old = document.querySelector("iframe[data-embedkit]");
    if (how === "in-place") {
      embedkit.frame(old).show(to);
      return;
    }
    const f = document.createElement("iframe");
    f.setAttribute("data-embedkit", "");
    f.setAttribute("data-embedkit-target", to);
    f.title = "Dashboard";
    f.src = "/embed/frame/" + to;
    old.replaceWith(f);
  };
})();
</script></head><body>
<iframe src="/embed/frame/{{.URL}}" data-embedkit data-embedkit-target="{{.URL}}" title="Dashboard"></iframe>
<script src="{{.HostScript}}" defer></script>
</body></html>`))
}

// A kind of switch from sales to regional.
type switchKind struct{ name, what string }

var switchKinds = []switchKind{
	{"in-place", "the frame's show(): cube:action:navigate in the same document, no new session"},
	{"new-frame", "today's path before it: a new iframe of the frame endpoint (a mint, a new platform page)"},
	{"fresh", "the floor of that path: a page load of the second dashboard, from navigation start"},
}

// switched is one switch's figures.
type switched struct {
	MS    float64 // from the switch (or navigation start) to the new dashboard's dashboard-loaded
	Mints int     // generate-session calls during it
	Reqs  map[string]int
}

// dashboardSwitch opens the switch page of sales in a fresh profile,
// waits for its dashboard, then switches to regional as kind says.
func (be *bench) dashboardSwitch(b *testing.B, browser context.Context, kind string) switched {
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	defer cancel()
	testbrowser.First(b, tab, cancel, stepTimeout, "open a fresh profile", firstAction)
	ctx, stop := context.WithTimeout(tab, 3*stepTimeout)
	defer stop()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(hostOrigin+"/v/switch")); err != nil {
		b.Fatalf("%s: open the page: %v", kind, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__ttd && window.__ttd.loaded !== null && window.embedkit !== undefined`,
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		b.Fatalf("%s: the first dashboard did not load: %v", kind, err)
	}
	var got switched
	be.rec.start()
	if kind == "fresh" {
		if _, err := chromedp.Run(ctx, chromedp.Navigate(hostOrigin+"/v/switch?target=regional")); err != nil {
			b.Fatalf("%s: open the second dashboard: %v", kind, err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.__ttd && window.__ttd.loaded`, chromedp.WithPollingInterval(10*time.Millisecond)))
		if err != nil {
			b.Fatalf("%s: the second dashboard did not load: %v", kind, err)
		}
		got.MS = ms
	} else {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`window.__switch("regional", %q)`, kind))); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.__sw.loaded !== null && (window.__sw.loaded - window.__sw.asked)`,
			chromedp.WithPollingInterval(10*time.Millisecond)))
		if err != nil {
			b.Fatalf("%s: the second dashboard did not load: %v", kind, err)
		}
		got.MS = ms
	}
	got.Reqs = map[string]int{}
	for _, r := range be.rec.stop() {
		got.Reqs[r.Server]++
		if r.Server == "api" && r.Path == "/api/v1/embed/generate-session" {
			got.Mints++
		}
	}
	return got
}

// BenchmarkDashboardSwitch measures a single-page app's move from one
// dashboard to another, in BenchmarkTimeToDashboard's setting (Chromium,
// the host and the platform over TLS and HTTP/2 behind -ttd.delay each
// way): the time from the target change to the new dashboard's
// dashboard-loaded in place (the frame's show(): the platform's navigate
// action, no new session), with a new frame (the path before it: a new
// iframe, a mint, a new platform page), and, as that path's floor, a page
// load of the second dashboard (from navigation start). Each run starts
// from a fresh profile with the first dashboard loaded; runs are
// interleaved kind by kind, -ttd.switches of each. It reports x-fresh,
// the in-place median over the new-frame median (goal <= 0.35), and the
// mints of each kind (goal: none in place). Run it with -benchtime 1x.
func BenchmarkDashboardSwitch(b *testing.B) {
	if *switchRuns < 1 {
		b.Fatalf("ttd: -ttd.switches %d must be at least 1", *switchRuns)
	}
	for range b.N {
		switchRunsOnce(b)
	}
}

func switchRunsOnce(b *testing.B) {
	be := newBench(b)
	browser := be.browser(b)
	got := interleaved(*switchRuns, len(switchKinds), func(i int) switched { return be.dashboardSwitch(b, browser, switchKinds[i].name) })
	b.StopTimer()

	rtt := 2 * float64(*ttdDelay) / float64(time.Millisecond)
	fmt.Printf("\ndashboard switch: %d runs each, %.0f ms round trips to each origin (TLS, HTTP/2), sales-overview to regional-performance\n", *switchRuns, rtt)
	for _, k := range switchKinds {
		fmt.Printf("  %-10s %s\n", k.name, k.what)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "switch\tdashboard-loaded ms (median)\tp25–p75\tmin–max\t/ RTT\tmints (max)\trequests host+platform+api (median)\t")
	medians := make([]float64, len(switchKinds))
	for i, k := range switchKinds {
		ms := make([]float64, len(got[i]))
		mints := make([]float64, len(got[i]))
		reqs := func(server string) float64 {
			v := make([]float64, len(got[i]))
			for j, r := range got[i] {
				v[j] = float64(r.Reqs[server])
			}
			return median(v)
		}
		for j, r := range got[i] {
			ms[j], mints[j] = r.MS, float64(r.Mints)
		}
		medians[i] = median(ms)
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f–%.0f\t%.0f–%.0f\t%.1f\t%.0f\t%.0f+%.0f+%.0f\t\n", k.name, median(ms), quantile(ms, 0.25), quantile(ms, 0.75),
			slices.Min(ms), slices.Max(ms), median(ms)/rtt, slices.Max(mints), reqs("host"), reqs("platform"), reqs("api"))
		b.ReportMetric(median(ms), k.name+"-loaded-ms")
		b.ReportMetric(slices.Max(mints), k.name+"-mints-max")
	}
	_ = tw.Flush()
	xFresh := medians[0] / medians[1]
	fmt.Printf("x-fresh (in-place median / new-frame median): %.3f; goal <= 0.35\n", xFresh)
	b.ReportMetric(xFresh, "x-fresh")
}
