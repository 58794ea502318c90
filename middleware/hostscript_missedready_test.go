package middleware

import (
	"strings"
	"testing"
)

// TestHostScriptMissedReady: the platform sends ready once, when its page
// mounts. A frame that already holds the platform's page when the script
// starts managing it, and that reports no ready within 10 s, is loaded
// again, once, so that its new page's ready is heard; a frame whose page
// was not there yet, or that reports ready in time, or that the kit
// cannot load again, keeps the first load's 30 s timeout.
func TestHostScriptMissedReady(t *testing.T) {
	t.Parallel()
	const (
		probe   = `{status: 200}`
		session = `{status: 200, json: {url: "https://acme.example.com/embed/dashboard/sales-overview?session=new", sessionId: "new", expiresAt: "2030-01-01T00:00:00Z"}}`
	)
	for _, tc := range []struct {
		name    string
		iframe  string // the h.iframe options
		respond string // the answer to a reload's request
		readyAt int    // ms after the script starts when the first page reports ready; 0: not before 10 s
		// want
		reload  string // the reload's request at 10 s, "" for none
		state   string // at 12 s
		renewed bool   // session-renewed, reason missed-ready
	}{
		{name: "platform page before the script, no ready", iframe: `{id: "a", target: "sales", foreign: true}`, respond: probe,
			reload: "HEAD https://app.example.com/embed/frame/sales", state: "ready", renewed: true},
		{name: "platform page before the script, ready in time", iframe: `{id: "a", target: "sales", foreign: true}`, respond: probe,
			readyAt: 4000, state: "ready"},
		{name: "page not there yet", iframe: `{id: "a", target: "sales"}`, respond: probe, state: "loading"},
		{name: "the platform's src, a named target", iframe: `{id: "a", target: "sales", foreign: true, src: "https://acme.example.com/embed/dashboard/sales-overview?session=x"}`,
			respond: session, reload: "POST /embed/session", state: "ready", renewed: true},
		{name: "the platform's src, no way to load it again", iframe: `{id: "a", foreign: true, src: "https://acme.example.com/embed/dashboard/sales-overview?session=x"}`,
			respond: session, state: "loading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, `
const a = h.iframe(`+tc.iframe+`);
h.respond(`+tc.respond+`);
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "session-renewed");
h.listen(fa, "load-failed");
const readyAt = `+js(tc.readyAt)+`;
if (readyAt > 0) {
  await h.advance(readyAt);
  h.ready(a);
  await h.advance(10000 - readyAt);
} else {
  await h.advance(10000);
}
await h.flush();
await h.advance(500);
const fetches = h.of("fetch").map((f) => f.method + " " + f.url);
if (fetches.length > 0) h.ready(a);
await h.advance(1500);
return {fetches, state: fa.state};
`)
			var res struct {
				Fetches []string
				State   string
			}
			r.result(t, &res)
			switch {
			case tc.reload == "" && len(res.Fetches) != 0:
				t.Errorf("requests by 10 s: %v, want none", res.Fetches)
			case tc.reload != "" && (len(res.Fetches) != 1 || res.Fetches[0] != tc.reload):
				t.Errorf("requests by 10 s: %v, want %s", res.Fetches, tc.reload)
			}
			if res.State != tc.state {
				t.Errorf("state %q, want %q", res.State, tc.state)
			}
			heard := r.heard("a", "session-renewed")
			switch {
			case !tc.renewed && len(heard) != 0:
				t.Errorf("session-renewed %s, want none", js(heard))
			case tc.renewed && (len(heard) != 1 || !strings.Contains(js(heard[0].Payload), `"reason":"missed-ready"`)):
				t.Errorf("session-renewed %s, want one with reason missed-ready", js(heard))
			}
			if n := len(r.heard("a", "load-failed")); n != 0 {
				t.Errorf("load-failed heard %d times before the 30 s timeout", n)
			}
		})
	}
}
