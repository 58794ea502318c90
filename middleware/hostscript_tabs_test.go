package middleware

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Cross-tab logout (hostpage/src/tabs.js), in Node with fake timers (see
// hostscript_node_test.go): a logout in one tab ends the frames of every
// other tab of the origin, through a BroadcastChannel or, without one,
// the storage event.

// tabsPrelude sets up three frames with listeners for the kit's events:
// a ready (its renewal timer armed), b still loading (its first-load
// timer armed) and c renewing after a fatal error, waiting to retry a
// 503 with a reload() pending.
const tabsPrelude = `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", target: "ops"});
const c = h.iframe({id: "c", target: "hr"});
h.load();
const handles = [a, b, c].map((el) => h.win.embedkit.frame(el));
for (const f of handles) for (const n of ["session-ended", "renew-failed"]) h.listen(f, n);
h.ready(a);
h.ready(c);
h.respond({status: 503});
h.event(c, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
await h.advance(10);
let reload = "pending";
handles[2].reload().then(() => { reload = "resolved"; }, (err) => { reload = err.name + " " + err.reason; });
const before = {states: handles.map((f) => f.state), timers: h.timers().length};
const logAt = () => h.log.length;
`

// tabsRun is what a tabs scenario returns.
type tabsRun struct {
	Before struct {
		States []string
		Timers int
	}
	States  []string
	Timers  []float64
	Reload  string
	Fetches int // fetches after the message
}

// tabsEnd returns frames' states, pending timers, the reload() outcome
// and the fetches after mark, one hour after the message.
const tabsEnd = `
const sent = logAt();
await h.flush();
const states = handles.map((f) => f.state);
const timers = h.timers();
await h.advance(60 * 60 * 1000);
return {before, states, timers, reload, fetches: h.log.slice(sent).filter((e) => e.kind === "fetch").length};
`

func TestHostScriptCrossTabLogout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, setup, deliver string
	}{
		{"broadcast channel", ``, `h.broadcast({embedkit: "signed-out", at: h.clock.now});`},
		{"storage fallback", `delete h.win.BroadcastChannel;`,
			`h.storage("embedkit:signed-out", JSON.stringify({embedkit: "signed-out", at: h.clock.now}));`},
		{"storage event with a channel too", ``,
			`h.storage("embedkit:signed-out", JSON.stringify({at: 5, embedkit: "signed-out"}));`},
		{"delivered twice", ``, `h.broadcast({embedkit: "signed-out", at: 1});
h.storage("embedkit:signed-out", JSON.stringify({embedkit: "signed-out", at: 1}));`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, tc.setup+tabsPrelude+tc.deliver+tabsEnd)
			var res tabsRun
			r.result(t, &res)
			if want := []string{"ready", "loading", "renewing"}; !slices.Equal(res.Before.States, want) || res.Before.Timers < 3 {
				t.Fatalf("before the logout: states %v with %d timers, want %v with at least 3", res.Before.States, res.Before.Timers, want)
			}
			if want := []string{"ended", "ended", "ended"}; !slices.Equal(res.States, want) {
				t.Errorf("states after another tab's logout %v, want %v", res.States, want)
			}
			if len(res.Timers) != 0 {
				t.Errorf("timers left after the logout: %v, want none (renewal, first load, retry)", res.Timers)
			}
			if res.Fetches != 0 {
				t.Errorf("%d requests in the hour after the logout, want none", res.Fetches)
			}
			if res.Reload != "EmbedkitReloadError session-ended" {
				t.Errorf("the pending reload() settled %q, want rejected with session-ended", res.Reload)
			}
			for _, f := range []string{"a", "b", "c"} {
				if got := r.heard(f, "session-ended"); len(got) != 1 || js(got[0].Payload) != `{"reason":"logout"}` {
					t.Errorf("frame %s heard session-ended %+v, want once {reason: logout}", f, got)
				}
				var blanked []string
				for _, e := range r.of("navigate") {
					if e.Frame == f {
						blanked = append(blanked, e.Value)
					}
				}
				if len(blanked) == 0 || blanked[0] != "about:blank" {
					t.Errorf("frame %s navigated to %v, want about:blank", f, blanked)
				}
			}
			if n := len(r.of("broadcast")); n != 0 {
				t.Errorf("a tab that heard of a logout announced it again (%d broadcasts)", n)
			}
			for _, e := range r.of("storage") {
				t.Errorf("a tab that heard of a logout wrote to storage: %+v", e)
			}
		})
	}
}

// TestHostScriptCrossTabLogoutIgnoresOthers: only a message of exactly
// the logout shape, on the kit's channel or storage key, ends frames;
// a window message of that shape (any origin can post one) does not.
func TestHostScriptCrossTabLogoutIgnoresOthers(t *testing.T) {
	t.Parallel()
	bad := []struct{ name, deliver string }{
		{"other kind", `h.broadcast({embedkit: "signed-in", at: 1});`},
		{"extra key", `h.broadcast({embedkit: "signed-out", at: 1, sessionId: "x"});`},
		{"no at", `h.broadcast({embedkit: "signed-out"});`},
		{"at a string", `h.broadcast({embedkit: "signed-out", at: "1"});`},
		{"at negative", `h.broadcast({embedkit: "signed-out", at: -1});`},
		{"at fractional", `h.broadcast({embedkit: "signed-out", at: 1.5});`},
		{"at infinite", `h.broadcast({embedkit: "signed-out", at: Infinity});`},
		{"array", `h.broadcast(["signed-out", 1]);`},
		{"string", `h.broadcast("signed-out");`},
		{"null", `h.broadcast(null);`},
		{"a map", `h.broadcast(new Map([["embedkit", "signed-out"], ["at", 1]]));`},
		{"inherited keys", `h.broadcast(Object.create({embedkit: "signed-out", at: 1}));`},
		{"other channel", `h.broadcast({embedkit: "signed-out", at: 1}, "other");`},
		{"storage other key", `h.storage("embedkit", JSON.stringify({embedkit: "signed-out", at: 1}));`},
		{"storage removal", `h.storage("embedkit:signed-out", null);`},
		{"storage not JSON", `h.storage("embedkit:signed-out", "signed-out");`},
		{"storage extra key", `h.storage("embedkit:signed-out", JSON.stringify({embedkit: "signed-out", at: 1, sub: "ana"}));`},
		{"window message from the platform", `h.send(a, {embedkit: "signed-out", at: 1});`},
		{"window message from another origin", `h.send(a, {embedkit: "signed-out", at: 1}, {origin: "https://evil.example"});`},
		{"unmarked form", `const f = h.doc.createElement("form"); h.doc.body.appendChild(f); h.submit(f);`},
		{"marked form, submission cancelled", `const f = h.doc.createElement("form"); f.setAttribute("data-embedkit-logout", ""); h.doc.body.appendChild(f); h.submit(f, true);`},
		{"marked element, not a form", `const f = h.doc.createElement("div"); f.setAttribute("data-embedkit-logout", ""); h.doc.body.appendChild(f); h.submit(f);`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, tabsPrelude+tc.deliver+tabsEnd)
			var res tabsRun
			r.result(t, &res)
			if want := []string{"ready", "loading", "renewing"}; !slices.Equal(res.States, want) {
				t.Errorf("states after %s: %v, want %v (unchanged)", tc.name, res.States, want)
			}
			if res.Fetches == 0 {
				t.Error("no request in the hour after, want the frames still renewing and loading")
			}
			if n := len(r.of("navigate")); n != 0 {
				t.Errorf("%d frames blanked", n)
			}
			for _, f := range []string{"a", "b", "c"} {
				for _, ev := range r.heard(f, "session-ended") {
					if js(ev.Payload) == `{"reason":"logout"}` {
						t.Errorf("frame %s heard session-ended %v", f, js(ev.Payload))
					}
				}
			}
			if n := len(r.of("broadcast")); n != 0 {
				t.Errorf("%d broadcasts, want none", n)
			}
		})
	}
}

// TestHostScriptLogoutAnnounced: what in a tab sets off the broadcast,
// what it carries (nothing but {embedkit, at}) and that the tab's own
// frames end too.
func TestHostScriptLogoutAnnounced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, setup, trigger string
		// ended401 is the frame that saw a 401 itself.
		ended401 string
	}{
		{"logout form submitted", ``, `const f = h.doc.createElement("form");
f.setAttribute("data-embedkit-logout", "");
h.doc.body.appendChild(f);
h.submit(f);
await h.advance(0);`, ""},
		{"signedOut()", ``, `h.win.embedkit.signedOut();`, ""},
		{"signedOut() without a BroadcastChannel", `delete h.win.BroadcastChannel;`, `h.win.embedkit.signedOut();`, ""},
		{"a renewal answered 401", ``, `h.respond({status: 401});
await h.advance(2000);`, "c"},
		{"a renewal in place answered 401", ``, `h.respond({status: 401});
h.event(a, "cube:event:session-expiring", {});
await h.advance(10);`, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, tc.setup+tabsPrelude+tc.trigger+tabsEnd)
			var res tabsRun
			r.result(t, &res)
			if want := []string{"ended", "ended", "ended"}; !slices.Equal(res.States, want) {
				t.Errorf("this tab's states %v, want %v", res.States, want)
			}
			if len(res.Timers) != 0 {
				t.Errorf("timers left: %v", res.Timers)
			}
			var carried []string
			for _, e := range r.of("broadcast") {
				carried = append(carried, e.Value)
			}
			for _, e := range r.of("storage") {
				if e.Type == "set" {
					carried = append(carried, e.Value)
				}
			}
			want := 2
			if strings.Contains(tc.setup, "BroadcastChannel") {
				want = 1
			}
			if len(carried) != want {
				t.Errorf("announced %d times (%q), want %d (channel and storage)", len(carried), carried, want)
			}
			for _, c := range carried {
				var m map[string]any
				if err := json.Unmarshal([]byte(c), &m); err != nil {
					t.Fatal(err)
				}
				if len(m) != 2 || m["embedkit"] != "signed-out" {
					t.Errorf("announcement %s, want exactly {embedkit: signed-out, at}", c)
				}
				if _, ok := m["at"].(float64); !ok {
					t.Errorf("announcement %s has no numeric at", c)
				}
			}
			st := r.of("storage")
			if len(st) != 2 || st[0].Type != "set" || st[1].Type != "remove" || st[0].Origin != "embedkit:signed-out" {
				t.Errorf("storage writes %+v, want the key set and removed at once", st)
			}
			for _, f := range []string{"a", "b", "c"} {
				got := r.heard(f, "session-ended")
				want := `{"reason":"logout"}`
				if f == tc.ended401 {
					want = `{"status":401}`
				}
				if len(got) != 1 || js(got[0].Payload) != want {
					var ps []string
					for _, g := range got {
						ps = append(ps, js(g.Payload))
					}
					t.Errorf("frame %s heard session-ended %v, want once %s", f, ps, want)
				}
			}
		})
	}
}

// TestHostScriptFirstLoad401StaysInItsTab: a 401 to a first load's probe
// ends that frame only (its src may not be the kit's endpoint); only a
// renewal's 401 signs every tab out (TestHostScriptLogoutAnnounced).
func TestHostScriptFirstLoad401StaysInItsTab(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", src: "/elsewhere/401"});
h.load();
const fa = h.win.embedkit.frame(a), fb = h.win.embedkit.frame(b);
h.listen(fa, "session-ended");
h.listen(fb, "session-ended");
h.ready(a);
h.respond({status: 401});
await h.advance(31000);
return [fa.state, fb.state];
`)
	var states []string
	r.result(t, &states)
	if want := []string{"ready", "ended"}; !slices.Equal(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
	if got := r.heard("b", "session-ended"); len(got) != 1 || js(got[0].Payload) != `{"status":401}` {
		t.Errorf("frame b heard session-ended %+v, want once {status: 401}", got)
	}
	if got := r.heard("a", "session-ended"); len(got) != 0 {
		t.Errorf("frame a heard session-ended %+v, want nothing", got)
	}
	if n := len(r.of("broadcast")) + len(r.of("storage")); n != 0 {
		t.Errorf("a first load's 401 was announced to the other tabs (%d writes)", n)
	}
	if n := len(r.of("navigate")); n != 0 {
		t.Errorf("%d frames blanked", n)
	}
}

// TestHostScriptLogoutEndsAMove: a logout while a frame moves to another
// target in place rejects the move (reason session-ended) and leaves no
// timer of it: past the move's timeout, no new frame is loaded and
// nothing is fetched.
func TestHostScriptLogoutEndsAMove(t *testing.T) {
	t.Parallel()
	r := runHostOf(t, switchTargets, switchPrelude+`
showing(fa.show("ops"));
await h.flush();
h.broadcast({embedkit: "signed-out", at: h.clock.now});
await h.flush();
await h.advance(60000);
return {state: fa.state};
`)
	var res struct{ State string }
	r.result(t, &res)
	if res.State != "ended" {
		t.Errorf("state %q, want ended", res.State)
	}
	if got := r.shown(); len(got) != 1 || got[0] != "rejected:session-ended" {
		t.Errorf("show() %v, want rejected with session-ended", got)
	}
	if n := len(r.of("src")); n != 1 {
		t.Errorf("src set %d times, want once (the first load): the move's timer loaded a new frame after the logout", n)
	}
	if f := r.of("fetch"); len(f) != 0 {
		t.Errorf("fetches after the logout: %s", js(f))
	}
}
