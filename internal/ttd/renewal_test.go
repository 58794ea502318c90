package ttd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/testbrowser"
)

var renewRuns = flag.Int("ttd.renewals", 8, "BenchmarkRenewal: renewals of each kind")

// A kind of renewal: the platform the emulator plays, and how far its
// clock moves past the frame's exchange.
type renewalKind struct {
	name, what string
	predates   bool          // the platform predates renewal in place
	advance    time.Duration // the emulator clock's jump after the frame is ready
}

// The embedded page trusts its token about 23 h after the exchange and
// sends session-expiring 10 minutes before that (the emulator's default
// lead).
var renewalKinds = []renewalKind{
	{"in-place", "renewal in place, ahead of the end: session-expiring, a mint, set-session", false, 23*time.Hour - 8*time.Minute},
	{"in-place-late", "renewal in place after the end (a tab that slept): session-expired and session-expiring at once", false, 23*time.Hour + time.Minute},
	{"reload", "a platform without renewal in place: at the end its fatal error makes the host script load the frame again", true, 23*time.Hour + time.Minute},
}

// renewWatch runs in every document of the tab, before the page's own
// scripts. In the host page it collects what the frame's documents report
// and the host script's session-renewed events; in the embedded page it
// reports its status's data-state ("ready" once the dashboard is drawn),
// each new document and each document's end. Times are Date.now(), the
// one clock of both. The benchmark's browser keeps the frame in the
// page's process (site isolation off), so the script reaches the frame.
const renewWatch = `(() => {
  if (window.top === window) {
    const t = window.__renew = {frame: [], renewed: []};
    addEventListener("message", (e) => { if (e.data && e.data.ttdFrame) t.frame.push(e.data.ttdFrame); });
    document.addEventListener("embedkit:session-renewed", (e) => {
      const p = e.detail && e.detail.payload;
      t.renewed.push({at: Date.now(), inPlace: !!(p && p.inPlace)});
    });
    return;
  }
  const send = (kind, state) => window.top.postMessage({ttdFrame: {kind: kind, state: state, at: Date.now()}}, "*");
  const watch = () => {
    const el = document.getElementById("status");
    if (!el) return;
    let last = el.getAttribute("data-state");
    send("document", last);
    new MutationObserver(() => {
      const s = el.getAttribute("data-state");
      if (s !== last) { last = s; send("state", s); }
    }).observe(el, {attributes: true, attributeFilter: ["data-state"]});
    addEventListener("pagehide", () => send("unload", null));
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
})()`

// frameNote is one report of an embedded document (renewWatch).
type frameNote struct {
	Kind  string  `json:"kind"` // document, state or unload
	State string  `json:"state"`
	At    float64 `json:"at"` // ms since the epoch
}

// blankMS is how long, between from and to (ms since the epoch), the
// frame showed no dashboard: its status not "ready", or its document gone
// (from its end to the next document's ready). It reports false when the
// frame was not ready at to.
func blankMS(notes []frameNote, from, to float64) (float64, bool) {
	notes = slices.Clone(notes)
	slices.SortStableFunc(notes, func(a, b frameNote) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
	shown, since, blank := false, from, 0.0
	for _, n := range notes {
		if n.At > to {
			break
		}
		now := shown
		switch n.Kind {
		case "unload":
			now = false
		case "document", "state":
			now = n.State == "ready"
		}
		if n.At < from {
			shown = now
			continue
		}
		if shown && !now {
			since = n.At
		} else if !shown && now {
			blank += n.At - max(since, from)
		}
		shown = now
	}
	if !shown {
		return blank + to - max(since, from), false
	}
	return blank, true
}

// renewed is what one renewal cost.
type renewed struct {
	BlankMS float64 // the dashboard not shown
	Mints   int     // generate-session calls the host made for it
	InPlace bool    // session-renewed said inPlace
}

// renew loads the README's page in a fresh profile on the platform of
// kind k, waits for its dashboard, moves the emulator's clock and waits
// for the host script's session-renewed and the dashboard shown again,
// then two more of the embedded page's polls for a second renewal, which
// must not come.
func (be *bench) renew(b *testing.B, browser context.Context, k renewalKind) renewed {
	f := emulator.DemoFixture()
	f.PredatesSessionRenewal = k.predates
	if err := be.em.Reset(f); err != nil {
		b.Fatal(err)
	}
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	defer cancel()
	testbrowser.First(b, tab, cancel, stepTimeout, "open a fresh profile", firstAction)
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: renewWatch}); err != nil {
		b.Fatalf("%s: install the watch script: %v", k.name, err)
	}
	ctx, stop := context.WithTimeout(tab, 3*stepTimeout)
	defer stop()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(hostOrigin+"/v/pageframe")); err != nil {
		b.Fatalf("%s: open the page: %v", k.name, err)
	}
	const frameReady = `(() => { const f = window.__renew && window.__renew.frame; return !!f && f.length > 0 && f[f.length - 1].state === "ready"; })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](frameReady, chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		b.Fatalf("%s: the dashboard did not load: %v", k.name, err)
	}
	t0, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Date.now()`))
	if err != nil {
		b.Fatal(err)
	}
	be.rec.start()
	be.em.Advance(k.advance)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__renew.renewed.length > 0 && `+frameReady,
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		b.Fatalf("%s: no renewal: %v", k.name, err)
	}
	t1, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Date.now()`))
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(2 * 2 * time.Second) // two of the embedded page's polls
	reqs := be.rec.stop()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`window.__renew`))
	if err != nil {
		b.Fatal(err)
	}
	var got struct {
		Frame   []frameNote
		Renewed []struct {
			At      float64
			InPlace bool
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		b.Fatal(err)
	}
	blank, ok := blankMS(got.Frame, t0, t1)
	if !ok {
		b.Fatalf("%s: the dashboard was not shown when the renewal ended (frame reports %+v)", k.name, got.Frame)
	}
	if len(got.Renewed) != 1 {
		b.Fatalf("%s: %d session-renewed events, want 1", k.name, len(got.Renewed))
	}
	mints := 0
	for _, r := range reqs {
		if r.Server == "api" && r.Path == "/api/v1/embed/generate-session" {
			mints++
		}
	}
	return renewed{BlankMS: blank, Mints: mints, InPlace: got.Renewed[0].InPlace}
}

// BenchmarkRenewal measures what a viewer sees while a frame's session is
// renewed, in BenchmarkTimeToDashboard's setting (Chromium, the host and
// the platform over TLS and HTTP/2 behind -ttd.delay each way): the
// README's page is loaded, the emulator's clock moves to the end of the
// token's trust, and the benchmark reports how long the dashboard was not
// shown (blank, or loading in a new document) and how many sessions the
// host minted for the renewal, for renewal in place ahead of the end,
// renewal in place after it (both events at once), and the reload a
// platform without renewal in place gets. Runs are interleaved, kind by
// kind, -ttd.renewals of each. Run it with -benchtime 1x.
func BenchmarkRenewal(b *testing.B) {
	if *renewRuns < 1 {
		b.Fatalf("ttd: -ttd.renewals %d must be at least 1", *renewRuns)
	}
	for range b.N {
		renewalRuns(b)
	}
}

func renewalRuns(b *testing.B) {
	be := newBench(b)
	// The watch script must reach the frame's documents: keep the frame,
	// another site, in the page's process.
	browser := be.browser(b,
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "IsolateOrigins,site-per-process"))
	got := interleaved(*renewRuns, len(renewalKinds), func(i int) renewed { return be.renew(b, browser, renewalKinds[i]) })
	b.StopTimer()

	rtt := 2 * float64(*ttdDelay) / float64(time.Millisecond)
	fmt.Printf("\nrenewal: %d runs each, %.0f ms round trips to each origin (TLS, HTTP/2), the README's page\n", *renewRuns, rtt)
	for _, k := range renewalKinds {
		fmt.Printf("  %-14s %s\n", k.name, k.what)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "renewal\tblank ms (median)\tmin–max\tmints per renewal (median)\tmax\tin place\t")
	medians := make([]float64, len(renewalKinds))
	for i, k := range renewalKinds {
		blank := make([]float64, len(got[i]))
		mints := make([]float64, len(got[i]))
		inPlace := 0
		for j, r := range got[i] {
			blank[j], mints[j] = r.BlankMS, float64(r.Mints)
			if r.InPlace {
				inPlace++
			}
		}
		medians[i] = median(blank)
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f–%.0f\t%.0f\t%.0f\t%d of %d\t\n", k.name, median(blank), slices.Min(blank), slices.Max(blank),
			median(mints), slices.Max(mints), inPlace, len(got[i]))
		b.ReportMetric(median(blank), k.name+"-blank-ms")
		b.ReportMetric(slices.Max(mints), k.name+"-mints-max")
	}
	_ = tw.Flush()
}

// TestBlankMS checks how BenchmarkRenewal counts the time a dashboard is
// not shown.
func TestBlankMS(t *testing.T) {
	ready := func(at float64) frameNote { return frameNote{Kind: "state", State: "ready", At: at} }
	for _, tc := range []struct {
		name      string
		notes     []frameNote
		want      float64
		wantShown bool
	}{
		{"shown throughout", []frameNote{{Kind: "document", State: "ready", At: 0}}, 0, true},
		{"a re-render that stays ready", []frameNote{{Kind: "document", State: "ready", At: 0}, ready(150)}, 0, true},
		{"expired, then ready again", []frameNote{{Kind: "document", State: "ready", At: 0},
			{Kind: "state", State: "expired", At: 120}, ready(300)}, 180, true},
		{"a reload", []frameNote{{Kind: "document", State: "ready", At: 0}, {Kind: "state", State: "ended", At: 110},
			{Kind: "unload", At: 130}, {Kind: "document", State: "loading", At: 400}, ready(700)}, 590, true},
		{"blank before the window counts from its start", []frameNote{{Kind: "document", State: "ready", At: 0},
			{Kind: "state", State: "expired", At: 50}, ready(250)}, 150, true},
		{"not ready at the end", []frameNote{{Kind: "document", State: "ready", At: 0},
			{Kind: "state", State: "expired", At: 200}}, 800, false},
		{"notes out of order", []frameNote{ready(300), {Kind: "state", State: "expired", At: 120},
			{Kind: "document", State: "ready", At: 0}}, 180, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, shown := blankMS(tc.notes, 100, 1000)
			if got != tc.want || shown != tc.wantShown {
				t.Errorf("blankMS = %v, %v; want %v, %v", got, shown, tc.want, tc.wantShown)
			}
		})
	}
}
