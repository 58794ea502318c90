package middleware

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The host script's frame state, queued actions and their promises, the
// first-load timeout, debug mode and the host's view of its settings, in
// Node against the served script (see hostscript_node_test.go). The same
// behaviours run in Chromium against both deliveries in
// examples/webapp/e2e (TestHostPageBehaviour).

// TestHostScriptFrameState: state and the iframe's data-embedkit-state and
// aria-busy through loading, ready, renewing (reload), ready, and ended
// when the probe says the viewer signed out.
func TestHostScriptFrameState(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
const seen = [];
const look = () => seen.push([fa.state, a.getAttribute("data-embedkit-state"), a.getAttribute("aria-busy")].join(" "));
look();
h.ready(a);
look();
h.respond({status: 200});
const p = fa.reload();
look();
await h.flush();
h.ready(a);
await p;
look();
h.respond({status: 401});
fa.reload().catch(() => {});
await h.advance(1000);
look();
return seen;
`)
	var seen []string
	r.result(t, &seen)
	want := []string{"loading loading true", "ready ready ", "renewing renewing true", "ready ready ", "ended ended "}
	if !slices.Equal(seen, want) {
		t.Errorf("state, data-embedkit-state, aria-busy: %q, want %q", seen, want)
	}
}

// TestHostScriptReadyLateListener: frame.ready resolves with the ready
// event; a ready listener added after ready gets that event once, at
// once; a reload replaces frame.ready with a new promise.
func TestHostScriptReadyLateListener(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
const first = fa.ready;
let early = "pending";
first.then(() => { early = "resolved"; });
await h.flush();
const before = early;
h.ready(a, {timestamp: 111});
const got = await first;
h.listen(fa, "ready", "late");
const stop = fa.on("ready", () => h.log.push({kind: "mark", value: "removed listener ran"}));
stop();
await h.flush();
h.respond({status: 200});
const p = fa.reload();
const second = fa.ready;
await h.flush();
h.ready(a, {timestamp: 222});
const again = await second;
return {before, got: got.timestamp, same: first === second, again: again.timestamp, stillFirst: (await first).timestamp};
`)
	var res struct {
		Before     string
		Got, Again float64
		StillFirst float64
		Same       bool
	}
	r.result(t, &res)
	if res.Before != "pending" || res.Got != 111 || res.StillFirst != 111 {
		t.Errorf("frame.ready before ready %s, resolved with timestamp %v; want pending, then 111", res.Before, res.Got)
	}
	if res.Same || res.Again != 222 {
		t.Errorf("after reload frame.ready is the same promise %t, resolved with %v; want a new one with 222", res.Same, res.Again)
	}
	late := r.heard("a", "late")
	if len(late) != 2 || late[0].Timestamp != 111 || late[1].Timestamp != 222 {
		t.Errorf("the late listener heard %s, want the last ready (111) at once, then the next (222)", js(late))
	}
	if len(r.of("mark")) != 0 {
		t.Error("a listener removed before its replay ran")
	}
}

// TestHostScriptQueuedActions: actions before ready are not sent; at
// ready they follow the replayed settings, in order; a setting's promise
// resolves on delivery, navigate's on the view of its path, refresh's on
// the next dashboard-loaded; a frame that ends rejects what is pending.
func TestHostScriptQueuedActions(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
const done = [];
const track = (name, p) => p.then((v) => done.push(name + " " + (v && v.name ? v.name : "ok")), (e) => done.push(name + " " + e.name + " " + e.reason));
track("locale", fa.setLocale("de-DE"));
track("navigate", fa.navigate("/embed/dashboard/regional-performance"));
track("refresh", fa.refresh());
track("page locale", h.win.embedkit.setLocale("fr-FR"));
await h.flush();
const beforeReady = h.of("post").length;
const pendingBefore = done.length;
h.ready(a);
await h.flush();
const afterReady = done.slice();
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/other"});
await h.flush();
const afterOtherView = done.length;
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/regional-performance"});
h.event(a, "cube:event:dashboard-loaded", {publicId: "regional-performance"});
await h.flush();
track("pending navigate", fa.navigate("/embed/dashboard/sales"));
h.respond({status: 401});
fa.reload().catch(() => {});
await h.flush();
track("after end", fa.setLocale("ja-JP"));
await h.flush();
return {beforeReady, pendingBefore, afterReady, afterOtherView, done};
`)
	var res struct {
		BeforeReady, PendingBefore, AfterOtherView int
		AfterReady, Done                           []string
	}
	r.result(t, &res)
	if res.BeforeReady != 0 || res.PendingBefore != 0 {
		t.Errorf("before ready: %d posts, %d settled promises; want none", res.BeforeReady, res.PendingBefore)
	}
	if got, want := r.postTypes("a"), []string{"cube:action:set-locale", "cube:action:navigate", "cube:action:refresh", "cube:action:navigate"}; !slices.Equal(got, want) {
		t.Errorf("posted %v, want %v (the latest locale once, then the queued actions)", got, want)
	}
	if p := r.posts("a"); len(p) > 0 && js(p[0].Msg.Payload) != `{"locale":"fr-FR"}` {
		t.Errorf("the locale sent at ready is %s, want the latest, fr-FR", js(p[0].Msg.Payload))
	}
	slices.Sort(res.AfterReady)
	if want := []string{"locale ok", "page locale ok"}; !slices.Equal(res.AfterReady, want) {
		t.Errorf("settled at ready %v, want %v", res.AfterReady, want)
	}
	if res.AfterOtherView != 2 {
		t.Errorf("a view of another path settled navigate (%d settled)", res.AfterOtherView)
	}
	want := []string{"navigate view", "refresh dashboard-loaded",
		"pending navigate EmbedkitFrameError session-ended", "after end EmbedkitFrameError session-ended"}
	if got := res.Done[2:]; !slices.Equal(got, want) {
		t.Errorf("then %v, want %v", got, want)
	}
}

// TestHostScriptPayloadFrozen: listeners get frozen null-prototype copies:
// a listener that changes the payload of a fatal error changes neither
// the kit's renewal decision nor what the next listener sees.
func TestHostScriptPayloadFrozen(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
h.ready(a);
const out = {};
fa.on("error", (e) => {
  out.frozen = Object.isFrozen(e) && Object.isFrozen(e.payload) && Object.isFrozen(e.payload.detail);
  out.proto = Object.getPrototypeOf(e.payload) === null;
  try { e.payload.context = "embed-render"; } catch (err) { /* strict mode throws */ }
  try { e.payload.detail.x = 2; } catch (err) { /* strict mode throws */ }
  out.kept = e.payload.context + " " + e.payload.detail.x;
});
fa.on("error", (e) => { out.next = e.payload.context; });
h.respond({status: 200});
h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session", detail: {x: 1}});
await h.flush();
out.state = fa.state;
return out;
`)
	var res struct {
		Frozen, Proto bool
		Kept, Next    string
		State         string
	}
	r.result(t, &res)
	if !res.Frozen || !res.Proto || res.Kept != "embed-session 1" {
		t.Errorf("payload frozen %t, null prototype %t, after writes %q", res.Frozen, res.Proto, res.Kept)
	}
	if res.Next != "embed-session" {
		t.Errorf("the next listener saw context %q", res.Next)
	}
	if res.State != "renewing" || len(r.of("fetch")) != 1 {
		t.Errorf("state %s, %d probes: the fatal error must still renew the frame", res.State, len(r.of("fetch")))
	}
}

// TestHostScriptFirstLoadTimeout: a frame not ready within 30 s is probed
// with HEAD, and load-failed names the reason; its state, frame.ready and
// a pending action say so too, and a console warning names the reason.
func TestHostScriptFirstLoadTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, respond, reason, state string
		status                       float64
	}{
		{"signed out", `{status: 401}`, "signed-out", "ended", 401},
		{"login redirect", `{opaque: true}`, "signed-out", "ended", 401},
		{"refused origin", `{status: 403}`, "refused-origin", "failed", 403},
		{"platform unavailable", `{status: 503}`, "unavailable", "failed", 503},
		{"network", `{network: true}`, "unavailable", "failed", 0},
		{"unknown target", `{status: 404}`, "rejected", "failed", 404},
		{"blocked embed", `{status: 200}`, "never-ready", "failed", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "load-failed");
h.listen(fa, "session-ended");
let ready = "pending", action = "pending";
fa.ready.catch((e) => { ready = e.name + " " + e.reason; });
fa.refresh().catch((e) => { action = e.reason; });
await h.advance(29999);
const early = h.of("fetch").length;
h.respond(`+tc.respond+`);
await h.advance(1);
await h.flush();
return {early, ready, action, state: fa.state, attr: a.getAttribute("data-embedkit-state")};
`)
			var res struct {
				Early                      int
				Ready, Action, State, Attr string
			}
			r.result(t, &res)
			if res.Early != 0 {
				t.Errorf("%d fetches before the timeout", res.Early)
			}
			if f := r.of("fetch"); len(f) != 1 || f[0].Method != "HEAD" || f[0].URL != harnessHere+"/embed/frame/sales" {
				t.Errorf("fetches %s, want one HEAD probe of the frame endpoint", js(f))
			}
			heard := r.heard("a", "load-failed")
			if len(heard) != 1 {
				t.Fatalf("load-failed heard %s, want once", js(heard))
			}
			p, _ := heard[0].Payload.(map[string]any)
			status, _ := p["status"].(float64)
			if p["reason"] != tc.reason || status != tc.status || !strings.Contains(p["message"].(string), "30 s") {
				t.Errorf("load-failed %s, want reason %s, status %v", js(p), tc.reason, tc.status)
			}
			if res.State != tc.state || res.Attr != tc.state || res.Ready != "EmbedkitFrameError "+tc.reason || res.Action != tc.reason {
				t.Errorf("state %s (attribute %s), ready %q, refresh %q; want %s and rejections with %s", res.State, res.Attr, res.Ready, res.Action, tc.state, tc.reason)
			}
			if ended := len(r.heard("a", "session-ended")); (tc.reason == "signed-out") != (ended == 1) {
				t.Errorf("session-ended heard %d times", ended)
			}
			warned := r.of("console")
			if len(warned) != 1 || warned[0].As != "warn" || !strings.Contains(warned[0].Message, "("+tc.reason+")") || strings.Contains(warned[0].Message, "/embed/frame") {
				t.Errorf("console %s, want one warning naming the reason and no URL", js(warned))
			}
		})
	}
}

// TestHostScriptFirstLoadReady: a frame ready in time is never probed,
// and one ready after its timeout is ready again.
func TestHostScriptFirstLoadReady(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", attrs: {"data-embedkit-ready-timeout": "60000"}});
const b = h.iframe({id: "b", target: "chat"});
h.load();
const fa = h.win.embedkit.frame(a), fb = h.win.embedkit.frame(b);
await h.advance(50000);
h.ready(a);
h.respond({status: 200});
await h.advance(20000);
const late = fb.state;
h.ready(b);
return {a: fa.state, late, b: fb.state};
`)
	var res struct{ A, Late, B string }
	r.result(t, &res)
	if res.A != "ready" || res.Late != "failed" || res.B != "ready" {
		t.Errorf("states %+v, want a ready (its own 60 s), b failed then ready", res)
	}
	if f := r.of("fetch"); len(f) != 1 || !strings.HasSuffix(f[0].URL, "/embed/frame/chat") {
		t.Errorf("fetches %s, want b's probe only", js(f))
	}
}

// TestHostScriptDebug: in debug mode every message is logged, accepted or
// dropped with its reason; without it nothing is.
func TestHostScriptDebug(t *testing.T) {
	t.Parallel()
	drill := `"cube:event:drilldown", {member: "sales.region", value: "forged"}`
	cases := []struct{ send, want string }{
		{`h.event(a, ` + drill + `, {opts: {origin: "https://evil.example"}});`, `dropped (wrong origin): "cube:event:drilldown" from "https://evil.example", frame "sales"`},
		{`h.event(a, ` + drill + `, {source: "someone-else"});`, `dropped (wrong source)`},
		{`h.event(a, ` + drill + `, {direction: "action"});`, `dropped (wrong direction)`},
		{`h.event(a, "cube:event:content-height", {});`, `dropped (unknown type): "cube:event:content-height"`},
		{`h.event(c, ` + drill + `);`, `dropped (unmanaged frame): "cube:event:drilldown" from "https://acme.example.com", no managed frame`},
		{`h.event(a, ` + drill + `);`, `accepted: "cube:event:drilldown" from "https://acme.example.com", frame "sales"`},
	}
	var sends []string
	for _, c := range cases {
		sends = append(sends, c.send)
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const c = h.iframe({id: "c", embedkit: false});
h.load();
h.event(a, "cube:event:content-height", {});
h.win.embedkit.debug(true);
`+strings.Join(sends, "\n")+`
h.win.embedkit.debug(false);
h.event(a, "cube:event:content-height", {});
a.setAttribute("data-embedkit-debug", "");
h.event(a, "cube:event:content-height", {});
`)
	logged := r.of("console")
	if len(logged) != len(cases)+1 {
		t.Fatalf("console %s, want %d lines (debug mode only)", js(logged), len(cases)+1)
	}
	for i, c := range cases {
		if logged[i].As != "debug" || !strings.Contains(logged[i].Message, c.want) {
			t.Errorf("%s logged %q, want %q", c.send, logged[i].Message, c.want)
		}
		if strings.Contains(logged[i].Message, "forged") {
			t.Errorf("the log names the payload: %q", logged[i].Message)
		}
	}
	if last := logged[len(logged)-1]; !strings.Contains(last.Message, "dropped (unknown type)") {
		t.Errorf("data-embedkit-debug on the frame logged %q", last.Message)
	}
}

// TestHostScriptVersionMismatch: a frame endpoint answering another
// Embedkit-Version makes one console warning and a version-mismatch event.
func TestHostScriptVersionMismatch(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "version-mismatch");
h.ready(a);
h.respond({status: 200, headers: {"Embedkit-Version": "`+HostScriptVersion+`"}});
const o = fa.reload();
await h.flush();
h.ready(a);
await o;
await h.advance(1000);
h.respond({status: 200, headers: {"Embedkit-Version": "9.9.9"}});
const p = fa.reload();
await h.flush();
h.ready(a);
await p;
await h.advance(1000);
h.respond({status: 200, headers: {"Embedkit-Version": "9.9.9"}});
const q = fa.reload();
await h.flush();
h.ready(a);
await q;
`)
	heard := r.heard("a", "version-mismatch")
	if len(heard) != 1 || js(heard[0].Payload) != `{"kitVersion":"9.9.9","packageVersion":"`+HostScriptVersion+`"}` {
		t.Errorf("version-mismatch heard %s, want once with both versions", js(heard))
	}
	if w := r.of("console"); len(w) != 1 || !strings.Contains(w[0].Message, "9.9.9") {
		t.Errorf("console %s, want one warning naming the kit's version", js(w))
	}
}

// TestHostScriptHostView: filters(), settings() and view give what the
// host set and the last view payload, as frozen copies.
func TestHostScriptHostView(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const k = h.win.embedkit, fa = k.frame(a);
const noView = fa.view;
k.setLocale("de-DE");
const theme = {primaryColor: "#0b5fff"};
fa.setTheme(theme);
theme.primaryColor = "#000000";
fa.setColorScheme("dark");
const regions = ["EMEA", "AMER"];
fa.setFilter("sales.region", regions);
regions.push("APAC");
fa.setFilter("orders.status", "completed");
fa.setFilter("orders.status", null);
h.ready(a);
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/sales", title: "Sales"});
const f = fa.filters();
try { f["sales.region"] = "x"; } catch (e) { /* strict mode throws */ }
return {noView, filters: fa.filters(), settings: fa.settings(), view: fa.view, frozen: Object.isFrozen(fa.view) && Object.isFrozen(f)};
`)
	var res struct {
		NoView   any
		Filters  map[string]any
		Settings map[string]any
		View     map[string]any
		Frozen   bool
	}
	r.result(t, &res)
	if res.NoView != nil {
		t.Errorf("view before any view event %v, want null", res.NoView)
	}
	if got := js(res.Filters); got != `{"sales.region":["EMEA","AMER"]}` {
		t.Errorf("filters() %s, want the set filter (a copy) and not the cleared one", got)
	}
	if got := js(res.Settings); got != `{"colorScheme":"dark","locale":"de-DE","theme":{"primaryColor":"#0b5fff"}}` {
		t.Errorf("settings() %s", got)
	}
	if res.View["title"] != "Sales" || !res.Frozen || js(res.Filters) != `{"sales.region":["EMEA","AMER"]}` {
		t.Errorf("view %v, view and filters() frozen %t, filters() after a write %s", res.View, res.Frozen, js(res.Filters))
	}
}

// TestHostScriptSourceRefusals: <embedkit-frame src> takes only a
// same-origin path under the frame endpoint, and a session URL of
// another origin is never fetched.
func TestHostScriptSourceRefusals(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"javascript:alert(1)", "https://evil.example/embed/frame/sales", "//evil.example/embed/frame/sales",
		"/logout", "/embed/frame/../logout", "/embed/frame/a%2Fb", "/embed/frame/", "data:text/html,x", " /embed/frame/sales"} {
		t.Run(src, func(t *testing.T) {
			t.Parallel()
			r := runHostAllowErrors(t, `
h.load();
const el = h.doc.createElement("embedkit-frame");
el.setAttribute("target", "sales");
el.setAttribute("src", `+js(src)+`);
h.doc.body.appendChild(el);
return el.children[0].getAttribute("src");
`)
			var got *string
			r.result(t, &got)
			if got != nil {
				t.Errorf("iframe src %q", *got)
			}
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "src must be a same-origin path") {
				t.Errorf("reported %q, want one error naming the rule", r.Errors)
			}
		})
	}
	t.Run("session url of another origin", func(t *testing.T) {
		t.Parallel()
		r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", src: h.PLATFORM + "/embed/dashboard/sales-overview?session=x",
  attrs: {"data-embedkit-session-url": "https://evil.example/embed/session"}});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "renew-failed");
h.ready(a);
return await fa.reload().then(() => "resolved", (e) => e.reason);
`)
		var reason string
		r.result(t, &reason)
		if n := len(r.of("fetch")); n != 0 || reason != "renew-failed" {
			t.Errorf("%d fetches, reload %q; want none and renew-failed", n, reason)
		}
		if f := r.heard("a", "renew-failed"); len(f) != 1 || !strings.Contains(js(f[0].Payload), "same-origin") {
			t.Errorf("renew-failed %s", js(f))
		}
	})
}

// TestHostScriptRelease: release() stops every timer and probe of a frame,
// rejects what waits on it, drops its listeners and makes its handle stop
// working; a frame left in the page is managed again as new.
func TestHostScriptRelease(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", target: "chat"});
h.load();
const k = h.win.embedkit, fa = k.frame(a), fb = k.frame(b);
h.listen(fa, "*", "old");
h.ready(a);
const settled = [];
fa.refresh().catch((e) => settled.push("refresh " + e.reason));
fa.reload().catch((e) => settled.push("reload " + e.reason));
fb.ready.catch((e) => settled.push("ready " + e.reason));
const before = h.timers().length;
await h.advance(1000); // a's renewal probes; b is still loading
const released = [k.release(fa), k.release("#b"), k.release(fa)];
const attr = String(b.getAttribute("data-embedkit-state")) + " " + String(b.getAttribute("aria-busy"));
await h.flush();
const after = h.timers();
h.event(a, "cube:event:drilldown", {member: "sales.region", value: "EMEA"});
let handle = "";
try { fa.refresh(); } catch (e) { handle = e.name; }
const again = k.frame(a);
return {before, released, after, settled, handle, fresh: again !== fa && again.state === "loading",
  attr};
`)
	var res struct {
		Before       int
		Released     []bool
		After        []float64
		Settled      []string
		Handle, Attr string
		Fresh        bool
	}
	r.result(t, &res)
	if res.Before == 0 {
		t.Fatal("no timers before release; the test checks nothing")
	}
	if !slices.Equal(res.Released, []bool{true, true, false}) {
		t.Errorf("release() reported %v, want true, true, then false", res.Released)
	}
	if len(res.After) != 0 {
		t.Errorf("timers left after release: %v", res.After)
	}
	slices.Sort(res.Settled)
	if want := []string{"ready released", "refresh released", "reload released"}; !slices.Equal(res.Settled, want) {
		t.Errorf("settled %v, want %v", res.Settled, want)
	}
	if n := len(r.of("abort")); n != 1 {
		t.Errorf("%d aborted fetches, want the renewal's probe", n)
	}
	for _, e := range r.heard("a", "old") {
		if e.Name == "drilldown" {
			t.Error("a listener of the released frame heard a later event")
		}
	}
	if res.Handle != "TypeError" || !res.Fresh || res.Attr != "null null" {
		t.Errorf("old handle threw %q; frame() gives a new handle: %t; b's state attribute %q", res.Handle, res.Fresh, res.Attr)
	}
}

// TestHostPageModuleInNode imports the package's ES module in Node, with
// no DOM: importing touches nothing, a call before configure says so,
// configure checks its settings, and a kit of another version is warned
// about once.
func TestHostPageModuleInNode(t *testing.T) {
	t.Parallel()
	node := nodePath(t)
	mod, err := filepath.Abs(filepath.Join("..", "hostpage", "src", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	script := `
const warnings = [];
console.warn = (m) => warnings.push(String(m));
const m = await import(` + js("file://"+mod) + `);
const out = {names: Object.keys(m).sort(), window: typeof window, version: m.version};
try { m.frame("#sales"); } catch (e) { out.unconfigured = e.message; }
try { m.configure({platformOrigin: "https://acme.example.com/path"}); } catch (e) { out.badOrigin = e.name + ": " + e.message; }
try { m.configure({platformOrigin: "https://acme.example.com", sessionURL: "https://evil.example/s"}); } catch (e) { out.badSession = e.name + ": " + e.message; }
m.configure({platformOrigin: "https://acme.example.com", version: "0.0.0-other"});
m.configure({platformOrigin: "https://acme.example.com", version: "0.0.0-other"});
try { m.configure({platformOrigin: "https://other.example"}); } catch (e) { out.second = e.message; }
out.warnings = warnings;
process.stdout.write(JSON.stringify(out));
`
	file := filepath.Join(t.TempDir(), "import.mjs")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, file).Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var res struct {
		Names                                       []string
		Window, Version                             string
		Unconfigured, BadOrigin, BadSession, Second string
		Warnings                                    []string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{"configure", "configured", "debug", "frame", "frames", "refresh", "release", "setColorScheme", "setFilter", "setLocale", "setTheme", "setTimezone", "signedOut", "version"}
	if !slices.Equal(res.Names, want) || res.Window != "undefined" || res.Version != HostScriptVersion {
		t.Errorf("exports %v (window %s, version %s), want %v and version %s", res.Names, res.Window, res.Version, want, HostScriptVersion)
	}
	if !strings.Contains(res.Unconfigured, "not configured") {
		t.Errorf("frame() before configure: %q", res.Unconfigured)
	}
	if !strings.Contains(res.BadOrigin, "TypeError: embedkit: configure(settings): settings.platformOrigin must be") ||
		!strings.Contains(res.BadSession, "settings.sessionURL must be") {
		t.Errorf("bad settings: %q, %q", res.BadOrigin, res.BadSession)
	}
	if !strings.Contains(res.Second, "already configured") {
		t.Errorf("configure with other settings: %q", res.Second)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "0.0.0-other") || !strings.Contains(res.Warnings[0], HostScriptVersion) {
		t.Errorf("warnings %q, want one naming both versions", res.Warnings)
	}
}
