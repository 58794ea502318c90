package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The platform's session renewal in place, played by the embedded page in
// Chromium: a host page served from its own origin frames the emulator's
// page and records every message the page posts to it.

// renewalWait bounds one wait for the page: generous, as the machine
// running the tests may be slow and shared, and the page polls its
// context every two seconds.
const renewalWait = 60 * time.Second

// renewalHost is the host page: it frames the embedded page, records
// what the page's origin posts in window.__msgs, and frames a sibling
// page of its own origin that forwards actions to the embedded page, so
// a message can come from a window other than the embed's parent.
const renewalHost = `<!doctype html><meta charset="utf-8"><title>Renewal host</title>
<script>
window.__msgs = [];
addEventListener("message", (e) => { if (e.origin === %q) window.__msgs.push(e.data); });
</script>
<iframe id="embed-frame" src=%q width="900" height="600"></iframe>
<iframe id="other" src="/other" width="10" height="10"></iframe>`

// renewalSibling is the sibling page: what its parent sends it, it
// posts to the embed frame as its own message.
const renewalSibling = `<!doctype html><meta charset="utf-8"><script>
addEventListener("message", (e) => {
	if (e.source !== parent) return;
	parent.document.getElementById("embed-frame").contentWindow.postMessage(e.data.msg, e.data.origin);
});
</script>`

// hostMsg is one message as the host page received it.
type hostMsg struct {
	Source    string         `json:"source"`
	Direction string         `json:"direction"`
	Type      string         `json:"type"`
	Payload   map[string]any `json:"payload"`
	Timestamp any            `json:"timestamp"`
	Surface   string         `json:"surface"`
}

// frameState is what the tests read of the embedded page's document.
type frameState struct {
	// State is the status line's data-state: loading, ready, expired,
	// ended or invalid.
	State   string   `json:"state"`
	Marker  bool     `json:"marker"`
	Origin  float64  `json:"origin"`
	Locale  string   `json:"locale"`
	Filters string   `json:"filters"`
	Regions []string `json:"regions"`
}

// frameStateJS reads a frameState in the embedded page.
const frameStateJS = `JSON.stringify({
	state: document.getElementById("status").getAttribute("data-state"),
	marker: window.__renewalMarker === 1,
	origin: performance.timeOrigin,
	locale: document.getElementById("embed").getAttribute("data-locale"),
	filters: document.getElementById("embed").getAttribute("data-filters") || "",
	regions: Array.from(document.querySelectorAll("#rows tr[data-region]"), (tr) => tr.getAttribute("data-region"))
})`

// renewalRig is one host page framing one emulator page, with the
// emulator behind it.
type renewalRig struct {
	t   *testing.T
	s   *Server
	emu *httptest.Server
	tab context.Context
	// sid is the session id the page opened with (spent once it loaded).
	sid string
	// exchanges counts the exchange requests that reached the emulator,
	// counted as they arrive (the request log records them as answered).
	exchanges atomic.Int32
}

// openRenewal starts an emulator with the pages fixture changed by edit,
// mints a session and opens a host page framing the dashboard with it in
// tab, and waits for cube:event:ready.
func openRenewal(t *testing.T, tab context.Context, edit func(*Fixture)) *renewalRig {
	t.Helper()
	rig := startRenewal(t, tab, edit, nil)
	rig.waitMsgs("cube:event:ready", func(ms []hostMsg) bool { return count(ms, "cube:event:ready") == 1 })
	rig.waitFrame("the page to show its rows", func(f frameState) bool { return f.State == "ready" && len(f.Regions) > 0 })
	return rig
}

// startRenewal is openRenewal without the waits, with before, when not
// nil, run on the rig before the host page is opened.
func startRenewal(t *testing.T, tab context.Context, edit func(*Fixture), before func(*renewalRig)) *renewalRig {
	t.Helper()
	s := newPagesServerWith(t, edit)
	rig := &renewalRig{t: t, s: s, tab: tab}
	emu := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/api/v1/embed/session/token" {
			rig.exchanges.Add(1)
		}
		s.ServeHTTP(w, req)
	}))
	t.Cleanup(emu.Close)
	rig.emu = emu
	var src string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "/other" {
			fmt.Fprint(w, renewalSibling)
			return
		}
		fmt.Fprintf(w, renewalHost, emu.URL, src)
	}))
	t.Cleanup(host.Close)
	rig.sid = mintSession(t, s)
	q := url.Values{"session": {rig.sid}, "parentOrigin": {host.URL}}
	src = emu.URL + "/embed/d/1/dashboard/sales-overview?" + q.Encode()
	if before != nil {
		before(rig)
	}
	ctx, cancel := context.WithTimeout(tab, renewalWait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(host.URL)); err != nil {
		t.Fatalf("open the host page: %v", err)
	}
	return rig
}

// messages returns what the host page has received so far.
func (r *renewalRig) messages(ctx context.Context) ([]hostMsg, error) {
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.__msgs || [])`))
	if err != nil {
		return nil, err
	}
	var out []hostMsg
	return out, json.Unmarshal([]byte(raw), &out)
}

// until polls check every 100ms within renewalWait, failing the test with
// what was still pending and the last thing seen.
func (r *renewalRig) until(pending string, check func(ctx context.Context) (bool, string)) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.tab, renewalWait)
	defer cancel()
	last := ""
	for {
		ok, seen := check(ctx)
		if seen != "" {
			last = seen
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			r.t.Fatalf("still waiting for %s after %s; last seen: %s", pending, renewalWait, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitMsgs waits until the messages received satisfy ok, and returns them.
func (r *renewalRig) waitMsgs(pending string, ok func([]hostMsg) bool) []hostMsg {
	r.t.Helper()
	var got []hostMsg
	r.until(pending, func(ctx context.Context) (bool, string) {
		ms, err := r.messages(ctx)
		if err != nil {
			return false, err.Error()
		}
		got = ms
		return ok(ms), "messages " + strings.Join(typesOf(ms), ", ")
	})
	return got
}

// waitFrame waits until the embedded page's state satisfies ok, and
// returns it. The frame is looked up on every round.
func (r *renewalRig) waitFrame(pending string, ok func(frameState) bool) frameState {
	r.t.Helper()
	var got frameState
	r.until(pending, func(ctx context.Context) (bool, string) {
		nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#embed-frame")))
		if err != nil {
			return false, err.Error()
		}
		if nodes[0].ContentDocument == nil {
			return false, "the embed frame has no document in the page's tree"
		}
		raw, err := chromedp.Run(ctx, chromedp.Poll[string](frameStateJS,
			chromedp.WithPollingInFrame(nodes[0]), chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			return false, err.Error()
		}
		var f frameState
		if err := json.Unmarshal([]byte(raw), &f); err != nil {
			return false, err.Error()
		}
		got = f
		return ok(f), raw
	})
	return got
}

// markFrame sets a property on the embedded page's window, which only a
// document reload would drop.
func (r *renewalRig) markFrame() {
	r.t.Helper()
	r.until("the frame's window to take the marker", func(ctx context.Context) (bool, string) {
		nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#embed-frame")))
		if err != nil || nodes[0].ContentDocument == nil {
			return false, fmt.Sprint("no frame document: ", err)
		}
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(window.__renewalMarker = 1) === 1`,
			chromedp.WithPollingInFrame(nodes[0]), chromedp.WithPollingTimeout(5*time.Second)))
		return err == nil, fmt.Sprint(err)
	})
}

// send posts an action to the embedded page, in the envelope, from the
// host page (its parent) or, with fromSibling, from the sibling frame.
func (r *renewalRig) send(typ, payloadJSON string, fromSibling bool) {
	r.t.Helper()
	r.sendRaw(fmt.Sprintf(`{source: "cube-embed", direction: "action", type: %q, payload: %s, timestamp: Date.now()}`, typ, payloadJSON), fromSibling)
}

// sendRaw posts the JavaScript object literal msg to the embedded page.
func (r *renewalRig) sendRaw(msg string, fromSibling bool) {
	r.t.Helper()
	js := fmt.Sprintf(`document.getElementById("embed-frame").contentWindow.postMessage(%s, %q), true`, msg, r.emu.URL)
	if fromSibling {
		js = fmt.Sprintf(`document.getElementById("other").contentWindow.postMessage({msg: %s, origin: %q}, location.origin), true`, msg, r.emu.URL)
	}
	ctx, cancel := context.WithTimeout(r.tab, renewalWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
		r.t.Fatalf("post %s: %v", msg, err)
	}
}

// advance moves the emulator's clock through its control API, as a test
// of a host app would.
func (r *renewalRig) advance(d string) {
	r.t.Helper()
	res, err := http.Post(r.emu.URL+"/_emulator/clock", "application/json", strings.NewReader(`{"advance":"`+d+`"}`))
	if err != nil {
		r.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		r.t.Fatalf("advance %s: status %d", d, res.StatusCode)
	}
}

// mark returns a position in the emulator's request log.
func (r *renewalRig) mark() int { return len(r.s.Requests()) }

// since returns the requests logged after mark m as "METHOD path".
func (r *renewalRig) since(m int) []string {
	var out []string
	for _, l := range r.s.Requests()[m:] {
		out = append(out, l.Method+" "+l.Path)
	}
	return out
}

// waitPolls waits until the page has polled its context n times after
// mark m. The page schedules a poll only once it has handled the answer
// of the one before, so with n >= 3 a clock move or a message from before
// m has been seen by a whole poll and its answer.
func (r *renewalRig) waitPolls(m, n int) {
	r.t.Helper()
	r.until(fmt.Sprintf("%d context polls", n), func(context.Context) (bool, string) {
		got := r.since(m)
		return countOf(got, "GET /embed/api/context") >= n, strings.Join(got, ", ")
	})
}

// state returns the emulator's state of session id.
func (r *renewalRig) state(id string) string {
	for _, se := range r.s.Sessions() {
		if se.SessionID == id {
			return se.State
		}
	}
	return "gone"
}

func count(ms []hostMsg, typ string) int {
	n := 0
	for _, m := range ms {
		if m.Type == typ {
			n++
		}
	}
	return n
}

func countOf(list []string, s string) int {
	n := 0
	for _, l := range list {
		if l == s {
			n++
		}
	}
	return n
}

func typesOf(ms []hostMsg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

// errorsOf returns the cube:event:error payloads among ms.
func errorsOf(ms []hostMsg) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		if m.Type == "cube:event:error" {
			out = append(out, m.Payload)
		}
	}
	return out
}

// checkRenewalEvent holds a renewal event to its envelope and its empty
// payload.
func checkRenewalEvent(t *testing.T, m hostMsg) {
	t.Helper()
	if m.Source != "cube-embed" || m.Direction != "event" || m.Surface != surfaceDashboard {
		t.Errorf("%s: source %q direction %q surface %q", m.Type, m.Source, m.Direction, m.Surface)
	}
	if _, ok := m.Timestamp.(float64); !ok {
		t.Errorf("%s: timestamp %v", m.Type, m.Timestamp)
	}
	if m.Payload == nil || len(m.Payload) != 0 {
		t.Errorf("%s: payload %v, want {}", m.Type, m.Payload)
	}
}

// TestSessionRenewalInChromium plays the platform's session renewal in
// place on the emulator's embedded page, with the clock moved through
// the control API.
func TestSessionRenewalInChromium(t *testing.T) {
	tab := newBrowserTab(t)

	t.Run("session-expiring before the trust end, session-expired at it", func(t *testing.T) {
		r := openRenewal(t, tab, func(f *Fixture) { f.SessionExpiringLead = "15m" })
		// Trust ends 23h after the exchange; the lead is 15m.
		m := r.mark()
		r.advance("22h44m")
		r.waitPolls(m, 3)
		if ms, _ := r.messages(tab); count(ms, "cube:event:session-expiring") != 0 {
			t.Fatalf("session-expiring 16 minutes before the trust end: %v", typesOf(ms))
		}
		r.advance("1m")
		ms := r.waitMsgs("cube:event:session-expiring", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expiring") == 1 })
		if count(ms, "cube:event:session-expired") != 0 {
			t.Fatalf("session-expired before the trust end: %v", typesOf(ms))
		}
		r.waitFrame("the page to go on with its token", func(f frameState) bool { return f.State == "ready" })
		r.advance("15m")
		ms = r.waitMsgs("cube:event:session-expired", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expired") == 1 })
		r.waitFrame(`the "Session expired" state`, func(f frameState) bool { return f.State == "expired" && len(f.Regions) == 0 })
		for _, m := range ms {
			if strings.HasPrefix(m.Type, "cube:event:session-") {
				checkRenewalEvent(t, m)
			}
		}
		if count(ms, "cube:event:session-expiring") != 1 || len(errorsOf(ms)) != 0 {
			t.Errorf("messages %v, want one session-expiring and no error", typesOf(ms))
		}
		// The page polls no more with the dead token.
		m = r.mark()
		// Longer than a poll: only a wait can show that nothing comes.
		time.Sleep(3 * time.Second)
		if got := r.since(m); countOf(got, "GET /embed/api/context") != 0 {
			t.Errorf("the page still polls after session-expired: %v", got)
		}
	})

	t.Run("one jump past both sends session-expired, then session-expiring", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		r.advance("23h")
		ms := r.waitMsgs("both renewal events", func(ms []hostMsg) bool {
			return count(ms, "cube:event:session-expired") == 1 && count(ms, "cube:event:session-expiring") == 1
		})
		types := typesOf(ms)
		if slices.Index(types, "cube:event:session-expired") > slices.Index(types, "cube:event:session-expiring") {
			t.Errorf("order %v, want session-expired first", types)
		}
		if len(errorsOf(ms)) != 0 {
			t.Errorf("an error with the renewal events: %v", errorsOf(ms))
		}
	})

	t.Run("a tab asleep past the signed expiry hears session-expired", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		r.advance("25h")
		ms := r.waitMsgs("both renewal events", func(ms []hostMsg) bool {
			return count(ms, "cube:event:session-expired") == 1 && count(ms, "cube:event:session-expiring") == 1
		})
		if len(errorsOf(ms)) != 0 {
			t.Errorf("an error with the renewal events: %v", errorsOf(ms))
		}
	})

	t.Run("set-session renews in place and keeps what the host set", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		r.markFrame()
		r.send("cube:action:set-locale", `{locale: "de-DE"}`, false)
		r.send("cube:action:set-filter", `{filterUrlParameter: 'f_sales.region={"value":"EMEA"}'}`, false)
		before := r.waitFrame("the runtime locale and filter", func(f frameState) bool {
			return f.Locale == "de-DE" && len(f.Regions) > 0 && !slices.ContainsFunc(f.Regions, func(s string) bool { return s != "EMEA" })
		})
		r.advance("23h")
		r.waitMsgs("cube:event:session-expired", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expired") == 1 })
		r.waitFrame(`the "Session expired" state`, func(f frameState) bool { return f.State == "expired" })

		fresh := mintSession(t, r.s)
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, fresh), false)
		after := r.waitFrame("the page to render again with the new token", func(f frameState) bool { return f.State == "ready" && len(f.Regions) > 0 })
		if !after.Marker || after.Origin != before.Origin {
			t.Errorf("the document was reloaded: marker %v, timeOrigin %v then %v", after.Marker, before.Origin, after.Origin)
		}
		if after.Locale != "de-DE" || after.Filters != before.Filters || slices.ContainsFunc(after.Regions, func(s string) bool { return s != "EMEA" }) {
			t.Errorf("after renewal: locale %q, filters %q, regions %v; want de-DE, %q, EMEA only", after.Locale, after.Filters, after.Regions, before.Filters)
		}
		if st := r.state(fresh); st != "exchanged" {
			t.Errorf("the new session is %s, want exchanged", st)
		}
		ms, _ := r.messages(tab)
		if len(errorsOf(ms)) != 0 || count(ms, "cube:event:ready") != 1 {
			t.Errorf("messages %v: want no error and no second ready", typesOf(ms))
		}

		// The timers start again for the new token (exchanged 23h after the
		// first): both events come once more.
		r.advance("22h50m")
		r.waitMsgs("a second session-expiring", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expiring") == 2 })
		r.advance("10m")
		r.waitMsgs("a second session-expired", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expired") == 2 })
	})

	t.Run("of two overlapping set-session actions the last one wins", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		first, second := mintSession(t, r.s), mintSession(t, r.s)
		// The first exchange is answered after the second.
		r.s.InjectFault(Fault{Method: "POST", Path: "/api/v1/embed/session/token", Times: 1, Delay: 3 * time.Second})
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, first), false)
		r.until("the first exchange to reach the emulator", func(context.Context) (bool, string) {
			n := r.exchanges.Load()
			return n == 2, fmt.Sprint(n, " exchanges") // the page's own, and the first renewal
		})
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, second), false)
		r.until("both renewals to be exchanged and answered", func(context.Context) (bool, string) {
			got := countOf(r.since(0), "POST /api/v1/embed/session/token")
			return got == 3, fmt.Sprint(got, " exchanges answered")
		})
		// Revoking the first session's token leaves the page alone: it
		// uses the second's.
		revoke := func(id string) {
			res := serve(t, r.s, "POST", "/api/v1/embed/session/revoke", "Bearer "+pagesAdminKey, strings.NewReader(`{"sessionId":"`+id+`"}`))
			if res.StatusCode != http.StatusNoContent {
				t.Fatalf("revoke: %d", res.StatusCode)
			}
		}
		m := r.mark()
		revoke(first)
		var errs []map[string]any
		r.until("3 context polls, or an error", func(ctx context.Context) (bool, string) {
			ms, _ := r.messages(ctx)
			errs = errorsOf(ms)
			got := r.since(m)
			return len(errs) != 0 || countOf(got, "GET /embed/api/context") >= 3, strings.Join(got, ", ")
		})
		if len(errs) != 0 {
			t.Fatalf("the page kept the first renewal's token: %v", errs)
		}
		r.waitFrame("the page to stay ready", func(f frameState) bool { return f.State == "ready" })
		revoke(second)
		ms := r.waitMsgs("the session to end with the second token revoked", func(ms []hostMsg) bool { return len(errorsOf(ms)) == 1 })
		if e := errorsOf(ms)[0]; e["context"] != "embed-session" || e["fatal"] != true {
			t.Errorf("error %v, want the fatal embed-session error of a revoked token", e)
		}
	})

	t.Run("a set-session answered before the first exchange wins over it", func(t *testing.T) {
		// The page's own exchange is answered last.
		r := startRenewal(t, tab, func(*Fixture) {}, func(r *renewalRig) {
			r.s.InjectFault(Fault{Method: "POST", Path: "/api/v1/embed/session/token", Times: 1, Delay: 4 * time.Second})
		})
		r.until("the page's own exchange to reach the emulator", func(context.Context) (bool, string) {
			n := r.exchanges.Load()
			return n == 1, fmt.Sprint(n, " exchanges")
		})
		fresh := mintSession(t, r.s)
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, fresh), false)
		r.waitFrame("the page to render with the renewed token", func(f frameState) bool { return f.State == "ready" && len(f.Regions) > 0 })
		r.until("the page's own exchange to be answered", func(context.Context) (bool, string) {
			got := countOf(r.since(0), "POST /api/v1/embed/session/token")
			return got == 2, fmt.Sprint(got, " exchanges answered")
		})
		// Revoking the page's first session leaves it alone: it uses the
		// renewed one.
		res := serve(t, r.s, "POST", "/api/v1/embed/session/revoke", "Bearer "+pagesAdminKey, strings.NewReader(`{"sessionId":"`+r.sid+`"}`))
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("revoke: %d", res.StatusCode)
		}
		m := r.mark()
		var ms []hostMsg
		r.until("3 context polls, or an error", func(ctx context.Context) (bool, string) {
			ms, _ = r.messages(ctx)
			got := r.since(m)
			return len(errorsOf(ms)) != 0 || countOf(got, "GET /embed/api/context") >= 3, strings.Join(got, ", ")
		})
		if len(errorsOf(ms)) != 0 || count(ms, "cube:event:ready") != 1 {
			t.Errorf("messages %v, errors %v: want one ready and no error", typesOf(ms), errorsOf(ms))
		}
	})

	t.Run("an id that cannot be exchanged does not renew", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		expired := mintSession(t, r.s)
		r.advance("5m1s")
		revoked := mintSession(t, r.s)
		res := serve(t, r.s, "POST", "/api/v1/embed/session/revoke", "Bearer "+pagesAdminKey, strings.NewReader(`{"sessionId":"`+revoked+`"}`))
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("revoke: %d", res.StatusCode)
		}
		cases := []struct{ name, id string }{
			{"spent", r.sid},
			{"expired", expired},
			{"revoked", revoked},
			{"unknown", strings.Repeat("ab", 16)},
		}
		for i, c := range cases {
			r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, c.id), false)
			ms := r.waitMsgs("the error for the "+c.name+" id", func(ms []hostMsg) bool { return len(errorsOf(ms)) == i+1 })
			e := errorsOf(ms)[i]
			if e["context"] != "embed-session" || e["fatal"] != false || e["message"] == "" {
				t.Errorf("%s id: error %v, want context embed-session, fatal false", c.name, e)
			}
		}
		// The page goes on with its token.
		m := r.mark()
		r.waitPolls(m, 1)
		r.waitFrame("the page to stay ready", func(f frameState) bool { return f.State == "ready" && len(f.Regions) > 0 })

		// Once the token is no longer trusted, a failed renewal is fatal.
		r.advance("23h")
		r.waitMsgs("cube:event:session-expired", func(ms []hostMsg) bool { return count(ms, "cube:event:session-expired") == 1 })
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, r.sid), false)
		ms := r.waitMsgs("the fatal error", func(ms []hostMsg) bool { return len(errorsOf(ms)) == len(cases)+1 })
		if e := errorsOf(ms)[len(cases)]; e["context"] != "embed-session" || e["fatal"] != true {
			t.Errorf("after the trust end: error %v, want context embed-session, fatal true", e)
		}
		r.waitFrame(`the "Session expired" state to stay`, func(f frameState) bool { return f.State == "expired" })
	})

	t.Run("set-session is ignored from another window, outside the envelope, without a string id", func(t *testing.T) {
		r := openRenewal(t, tab, func(*Fixture) {})
		fresh := mintSession(t, r.s)
		m := r.mark()
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, fresh), true)
		r.sendRaw(fmt.Sprintf(`{source: "other", direction: "action", type: "cube:action:set-session", payload: {sessionId: %q}}`, fresh), false)
		r.sendRaw(fmt.Sprintf(`{source: "cube-embed", direction: "event", type: "cube:action:set-session", payload: {sessionId: %q}}`, fresh), false)
		r.send("cube:action:set-session", `{sessionId: 42}`, false)
		r.send("cube:action:set-session", `{}`, false)
		r.waitPolls(m, 3)
		if got := r.since(m); slices.Contains(got, "POST /api/v1/embed/session/token") {
			t.Errorf("the page exchanged an id it was not sent properly: %v", got)
		}
		if st := r.state(fresh); st != "unexchanged" {
			t.Errorf("the session is %s, want unexchanged", st)
		}
		if ms, _ := r.messages(tab); len(errorsOf(ms)) != 0 {
			t.Errorf("errors %v", errorsOf(ms))
		}
		// The same id from the parent, in the envelope, renews.
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, fresh), false)
		r.until("the proper set-session to exchange the id", func(context.Context) (bool, string) {
			st := r.state(fresh)
			return st == "exchanged", st
		})
	})

	t.Run("a platform predating renewal sends neither event and ignores set-session", func(t *testing.T) {
		r := openRenewal(t, tab, func(f *Fixture) { f.PredatesSessionRenewal = true })
		r.advance("22h55m")
		fresh := mintSession(t, r.s)
		m := r.mark()
		r.send("cube:action:set-session", fmt.Sprintf(`{sessionId: %q}`, fresh), false)
		r.waitPolls(m, 3)
		if got := r.since(m); slices.Contains(got, "POST /api/v1/embed/session/token") || r.state(fresh) != "unexchanged" {
			t.Errorf("the older platform took set-session: %v, session %s", got, r.state(fresh))
		}
		r.advance("5m")
		ms := r.waitMsgs("the fatal error at the trust end", func(ms []hostMsg) bool { return len(errorsOf(ms)) == 1 })
		if e := errorsOf(ms)[0]; e["context"] != "embed-session" || e["fatal"] != true {
			t.Errorf("error %v, want context embed-session, fatal true", e)
		}
		r.waitFrame(`the "session ended" state`, func(f frameState) bool { return f.State == "ended" })
		if n, x := count(ms, "cube:event:session-expiring"), count(ms, "cube:event:session-expired"); n+x != 0 {
			t.Errorf("the older platform sent renewal events: %v", typesOf(ms))
		}
	})
}
