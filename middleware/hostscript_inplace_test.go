package middleware

import (
	"slices"
	"strings"
	"testing"
)

// Session renewal in place by the host script (platform-notes.md,
// "Session renewal in place"), in Node with fake timers and a scripted
// fetch: on cube:event:session-expiring or -expired, or the tab becoming
// visible near the token's end, the script gets a new session from the
// JSON endpoint and posts cube:action:set-session {sessionId}; the frame
// keeps its document. No event confirms set-session: the renewal counts
// as done 5 s after the post unless the frame reports an error first.

// inPlacePrelude sets up frame a (src /embed/frame/sales, target sales)
// ready, with a locale and a filter set through the script and listeners
// for the kit's events, at clock t0 = h.clock.now; sessionOK is a JSON
// endpoint answer.
const inPlacePrelude = `
const sessionOK = {status: 200, json: {url: h.PLATFORM + "/embed/dashboard/sales-overview?session=fresh", sessionId: "fresh-id-1", expiresAt: "2030-01-01T00:05:00Z"}};
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
for (const n of ["ready", "session-renewed", "session-ended", "renew-failed", "error"]) h.listen(fa, n);
fa.setLocale("de-DE");
fa.setFilter("sales.region", "EMEA");
h.ready(a);
const t0 = h.clock.now;
`

const (
	setSession   = "cube:action:set-session"
	hoursMs      = 3600 * 1000
	fallbackMs   = 23*hoursMs - 5*60*1000
	settleWindow = 5000
)

// sessionPosts returns the JSON endpoint requests of a run.
func (r *hostRun) sessionPosts() []hostEntry {
	var out []hostEntry
	for _, f := range r.of("fetch") {
		if f.Method == "POST" {
			out = append(out, f)
		}
	}
	return out
}

// setSessions returns the set-session posts to frame.
func (r *hostRun) setSessions(frame string) []hostEntry {
	var out []hostEntry
	for _, p := range r.posts(frame) {
		if p.Msg.Type == setSession {
			out = append(out, p)
		}
	}
	return out
}

// TestHostScriptRenewInPlace: each trigger renews frame a in place: one
// POST to the JSON endpoint with the frame's target, then set-session
// with the answer's sessionId, in the envelope, to the platform origin;
// the frame's src is never set again, its state stays ready, nothing it
// was sent is sent again, and 5 s later session-renewed {reason, inPlace:
// true} with the fallback timer keyed to the post.
func TestHostScriptRenewInPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, trigger, reason string
	}{
		{"session-expiring", `h.event(a, "cube:event:session-expiring", {});`, "expiring"},
		{"session-expired", `h.event(a, "cube:event:session-expired", {});`, "expired"},
		{"payload fields are not read", `h.event(a, "cube:event:session-expiring", {expiresAt: 1, sessionId: "forged"});`, "expiring"},
		// The platform showed it renews in place once; 23 h later the tab,
		// asleep meanwhile, becomes visible near the token's end.
		{"visible near the end", `
h.event(a, "cube:event:session-expiring", {});
await h.advance(10000);
h.log.push({kind: "mark"});
h.respond({status: 200, json: {url: h.PLATFORM + "/embed/dashboard/x?session=y", sessionId: "fresh-id-2", expiresAt: "2030-01-01T00:05:00Z"}});
h.sleep(23 * 3600 * 1000 - 10 * 60 * 1000);
h.doc.visibilityState = "visible";
h.fire("visibilitychange", "document");`, "expiring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, inPlacePrelude+`
h.respond(sessionOK);
`+tc.trigger+`
await h.flush();
const mark = h.log.findIndex((e) => e.kind === "mark");
const tPost = (h.log.filter((e) => e.kind === "post" && e.msg.type === "cube:action:set-session").pop() || {}).at;
const during = {state: fa.state, attr: a.getAttribute("data-embedkit-state"), busy: a.getAttribute("aria-busy")};
await h.advance(4999);
const early = h.log.filter((e) => e.kind === "on" && e.as === "session-renewed").length;
await h.advance(1);
return {t0, tPost, mark, during, early, state: fa.state, timers: h.timers(), settings: fa.settings(), filters: fa.filters()};
`)
			var res struct {
				T0, TPost   float64
				Mark, Early int
				During      struct {
					State, Attr string
					Busy        *string
				}
				State    string
				Timers   []float64
				Settings map[string]any
				Filters  map[string]any
			}
			r.result(t, &res)
			posts := r.sessionPosts()
			sets := r.setSessions("a")
			want := "fresh-id-1"
			if tc.name == "visible near the end" {
				if len(posts) != 2 || len(sets) != 2 {
					t.Fatalf("JSON endpoint requests %d, set-session posts %d; want 2 and 2 (the event, then the visibility)", len(posts), len(sets))
				}
				posts, sets, want = posts[1:], sets[1:], "fresh-id-2"
			}
			if len(posts) != 1 || len(sets) != 1 {
				t.Fatalf("JSON endpoint requests %s, set-session posts %s; want one each", js(posts), js(sets))
			}
			p := posts[0]
			if p.URL != "/embed/session" || p.Credentials != "same-origin" || p.Redirect != "manual" || p.Cache != "no-store" ||
				p.Body == nil || *p.Body != `{"target":"sales"}` {
				t.Errorf("request %s, want POST /embed/session {\"target\":\"sales\"}, same-origin, redirect manual, no-store", js(p))
			}
			s := sets[0]
			if s.Origin != harnessPlatform || s.Msg.Source != "cube-embed" || s.Msg.Direction != "action" ||
				js(s.Msg.Payload) != `{"sessionId":"`+want+`"}` || !slices.Equal(s.Keys, []string{"source", "direction", "type", "payload", "timestamp"}) {
				t.Errorf("set-session %s, want the envelope with {sessionId: %q} to %s", js(s), want, harnessPlatform)
			}
			if n := len(r.of("src")); n != 1 {
				t.Errorf("src set %d times, want once (the first load): the frame keeps its document", n)
			}
			if res.During.State != "ready" || res.During.Attr != "ready" || res.During.Busy != nil {
				t.Errorf("while renewing in place: %+v, want state ready, not busy", res.During)
			}
			if res.Early != 0 && tc.name != "visible near the end" {
				t.Errorf("session-renewed before the settle window passed")
			}
			renewed := r.payloads("session-renewed")
			wantRenewed := `{"inPlace":true,"reason":"` + tc.reason + `"}`
			if len(renewed) == 0 || renewed[len(renewed)-1] != wantRenewed || len(renewed) != len(r.setSessions("a")) {
				t.Errorf("session-renewed %v, want one %s per set-session", renewed, wantRenewed)
			}
			// Nothing is sent again: the settings live on in the same page.
			var types []string
			for _, p := range r.posts("a") {
				types = append(types, p.Msg.Type)
			}
			if want := []string{"cube:action:set-locale", "cube:action:set-filter"}; !slices.Equal(types[:2], want) ||
				slices.ContainsFunc(types[2:], func(s string) bool { return s != setSession }) {
				t.Errorf("posts %v, want the settings once (at ready), then set-session only", types)
			}
			if res.Settings["locale"] != "de-DE" || res.Filters["sales.region"] != "EMEA" {
				t.Errorf("settings %v filters %v, want the host's kept", res.Settings, res.Filters)
			}
			if res.State != "ready" {
				t.Errorf("state %q after the renewal, want ready", res.State)
			}
			// The fallback timer is keyed to the post: the new id is
			// exchanged after it, never before.
			if len(res.Timers) != 1 || res.Timers[0] != fallbackMs-settleWindow {
				t.Errorf("timers %v, want the fallback %v ms after set-session only", res.Timers, fallbackMs)
			}
			if len(r.heard("a", "renew-failed")) != 0 || len(r.heard("a", "session-ended")) != 0 {
				t.Errorf("renew-failed %v session-ended %v, want none", r.payloads("renew-failed"), r.payloads("session-ended"))
			}
		})
	}
}

// TestHostScriptRenewInPlaceOneMint: both events (in either order, and
// again while the first renewal is in flight), the tab becoming visible
// and reload() make one renewal: one request to the JSON endpoint, one
// set-session, one session-renewed, and reload() resolves with the
// frame's ready event. An event for the old token that arrives late,
// after the renewal, mints nothing.
func TestHostScriptRenewInPlaceOneMint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, first, second string }{
		{"expired then expiring", "session-expired", "session-expiring"},
		{"expiring then expired", "session-expiring", "session-expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, inPlacePrelude+`
const readyEv = await fa.ready;
h.respond(sessionOK);
h.event(a, "cube:event:`+tc.first+`", {});
h.event(a, "cube:event:`+tc.second+`", {});
const reloaded = fa.reload().then((e) => ({name: e.name, same: e === readyEv}), (e) => ({error: e.reason}));
h.sleep(23 * 3600 * 1000);
h.fire("visibilitychange", "document");
await h.advance(100);
h.event(a, "cube:event:`+tc.first+`", {});
h.event(a, "cube:event:`+tc.second+`", {});
fa.reload();
h.fire("visibilitychange", "document");
await h.advance(20000);
// Late, for the old token.
h.event(a, "cube:event:`+tc.second+`", {});
h.fire("visibilitychange", "document");
await h.advance(60000);
return {reloaded: await reloaded};
`)
			var res struct {
				Reloaded struct {
					Name  string
					Same  bool
					Error string
				}
			}
			r.result(t, &res)
			if n, m := len(r.sessionPosts()), len(r.setSessions("a")); n != 1 || m != 1 {
				t.Errorf("JSON endpoint requests %d, set-session posts %d; want one of each", n, m)
			}
			if n := len(r.of("fetch")); n != 1 {
				t.Errorf("fetches %s, want only the one POST (no HEAD probe, no reload)", js(r.of("fetch")))
			}
			if n := len(r.of("src")); n != 1 {
				t.Errorf("src set %d times, want once", n)
			}
			want := `{"inPlace":true,"reason":"` + strings.TrimPrefix(tc.first, "session-") + `"}`
			if got := r.payloads("session-renewed"); !slices.Equal(got, []string{want}) {
				t.Errorf("session-renewed %v, want [%s]", got, want)
			}
			if res.Reloaded.Name != "ready" || !res.Reloaded.Same {
				t.Errorf("reload() settled with %+v, want the frame's ready event", res.Reloaded)
			}
		})
	}
}

// TestHostScriptRenewInPlaceRetries: network trouble and 5xx, 408 and 429
// from the JSON endpoint are retried with the usual backoff (Retry-After
// honoured), each a renew-failed; the frame stays ready meanwhile.
func TestHostScriptRenewInPlaceRetries(t *testing.T) {
	t.Parallel()
	r := runHost(t, inPlacePrelude+`
h.respond({network: true}, {status: 503}, {status: 408}, {status: 429, retryAfter: 20}, sessionOK);
h.event(a, "cube:event:session-expiring", {});
const states = [];
for (let i = 0; i < 40; i++) { await h.advance(1000); states.push(fa.state); }
return {t0, states};
`)
	var res struct {
		T0     float64
		States []string
	}
	r.result(t, &res)
	if got, want := r.fetchTimes(res.T0), []float64{0, 1000, 3000, 7000, 27000}; !slices.Equal(got, want) {
		t.Errorf("requests at %v, want %v (backoff 1 s, 2 s, 4 s, then Retry-After 20 s)", got, want)
	}
	for _, f := range r.of("fetch") {
		if f.Method != "POST" || f.URL != "/embed/session" {
			t.Errorf("fetch %s %s, want POST /embed/session only", f.Method, f.URL)
		}
	}
	if got := retries(r.failures(t)); !slices.Equal(got, []float64{1000, 2000, 4000, 20000}) {
		t.Errorf("renew-failed retryInMs %v, want [1000 2000 4000 20000]", got)
	}
	if n := len(r.setSessions("a")); n != 1 {
		t.Errorf("set-session posted %d times, want once", n)
	}
	if slices.ContainsFunc(res.States, func(s string) bool { return s != "ready" }) {
		t.Errorf("states %v, want ready throughout", res.States)
	}
	if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":true,"reason":"expiring"}`}) {
		t.Errorf("session-renewed %v", got)
	}
}

// TestHostScriptRenewInPlaceSignedOut: 401 from the JSON endpoint means
// the viewer signed out: session-ended {status: 401}, state ended, no
// set-session, no reload, and no more renewals on later events.
func TestHostScriptRenewInPlaceSignedOut(t *testing.T) {
	t.Parallel()
	r := runHost(t, inPlacePrelude+`
h.respond({status: 401});
h.event(a, "cube:event:session-expiring", {});
await h.advance(10000);
h.event(a, "cube:event:session-expired", {});
await h.advance(60000);
return {state: fa.state, attr: a.getAttribute("data-embedkit-state")};
`)
	var res struct{ State, Attr string }
	r.result(t, &res)
	if res.State != "ended" || res.Attr != "ended" {
		t.Errorf("state %q (attribute %q), want ended", res.State, res.Attr)
	}
	if got := r.payloads("session-ended"); !slices.Equal(got, []string{`{"status":401}`}) {
		t.Errorf("session-ended %v, want one {status: 401}", got)
	}
	if n, m, s := len(r.of("fetch")), len(r.setSessions("a")), len(r.of("src")); n != 1 || m != 0 || s != 1 {
		t.Errorf("fetches %d, set-session %d, src sets %d; want 1, 0, 1", n, m, s)
	}
}

// TestHostScriptRenewInPlaceRefused: a cube:event:error within the
// settle window after set-session means the embed refused the new
// session: the kit loads the frame again (HEAD probe, src), once, and the
// settings are sent to the new page; session-renewed {inPlace: false}.
// An error after the window is the page's own business.
func TestHostScriptRenewInPlaceRefused(t *testing.T) {
	t.Parallel()
	r := runHost(t, inPlacePrelude+`
h.respond(sessionOK, {status: 200});
h.event(a, "cube:event:session-expiring", {});
await h.advance(2000);
h.event(a, "cube:event:error", {message: "session refused", context: "embed-session"});
const during = fa.state;
await h.advance(2000);
h.ready(a);
await h.flush();
h.log.push({kind: "mark"});
await h.advance(10000);
h.event(a, "cube:event:error", {message: "a widget failed"});
await h.advance(60000);
return {during, state: fa.state, mark: h.log.findIndex((e) => e.kind === "mark")};
`)
	var res struct {
		During, State string
		Mark          int
	}
	r.result(t, &res)
	fetches := r.of("fetch")
	if len(fetches) != 2 || fetches[0].Method != "POST" || fetches[1].Method != "HEAD" || fetches[1].URL != harnessHere+"/embed/frame/sales" {
		t.Fatalf("fetches %s, want the JSON endpoint, then one HEAD probe of the frame endpoint", js(fetches))
	}
	if n := len(r.setSessions("a")); n != 1 {
		t.Errorf("set-session posted %d times, want once (the fallback is a reload)", n)
	}
	srcs := r.of("src")
	if len(srcs) != 2 || srcs[1].Value != "/embed/frame/sales" {
		t.Errorf("src sets %s, want the frame loaded again once", js(srcs))
	}
	if res.During != "renewing" {
		t.Errorf("state %q while loading again, want renewing", res.During)
	}
	if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":false,"reason":"expiring"}`}) {
		t.Errorf("session-renewed %v, want one by reload", got)
	}
	if n := len(r.heard("a", "renew-failed")); n != 1 {
		t.Errorf("renew-failed %v, want one for the refused set-session", r.payloads("renew-failed"))
	}
	var replayed []string
	for _, p := range r.posts("a") {
		if p.Msg.Type != setSession {
			replayed = append(replayed, p.Msg.Type)
		}
	}
	if want := []string{"cube:action:set-locale", "cube:action:set-filter", "cube:action:set-locale", "cube:action:set-filter"}; !slices.Equal(replayed, want) {
		t.Errorf("settings posts %v, want them again after the reload: %v", replayed, want)
	}
	for _, e := range r.Log[res.Mark:] {
		if e.Kind == "fetch" || e.Kind == "src" || (e.Kind == "post" && e.Msg.Type == setSession) {
			t.Errorf("after the renewal settled, %s %s: an error outside the window must not renew", e.Kind, e.URL)
		}
	}
	if res.State != "ready" {
		t.Errorf("state %q, want ready", res.State)
	}
}

// TestHostScriptRenewInPlaceByFramePath: a frame without
// data-embedkit-target is named to the JSON endpoint by its frame path.
func TestHostScriptRenewInPlaceByFramePath(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", src: "/embed/frame/dashboard/sales-overview?locale=de-DE"});
h.load();
h.ready(a);
h.respond({status: 200, json: {url: h.PLATFORM + "/embed/dashboard/sales-overview?session=x", sessionId: "fresh-id-1"}});
h.event(a, "cube:event:session-expired", {});
await h.advance(6000);
`)
	posts := r.sessionPosts()
	if len(posts) != 1 || posts[0].Body == nil || *posts[0].Body != `{"target":"dashboard/sales-overview"}` {
		t.Fatalf("JSON endpoint requests %s, want one with the frame path dashboard/sales-overview", js(posts))
	}
	if n := len(r.setSessions("a")); n != 1 {
		t.Errorf("set-session posted %d times, want once", n)
	}
}

// TestHostScriptRenewFallbackKeyedToLoadStart: on a platform that sends
// neither event, the frame is loaded again 23 h minus 5 min after its
// load started (the earliest its session can have been exchanged), not
// 22 h after ready: a frame ready a minute after its load started is
// renewed a minute sooner than ready + 23 h − 5 min. After that reload
// the settings are sent again.
func TestHostScriptRenewFallbackKeyedToLoadStart(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", attrs: {"data-embedkit-ready-timeout": "120000"}});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "session-renewed");
const t0 = h.clock.now;
await h.advance(60000);
fa.setLocale("de-DE");
h.ready(a);
const timers = h.timers();
h.respond({status: 200});
await h.advance(23 * 3600 * 1000 - 5 * 60 * 1000 - 60000 - 1);
const early = h.of("fetch").length;
await h.advance(1);
h.ready(a);
await h.flush();
return {t0, timers, early};
`)
	var res struct {
		T0     float64
		Timers []float64
		Early  int
	}
	r.result(t, &res)
	if !slices.Equal(res.Timers, []float64{fallbackMs - 60000}) {
		t.Errorf("timers at ready %v, want [%v]: the fallback is keyed to the load's start", res.Timers, fallbackMs-60000)
	}
	if res.Early != 0 {
		t.Error("the fallback ran early")
	}
	fetches := r.of("fetch")
	if len(fetches) != 1 || fetches[0].Method != "HEAD" || fetches[0].At-res.T0 != fallbackMs {
		t.Errorf("fetches %s, want one HEAD probe at load start + %v ms", js(fetches), fallbackMs)
	}
	if n := len(r.of("src")); n != 2 {
		t.Errorf("src set %d times, want the reload", n)
	}
	if got := r.payloads("session-renewed"); !slices.Equal(got, []string{`{"inPlace":false,"reason":"expiring"}`}) {
		t.Errorf("session-renewed %v", got)
	}
	if got := r.postTypes("a"); !slices.Equal(got, []string{"cube:action:set-locale", "cube:action:set-locale"}) {
		t.Errorf("posts %v, want the locale at ready and again after the reload", got)
	}
}

// TestHostScriptVisibleWithoutRenewalEvents: where the platform never
// sent a renewal event, the tab becoming visible near the token's end
// does not post set-session (an older platform ignores it): the fallback
// reload runs when due, as before.
func TestHostScriptVisibleWithoutRenewalEvents(t *testing.T) {
	t.Parallel()
	r := runHost(t, inPlacePrelude+`
h.respond({status: 200});
h.sleep(23 * 3600 * 1000 - 10 * 60 * 1000);
h.fire("visibilitychange", "document");
await h.advance(1000);
const before = h.of("fetch").length;
h.sleep(10 * 60 * 1000);
h.fire("visibilitychange", "document");
await h.advance(1000);
return {before};
`)
	var res struct{ Before int }
	r.result(t, &res)
	if res.Before != 0 {
		t.Errorf("%d fetches before the fallback was due", res.Before)
	}
	fetches := r.of("fetch")
	if len(fetches) != 1 || fetches[0].Method != "HEAD" || len(r.setSessions("a")) != 0 {
		t.Errorf("fetches %s, set-session %d; want the fallback's HEAD probe only", js(fetches), len(r.setSessions("a")))
	}
}

// TestHostScriptRenewFallbackInPlace: on a platform that has shown it
// renews in place, a fallback timer that fires (the events missed)
// renews in place too: a POST and set-session, no reload.
func TestHostScriptRenewFallbackInPlace(t *testing.T) {
	t.Parallel()
	r := runHost(t, inPlacePrelude+`
h.respond(sessionOK, {status: 200, json: {url: h.PLATFORM + "/embed/dashboard/x?session=y", sessionId: "fresh-id-2"}});
h.event(a, "cube:event:session-expiring", {});
await h.advance(23 * 3600 * 1000 - 5 * 60 * 1000 + 10000);
`)
	if n, m := len(r.sessionPosts()), len(r.setSessions("a")); n != 2 || m != 2 {
		t.Errorf("JSON endpoint requests %d, set-session posts %d; want 2 and 2 (the event, then the fallback)", n, m)
	}
	for _, f := range r.of("fetch") {
		if f.Method == "HEAD" {
			t.Errorf("the fallback probed the frame endpoint (%s): it should renew in place", f.URL)
		}
	}
	if n := len(r.of("src")); n != 1 {
		t.Errorf("src set %d times, want once", n)
	}
}

// TestHostScriptRenewFallbackKeyedToSrcChange: a page that loads a
// managed frame again itself (a new src) starts its fallback timer
// again: the new document's session is exchanged after that.
func TestHostScriptRenewFallbackKeyedToSrcChange(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
h.ready(a);
await h.advance(3600 * 1000);
a.setAttribute("src", "/embed/frame/sales?locale=de-DE");
await h.flush();
h.ready(a);
return h.timers();
`)
	var timers []float64
	r.result(t, &timers)
	if !slices.Equal(timers, []float64{fallbackMs}) {
		t.Errorf("timers after the new load's ready %v, want [%v] (keyed to the new src)", timers, fallbackMs)
	}
}
