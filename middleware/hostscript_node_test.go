package middleware

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// hostScriptHarness runs the served host script in Node with a minimal
// stand-in for the DOM, plays messages at it and prints what it did.
const hostScriptHarness = `
const fs = require("fs");
const out = { posts: [], events: [], fetches: [] };
function frame(target) {
  const attrs = { "data-embedkit": "", "data-embedkit-target": target };
  const f = {
    getAttribute: (n) => (n in attrs ? attrs[n] : null),
    dispatchEvent: (e) => out.events.push({ target, type: e.type, detail: e.detail }),
  };
  f.contentWindow = { postMessage: (msg, origin) => out.posts.push({ target, type: msg.type, payload: msg.payload, source: msg.source, direction: msg.direction, origin }) };
  return f;
}
const frames = [frame("sales"), frame("chat")];
let onMessage;
global.CustomEvent = class { constructor(type, init) { this.type = type; this.detail = init.detail; } };
global.document = { querySelectorAll: () => frames };
global.window = { addEventListener: (t, fn) => { if (t === "message") onMessage = fn; } };
global.fetch = (url, init) => {
  out.fetches.push({ url, method: init.method, body: init.body, credentials: init.credentials });
  const ok = JSON.parse(init.body).target === "sales";
  return Promise.resolve({ ok, status: ok ? 200 : 401, json: () => Promise.resolve({ sessionId: "renewed-id" }) });
};
eval(fs.readFileSync(process.argv[2], "utf8"));
const ORIGIN = "https://acme.example.com";
const ev = (origin, win, type, source) => ({ origin, source: win, data: { source: source || "platform-embed", direction: "event", type, payload: { surface: "dashboard" } } });
onMessage(ev("https://evil.example", frames[0].contentWindow, "platform:event:session-expiring"));
onMessage(ev(ORIGIN, frames[0].contentWindow, "platform:event:ready", "someone-else"));
onMessage(ev(ORIGIN, {}, "platform:event:ready"));
onMessage(ev(ORIGIN, frames[0].contentWindow, "platform:event:ready"));
onMessage(ev(ORIGIN, frames[0].contentWindow, "platform:event:session-expiring"));
onMessage(ev(ORIGIN, frames[1].contentWindow, "platform:event:session-expiring"));
window.embedkit.setLocale("de-DE");
window.embedkit.setTimezone("Europe/Berlin");
window.embedkit.setColorScheme("dark");
window.embedkit.setTheme({ primaryColor: "#123456" });
setTimeout(() => console.log(JSON.stringify(out)), 20);
`

func TestHostScriptInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: run 'make test', which installs nodejs")
	}
	tk := newTestKit(t, nil)
	w := serve(tk.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	dir := t.TempDir()
	script, harness := filepath.Join(dir, "host.js"), filepath.Join(dir, "harness.js")
	if err := os.WriteFile(script, w.Body.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(harness, []byte(hostScriptHarness), 0o600); err != nil {
		t.Fatal(err)
	}
	outb, err := exec.Command(node, harness, script).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	type post struct {
		Target, Type, Source, Direction, Origin string
		Payload                                 map[string]any
	}
	var out struct {
		Posts   []post
		Events  []struct{ Target, Type string }
		Fetches []struct{ URL, Method, Body, Credentials string }
	}
	if err := json.Unmarshal(outb, &out); err != nil {
		t.Fatalf("%v: %s", err, outb)
	}

	if len(out.Fetches) != 2 || out.Fetches[0].URL != "/embed/session" || out.Fetches[0].Method != "POST" ||
		out.Fetches[0].Body != `{"target":"sales"}` || out.Fetches[0].Credentials != "same-origin" {
		t.Errorf("fetches = %+v, want one per expiring embed from the platform origin", out.Fetches)
	}
	wantPosts := map[string]int{
		"sales platform:action:renew-session":    1,
		"sales platform:action:set-locale":       1,
		"chat platform:action:set-locale":        1,
		"sales platform:action:set-timezone":     1,
		"chat platform:action:set-timezone":      1,
		"sales platform:action:set-color-scheme": 1,
		"chat platform:action:set-color-scheme":  1,
		"sales platform:action:set-theme":        1,
		"chat platform:action:set-theme":         1,
	}
	for _, p := range out.Posts {
		key := p.Target + " " + p.Type
		wantPosts[key]--
		if p.Origin != "https://acme.example.com" || p.Source != "platform-embed" || p.Direction != "action" {
			t.Errorf("post %s: origin %q source %q direction %q", key, p.Origin, p.Source, p.Direction)
		}
		if p.Type == "platform:action:renew-session" && p.Payload["sessionId"] != "renewed-id" {
			t.Errorf("renew payload = %v", p.Payload)
		}
	}
	for k, n := range wantPosts {
		if n != 0 {
			t.Errorf("post %q: %d more (or fewer) than expected", k, -n)
		}
	}
	events := map[string]bool{}
	for _, e := range out.Events {
		events[e.Target+" "+e.Type] = true
	}
	if len(out.Events) != 2 || !events["sales embedkit:ready"] || !events["chat embedkit:session-ended"] {
		t.Errorf("events = %+v, want ready on sales and session-ended on chat (renewal refused)", out.Events)
	}
}
