package middleware

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Session renewal by the host script, in Node with fake timers and a
// scripted fetch (see hostscript_node_test.go). The platform has no
// message to renew a session; the script reloads the frame through its
// frame endpoint (HEAD probe first) or, for a frame whose src is the
// platform's own URL, through the JSON endpoint.

// renewPrelude sets up frame a (src /embed/frame/sales) managed and ready,
// with listeners for the kit's events, at clock t0 = h.clock.now.
const renewPrelude = `
const a = h.iframe({id: "a", target: "sales", attrs: ATTRS});
h.load();
const fa = h.win.embedkit.frame(a);
for (const n of ["ready", "session-renewed", "session-ended", "renew-failed", "error"]) h.listen(fa, n);
h.ready(a);
const t0 = h.clock.now;
`

// renewScenario is renewPrelude with attrs for frame a, then body.
func renewScenario(attrs map[string]string, body string) string {
	if attrs == nil {
		attrs = map[string]string{}
	}
	return strings.Replace(renewPrelude, "ATTRS", js(attrs), 1) + body
}

// failure is a renew-failed payload.
type failure struct {
	Status    *float64
	Message   string
	Attempt   int
	RetryInMs *float64
}

// failures returns the renew-failed payloads frame a's listener heard.
func (r *hostRun) failures(t *testing.T) []failure {
	t.Helper()
	var out []failure
	for _, e := range r.heard("a", "renew-failed") {
		var f failure
		if err := json.Unmarshal([]byte(js(e.Payload)), &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// retries returns the retryInMs of each failure, -1 for null.
func retries(fs []failure) []float64 {
	var out []float64
	for _, f := range fs {
		if f.RetryInMs == nil {
			out = append(out, -1)
		} else {
			out = append(out, *f.RetryInMs)
		}
	}
	return out
}

// fetchTimes returns when each fetch ran, relative to t0.
func (r *hostRun) fetchTimes(t0 float64) []float64 {
	var out []float64
	for _, f := range r.of("fetch") {
		out = append(out, f.At-t0)
	}
	return out
}

// payloads returns the payloads of frame a's listener for name.
func (r *hostRun) payloads(name string) []string {
	var out []string
	for _, e := range r.heard("a", name) {
		out = append(out, js(e.Payload))
	}
	return out
}

// t0 is the scenario's start, returned by scenarios as {t0}.
func startTime(t *testing.T, r *hostRun) float64 {
	t.Helper()
	var res struct{ T0 float64 }
	r.result(t, &res)
	if res.T0 == 0 {
		t.Fatal("scenario returned no t0")
	}
	return res.T0
}

// TestHostScriptRenewTimer: renew-after after ready, the frame is probed
// with HEAD (same-origin credentials, no redirect following, no cache, a
// timeout signal), loaded again through the same src, and once it is
// ready the page hears ready then session-renewed {reason: "expiring"};
// the settings made through the kit are sent to the new page, and the
// timer starts again.
func TestHostScriptRenewTimer(t *testing.T) {
	t.Parallel()
	r := runHost(t, renewScenario(map[string]string{"data-embedkit-renew-after": "300000"}, `
fa.setLocale("de-DE");
fa.setFilter("sales.region", "EMEA");
await h.advance(299999);
const early = h.of("fetch").length;
h.respond({status: 200});
await h.advance(1);
const srcs = h.of("src").length;
h.clock.now += 300;
h.ready(a);
return {t0, early, srcs, timers: h.timers()};
`))
	var res struct {
		T0          float64
		Early, Srcs int
		Timers      []float64
	}
	r.result(t, &res)
	if res.Early != 0 {
		t.Errorf("%d fetches before the renewal was due", res.Early)
	}
	fetches := r.of("fetch")
	if len(fetches) != 1 {
		t.Fatalf("fetches %s, want one HEAD probe", js(fetches))
	}
	f := fetches[0]
	if f.At-res.T0 != 300000 || f.Method != "HEAD" || f.URL != harnessHere+"/embed/frame/sales" || f.Credentials != "same-origin" ||
		f.Redirect != "manual" || f.Cache != "no-store" || !f.Signal || f.Body != nil {
		t.Errorf("probe %s, want HEAD %s/embed/frame/sales at +300000 ms, same-origin, redirect manual, no-store, with a signal", js(f), harnessHere)
	}
	srcs := r.of("src")
	if res.Srcs != 2 || len(srcs) != 2 || srcs[1].Value != "/embed/frame/sales" || srcs[1].Frame != "a" {
		t.Errorf("src sets %s, want the frame endpoint set again once after the probe", js(srcs))
	}
	var order []string
	for _, e := range r.of("on") {
		order = append(order, e.As)
	}
	if want := []string{"ready", "ready", "session-renewed"}; !slices.Equal(order, want) {
		t.Errorf("the page heard %v, want %v", order, want)
	}
	if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":false,"reason":"expiring"}`}) {
		t.Errorf("session-renewed %v", got)
	}
	var after []string
	for _, p := range r.posts("a") {
		if p.At > res.T0+300000 {
			after = append(after, p.Msg.Type)
		}
	}
	if want := []string{"cube:action:set-locale", "cube:action:set-filter"}; !slices.Equal(after, want) {
		t.Errorf("after the renewal the frame got %v, want the kit's settings again %v", after, want)
	}
	// The next renewal is keyed to the reload's start (the earliest the
	// new session can have been exchanged), 300 ms before this ready.
	if !slices.Equal(res.Timers, []float64{300000 - 300}) {
		t.Errorf("pending timers %v, want the next renewal in 299700 ms only (300000 after the reload started)", res.Timers)
	}
}

// TestHostScriptRenewAfter: the fallback renewal's delay after the
// frame's load started (here, at ready), from data-embedkit-renew-after
// (at least 5 minutes: "22", meant as hours, must not re-mint every
// second) or 23 hours minus 5 minutes.
func TestHostScriptRenewAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		attr string
		want float64
	}{
		{"", 23*3600*1000 - 5*60*1000},
		{"600000", 600000},
		{"300000", 300000},
		{"299999", 300000},
		{"22", 300000},
		{"0", 300000},
		{"soon", 23*3600*1000 - 5*60*1000},
	} {
		t.Run(tc.attr, func(t *testing.T) {
			t.Parallel()
			attrs := map[string]string{}
			if tc.attr != "" {
				attrs["data-embedkit-renew-after"] = tc.attr
			}
			r := runHost(t, renewScenario(attrs, `return {t0, timers: h.timers()};`))
			var res struct{ Timers []float64 }
			r.result(t, &res)
			if !slices.Equal(res.Timers, []float64{tc.want}) {
				t.Errorf("timers after ready %v, want [%v]", res.Timers, tc.want)
			}
		})
	}
}

// TestHostScriptRenewWhenVisible: timers sleep in background tabs; when
// the tab is visible again and the renewal is due, it runs at once.
func TestHostScriptRenewWhenVisible(t *testing.T) {
	t.Parallel()
	r := runHost(t, renewScenario(map[string]string{"data-embedkit-renew-after": "300000"}, `
h.doc.visibilityState = "hidden";
h.sleep(150000);
h.doc.visibilityState = "visible";
h.fire("visibilitychange", "document");
await h.flush();
const notYet = h.of("fetch").length;
h.doc.visibilityState = "hidden";
h.sleep(160000);
h.doc.visibilityState = "visible";
h.fire("visibilitychange", "document");
await h.flush();
return {t0, notYet};
`))
	var res struct{ NotYet int }
	r.result(t, &res)
	t0 := startTime(t, r)
	if res.NotYet != 0 {
		t.Error("a renewal ran before it was due")
	}
	if got := r.fetchTimes(t0); !slices.Equal(got, []float64{310000}) {
		t.Errorf("probes at %v, want one at +310000 ms when the tab became visible", got)
	}
}

// TestHostScriptRenewOnFatalError: a fatal error that a new session can
// fix renews the frame; a broken dashboard (embed-render) and non-fatal
// errors do not.
func TestHostScriptRenewOnFatalError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, payload string
		renews        bool
	}{
		{"fatal embed-session", `{message: "session expired", fatal: true, context: "embed-session"}`, true},
		{"fatal without context", `{message: "broken", fatal: true}`, true},
		{"fatal embed-render", `{message: "widget failed", fatal: true, context: "embed-render"}`, false},
		{"not fatal", `{message: "slow", context: "embed-context"}`, false},
		{"fatal not a boolean", `{message: "slow", fatal: "yes", context: "embed-session"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond({status: 200});
h.event(a, "cube:event:error", `+tc.payload+`);
await h.advance(100);
h.ready(a);
await h.advance(10 * 60 * 1000);
return {t0};
`))
			fetches, srcs := len(r.of("fetch")), len(r.of("src"))
			if tc.renews {
				if fetches != 1 || srcs != 2 || !slices.Equal(r.payloads("session-renewed"), []string{`{"inPlace":false,"reason":"error"}`}) {
					t.Errorf("fetches %d, src sets %d, session-renewed %v; want a probe, a reload and {reason: error}", fetches, srcs, r.payloads("session-renewed"))
				}
			} else if fetches != 0 || srcs != 1 || len(r.heard("a", "session-renewed")) != 0 {
				t.Errorf("fetches %d, src sets %d: a new session does not fix this error", fetches, srcs)
			}
			if len(r.heard("a", "error")) != 1 {
				t.Error("the error event did not reach the page")
			}
		})
	}
}

// TestHostScriptRenewSignedOut: only a 401 from the probe (or an opaque
// redirect, a login page for browsers without fetch metadata) is a
// sign-out: session-ended {status: 401} once, no src change, no retry,
// and reload() rejects.
func TestHostScriptRenewSignedOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, answer string }{
		{"401", `{status: 401}`},
		{"opaque redirect", `{opaque: true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond(`+tc.answer+`);
let rejected = null;
fa.reload().then(() => { rejected = "resolved"; }, (err) => { rejected = {name: err.name, reason: err.reason, status: err.status}; });
await h.advance(10);
h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
await h.advance(10 * 60 * 1000);
return {t0, rejected};
`))
			var res struct {
				Rejected struct {
					Name, Reason string
					Status       int
				}
			}
			r.result(t, &res)
			if got := r.payloads("session-ended"); !slices.Equal(got, []string{`{"status":401}`}) {
				t.Errorf("session-ended %v, want once {status: 401}", got)
			}
			var dom int
			for _, e := range r.of("dom") {
				if e.Type == "embedkit:session-ended" && e.Frame == "a" && e.Bubbles {
					dom++
				}
			}
			if dom != 1 {
				t.Errorf("%d embedkit:session-ended DOM events, want 1", dom)
			}
			if n := len(r.of("fetch")); n != 1 {
				t.Errorf("%d fetches, want the one probe (a signed-out viewer is not retried)", n)
			}
			if n := len(r.of("src")); n != 1 {
				t.Errorf("the frame's src was set %d times after sign-out", n-1)
			}
			if res.Rejected.Name != "EmbedkitReloadError" || res.Rejected.Reason != "session-ended" || res.Rejected.Status != 401 {
				t.Errorf("reload() settled with %+v, want an EmbedkitReloadError session-ended 401", res.Rejected)
			}
			if len(r.heard("a", "renew-failed")) != 0 {
				t.Error("a sign-out was reported as renew-failed")
			}
		})
	}
}

// TestHostScriptRenewBackoff: 5xx answers are retried with growing
// delays (1 s doubling, jittered down by at most a fifth, never below
// 1 s) until the frame is renewed.
func TestHostScriptRenewBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		random  float64
		retries []float64
	}{
		{"no jitter", 0, []float64{1000, 2000}},
		{"most jitter", 0.999, []float64{1000, 1600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.clock.random = `+js(tc.random)+`;
h.respond({status: 503}, {status: 502}, {status: 200});
let settled = null;
fa.reload().then((ev) => { settled = ev.name + " " + ev.payload.publicId; }, (err) => { settled = err.message; });
await h.until(() => h.of("src").length === 2);
h.ready(a);
await h.flush();
return {t0, settled};
`))
			t0 := startTime(t, r)
			var res struct{ Settled string }
			r.result(t, &res)
			fs := r.failures(t)
			if got := retries(fs); !slices.Equal(got, tc.retries) {
				t.Errorf("retryInMs %v, want %v", got, tc.retries)
			}
			if len(fs) == 2 && (fs[0].Status == nil || *fs[0].Status != 503 || fs[0].Attempt != 1 || fs[1].Status == nil || *fs[1].Status != 502 || fs[1].Attempt != 2 ||
				!strings.Contains(fs[0].Message, "503")) {
				t.Errorf("failures %s, want status 503 attempt 1 and 502 attempt 2", js(fs))
			}
			want := []float64{0, tc.retries[0], tc.retries[0] + tc.retries[1]}
			if got := r.fetchTimes(t0); !slices.Equal(got, want) {
				t.Errorf("probes at %v, want %v", got, want)
			}
			if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":false,"reason":"reload"}`}) {
				t.Errorf("session-renewed %v", got)
			}
			if res.Settled != "ready sales-overview" {
				t.Errorf("reload() settled with %q, want the ready event", res.Settled)
			}
			if len(r.heard("a", "session-ended")) != 0 {
				t.Error("server errors were reported as a sign-out")
			}
		})
	}
}

// TestHostScriptRenewBackoffCapped: network errors are retried for as
// long as they last, the delay doubling up to 60 s and staying there.
func TestHostScriptRenewBackoffCapped(t *testing.T) {
	t.Parallel()
	r := runHost(t, renewScenario(nil, `
h.respond(...Array(9).fill({network: true}));
fa.reload().catch(() => {});
await h.advance(4 * 60 * 1000);
return {t0};
`))
	want := []float64{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000}
	if got := retries(r.failures(t)); !slices.Equal(got[:min(len(got), len(want))], want) || slices.Contains(got, -1) {
		t.Errorf("retryInMs %v, want %v and never giving up", got, want)
	}
	for _, f := range r.failures(t) {
		if f.Status != nil || !strings.Contains(f.Message, "network") {
			t.Errorf("failure %s: a network error has no status", js(f))
		}
	}
}

// TestHostScriptRenewGivesUp: five failures that are not network errors
// end the renewal (retryInMs null, reload() rejects) and nothing more is
// tried; a 403 gives up at once.
func TestHostScriptRenewGivesUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answers string
		retries []float64
		status  float64
	}{
		{"five 5xx", `{status: 500}, {status: 503}, {status: 502}, {status: 500}, {status: 504}, {status: 200}`, []float64{1000, 2000, 4000, 8000, -1}, 504},
		{"403", `{status: 403}, {status: 200}`, []float64{-1}, 403},
		{"404", `{status: 404}, {status: 200}`, []float64{-1}, 404},
		{"network errors do not count", `{status: 500}, {network: true}, {status: 500}, {network: true}, {status: 500}, {status: 500}, {status: 500}, {status: 200}`,
			[]float64{1000, 2000, 4000, 8000, 16000, 32000, -1}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond(`+tc.answers+`);
let rejected = null;
fa.reload().then(() => { rejected = "resolved"; }, (err) => { rejected = {name: err.name, reason: err.reason, status: err.status}; });
await h.advance(60 * 60 * 1000);
return {t0, rejected, pending: h.timers()};
`))
			var res struct {
				Rejected struct {
					Name, Reason string
					Status       float64
				}
				Pending []float64
			}
			r.result(t, &res)
			fs := r.failures(t)
			if got := retries(fs); !slices.Equal(got, tc.retries) {
				t.Errorf("retryInMs %v, want %v", got, tc.retries)
			}
			if last := fs[len(fs)-1]; last.Status == nil || *last.Status != tc.status || last.Attempt != len(tc.retries) {
				t.Errorf("last failure %s, want status %v attempt %d", js(last), tc.status, len(tc.retries))
			}
			if n := len(r.of("fetch")); n != len(tc.retries) {
				t.Errorf("%d fetches, want %d: nothing after giving up", n, len(tc.retries))
			}
			if n := len(r.of("src")); n != 1 {
				t.Errorf("src set %d more times", n-1)
			}
			if res.Rejected.Reason != "renew-failed" || res.Rejected.Status != tc.status {
				t.Errorf("reload() settled with %+v, want renew-failed %v", res.Rejected, tc.status)
			}
			if len(res.Pending) != 0 {
				t.Errorf("timers still pending after giving up: %v", res.Pending)
			}
			if len(r.heard("a", "session-ended")) != 0 {
				t.Error("reported as a sign-out")
			}
		})
	}
}

// TestHostScriptRenewOnline: when the browser is online again (or the tab
// visible) a waiting retry runs at once, but never sooner than a second
// after the previous attempt.
func TestHostScriptRenewOnline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, fire string }{
		{"online", `h.fire("online")`},
		{"visible", `h.fire("visibilitychange", "document")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond({network: true}, {network: true}, {network: true}, {network: true}, {status: 200});
fa.reload().catch(() => {});
await h.advance(3000);  // attempts at 0, 1000, 3000; the next waits 4000
await h.advance(1500);
`+tc.fire+`;                // at 4500: at once
await h.flush();
`+tc.fire+`;                // at 4500 again: not before 5500
await h.flush();
await h.advance(999);
const before = h.of("fetch").length;
await h.advance(1);
h.ready(a);
return {t0, before};
`))
			t0 := startTime(t, r)
			var res struct{ Before int }
			r.result(t, &res)
			if got, want := r.fetchTimes(t0), []float64{0, 1000, 3000, 4500, 5500}; !slices.Equal(got, want) {
				t.Errorf("attempts at %v, want %v", got, want)
			}
			if res.Before != 4 {
				t.Errorf("%d attempts before 5500 ms, want 4", res.Before)
			}
			if len(r.heard("a", "session-renewed")) != 1 {
				t.Error("not renewed once the network was back")
			}
		})
	}
}

// TestHostScriptRenewOneAtATime: fatal errors, reload() calls and the
// timer while a renewal is under way start no second one.
func TestHostScriptRenewOneAtATime(t *testing.T) {
	t.Parallel()
	r := runHost(t, renewScenario(map[string]string{"data-embedkit-renew-after": "300000"}, `
const fatal = () => h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
await h.advance(300000);            // the timer starts a renewal; its probe hangs
fatal(); fatal();
const p1 = fa.reload(), p2 = fa.reload();
await h.advance(9999);
const during = h.of("fetch").length;
h.respond({status: 200});
await h.advance(1);               // the probe times out; the retry answers 200
await h.advance(1000);
fatal();                          // fatal before ready: a failed attempt
h.respond({status: 200});
await h.advance(2000);
h.ready(a);
const settled = await Promise.all([p1, p2]).then((evs) => evs.map((e) => e.name));
return {t0, during, settled};
`))
	t0 := startTime(t, r)
	var res struct {
		During  int
		Settled []string
	}
	r.result(t, &res)
	if res.During != 1 {
		t.Errorf("%d fetches while one probe was under way, want 1", res.During)
	}
	if got := r.fetchTimes(t0); !slices.Equal(got, []float64{300000, 311000, 313000}) {
		t.Errorf("probes at %v, want [300000 311000 313000]", got)
	}
	if n := len(r.of("abort")); n != 1 {
		t.Errorf("%d aborted fetches, want the timed-out probe", n)
	}
	fs := r.failures(t)
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "10 s") || !strings.Contains(fs[1].Message, "fatal") {
		t.Errorf("failures %s, want the probe's timeout then the fatal error before ready", js(fs))
	}
	if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":false,"reason":"expiring"}`}) {
		t.Errorf("session-renewed %v, want one, for the timer", got)
	}
	if !slices.Equal(res.Settled, []string{"ready", "ready"}) {
		t.Errorf("reload() promises settled %v", res.Settled)
	}
}

// TestHostScriptRenewLoad: after a good probe the new frame must be ready
// within 30 s and must not fail before: otherwise the attempt failed and
// is retried; a broken dashboard (embed-render) gives up.
func TestHostScriptRenewLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, then string
		retries    []float64
		message    string
	}{
		{"not ready in 30 s", `await h.advance(30000);`, []float64{1000}, "not ready within 30 s"},
		{"fatal error before ready", `h.event(a, "cube:event:error", {message: "used", fatal: true, context: "embed-session"});`, []float64{1000}, "fatal"},
		{"render error before ready", `h.event(a, "cube:event:error", {message: "broken", fatal: true, context: "embed-render"});`, []float64{-1}, "render"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond({status: 200});
fa.reload().catch(() => {});
await h.advance(10);
`+tc.then+`
await h.flush();
return {t0};
`))
			fs := r.failures(t)
			if got := retries(fs); !slices.Equal(got, tc.retries) || !strings.Contains(fs[0].Message, tc.message) {
				t.Errorf("failures %s, want retryInMs %v with a message saying %q", js(fs), tc.retries, tc.message)
			}
		})
	}
}

// TestHostScriptRenewFailingAgain: a frame that fails again within 30 s
// of its renewal counts as a failed attempt, so a frame that keeps
// failing backs off instead of re-minting in a loop.
func TestHostScriptRenewFailingAgain(t *testing.T) {
	t.Parallel()
	r := runHost(t, renewScenario(nil, `
const fatal = () => h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
for (let i = 0; i < 6; i++) {
  h.respond({status: 200});
  const before = h.of("src").length;
  fatal();
  for (let n = 0; n < 1200 && h.of("src").length === before; n++) await h.advance(100);
  if (h.of("src").length === before) break; // gave up
  h.ready(a);
  await h.advance(1000);
}
return {t0};
`))
	fs := r.failures(t)
	if got := retries(fs); !slices.Equal(got, []float64{1000, 2000, 4000, 8000, -1}) {
		t.Errorf("retryInMs %v, want backing off and giving up after five", got)
	}
	if n := len(r.of("fetch")); n != 5 {
		t.Errorf("%d probes, want 5", n)
	}
}

// TestHostScriptRenewViaSessionEndpoint: a frame whose src is the
// platform's own URL (a single-page app set it) is renewed through the
// JSON endpoint: POST {"target"} with the same rules, then src = url. The
// answer's session id goes nowhere but the iframe's src.
func TestHostScriptRenewViaSessionEndpoint(t *testing.T) {
	t.Parallel()
	const newURL = harnessPlatform + "/embed/dashboard/sales-overview?session=5e55beefc0ffee0ddba11f00dcafe1a7"
	for _, tc := range []struct {
		name, attrs, answer string
		endpoint            string
		renewed             bool
		ended               bool
		retries             []float64
	}{
		{"kit endpoint", `{}`, `{status: 200, json: {url: ` + js(newURL) + `, sessionId: "5e55beefc0ffee0ddba11f00dcafe1a7", expiresAt: "2030-01-01T00:05:00Z"}}`, "/embed/session", true, false, nil},
		{"own endpoint", `{"data-embedkit-session-url": "/api/analytics/session"}`, `{status: 200, json: {url: ` + js(newURL) + `}}`, "/api/analytics/session", true, false, nil},
		{"signed out", `{}`, `{status: 401}`, "/embed/session", false, true, nil},
		{"a url of another origin", `{}`, `{status: 200, json: {url: "https://evil.example/embed/dashboard/x?session=5e55beefc0ffee0ddba11f00dcafe1a7"}}`, "/embed/session", false, false, []float64{1000}},
		{"no JSON", `{}`, `{status: 200, badJSON: true}`, "/embed/session", false, false, []float64{1000}},
		{"server error", `{}`, `{status: 502}`, "/embed/session", false, false, []float64{1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", src: "`+harnessPlatform+`/embed/dashboard/sales-overview?session=5e55aaaac0ffee0ddba11f00dcafe1a7", attrs: `+tc.attrs+`});
h.load();
const fa = h.win.embedkit.frame(a);
for (const n of ["ready", "session-renewed", "session-ended", "renew-failed"]) h.listen(fa, n);
h.ready(a);
h.respond(`+tc.answer+`);
h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
await h.advance(500);
h.ready(a);
await h.flush();
return {t0: 1};
`)
			fetches := r.of("fetch")
			if len(fetches) == 0 {
				t.Fatal("no fetch")
			}
			f := fetches[0]
			if f.Method != "POST" || f.URL != tc.endpoint || f.Body == nil || *f.Body != `{"target":"sales"}` || f.Credentials != "same-origin" ||
				f.Redirect != "manual" || f.Headers["Content-Type"] != "application/json" || !f.Signal {
				t.Errorf("fetch %s, want POST %s {\"target\":\"sales\"} as JSON, same-origin, redirect manual", js(f), tc.endpoint)
			}
			srcs := r.of("src")
			if tc.renewed {
				if len(srcs) != 2 || srcs[1].Value != newURL || len(r.heard("a", "session-renewed")) != 1 {
					t.Errorf("src sets %s, session-renewed %v; want src = the answer's url, then renewed", js(srcs), r.payloads("session-renewed"))
				}
			} else if len(srcs) != 1 {
				t.Errorf("src set to %s", js(srcs[1:]))
			}
			if got := len(r.heard("a", "session-ended")); got != map[bool]int{true: 1}[tc.ended] {
				t.Errorf("%d session-ended, want %t", got, tc.ended)
			}
			if got := retries(r.failures(t)); !slices.Equal(got, tc.retries) {
				t.Errorf("retryInMs %v, want %v", got, tc.retries)
			}
			for _, e := range r.Log {
				if e.Kind != "src" && strings.Contains(js(e), "5e55beef") {
					t.Errorf("the new session id reached a %s entry: %s", e.Kind, js(e))
				}
			}
		})
	}
}

// TestHostScriptRenewNoTarget: a frame with a platform src and no
// data-embedkit-target cannot be renewed: it gives up at once.
func TestHostScriptRenewNoTarget(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", src: "`+harnessPlatform+`/embed/chat?sessionId=x"});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "renew-failed");
h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
await h.advance(60000);
return {t0: 1};
`)
	if got := retries(r.failures(t)); !slices.Equal(got, []float64{-1}) || len(r.of("fetch")) != 0 {
		t.Errorf("retryInMs %v, fetches %d; want to give up without a request", got, len(r.of("fetch")))
	}
}

// TestHostScriptRenewRetryAfter: 429 and 408 are retried like 5xx, and a
// Retry-After in seconds lengthens the wait (up to the 60 s cap).
func TestHostScriptRenewRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		retry        float64
	}{
		{"503 Retry-After 5", `{status: 503, retryAfter: 5}`, 5000},
		{"429 Retry-After 120", `{status: 429, retryAfter: 120}`, 60000},
		{"429", `{status: 429}`, 1000},
		{"408", `{status: 408}`, 1000},
		{"503 Retry-After as a date", `{status: 503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"}`, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, renewScenario(nil, `
h.respond(`+tc.answer+`);
fa.reload().catch(() => {});
await h.flush();
return {t0};
`))
			if got := retries(r.failures(t)); !slices.Equal(got, []float64{tc.retry}) {
				t.Errorf("retryInMs %v, want [%v]", got, tc.retry)
			}
		})
	}
}
