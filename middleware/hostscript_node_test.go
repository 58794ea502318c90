package middleware

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The host script's behaviour, run in Node against a stand-in for the
// browser (testdata/hostscript/harness.js): each scenario is JavaScript run
// with the harness `h` in scope, and the Go side checks what the script did.

// harnessPlatform and harnessHere are the platform origin the test kit
// serves the script with and the host page's origin in the harness.
const (
	harnessPlatform = "https://acme.example.com"
	harnessHere     = "https://app.example.com"
)

// hostRun is what one scenario did.
type hostRun struct {
	Result  json.RawMessage
	Log     []hostEntry
	Errors  []string
	Failure string
}

// hostEntry is one thing the script did: kind post (a postMessage to a
// frame), fetch, abort, src (an iframe's src set), dom (a DOM event
// dispatched), on (a listener called), error (reportError).
type hostEntry struct {
	Kind, Frame, As, Type, Value, Origin, Message string
	URL, Method, Credentials, Redirect, Cache     string
	At                                            float64
	Body                                          *string
	Headers                                       map[string]string
	Signal, Bubbles, Composed                     bool
	SameAsListener, ThisIsHandle                  bool
	Keys                                          []string
	Msg                                           *hostMsg
	Ev, Detail                                    *hostEvent
}

type hostMsg struct {
	Source, Direction, Type string
	Payload                 any
	Timestamp               any
}

type hostEvent struct {
	Name, Type string
	Payload    any
	Surface    *string
	Timestamp  float64
}

// of returns the entries of kind.
func (r *hostRun) of(kind string) []hostEntry {
	var out []hostEntry
	for _, e := range r.Log {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// heard returns the events the listener registered as `as` on frame got.
func (r *hostRun) heard(frame, as string) []hostEvent {
	var out []hostEvent
	for _, e := range r.of("on") {
		if e.Frame == frame && e.As == as {
			out = append(out, *e.Ev)
		}
	}
	return out
}

// posts returns the actions posted to frame.
func (r *hostRun) posts(frame string) []hostEntry {
	var out []hostEntry
	for _, e := range r.of("post") {
		if e.Frame == frame {
			out = append(out, e)
		}
	}
	return out
}

// postTypes returns the types of the actions posted to frame, in order.
func (r *hostRun) postTypes(frame string) []string {
	var out []string
	for _, e := range r.posts(frame) {
		out = append(out, e.Msg.Type)
	}
	return out
}

// result decodes the scenario's return value into v.
func (r *hostRun) result(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("scenario result %s: %v", r.Result, err)
	}
}

// servedHostScriptOf writes the script as a test kit changed by mod (nil:
// the default one) serves it to a file.
func servedHostScriptOf(t *testing.T, mod func(*Config)) string {
	t.Helper()
	tk := newTestKit(t, mod)
	w := serve(tk.HostScript(), httptest.NewRequest(http.MethodGet, "/embed/host.js", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("serving the host script: status %d", w.Code)
	}
	path := filepath.Join(t.TempDir(), "host.js")
	if err := os.WriteFile(path, w.Body.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// nodePath returns node, failing the test (never skipping) without it.
func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: run 'make test', which installs nodejs")
	}
	return node
}

// runHost runs scenario against the served script; the scenario failing
// or the script reporting an error (reportError) fails the test.
func runHost(t *testing.T, scenario string) *hostRun {
	t.Helper()
	r := runHostAllowErrors(t, scenario)
	if len(r.Errors) > 0 {
		t.Fatalf("the script reported errors: %q", r.Errors)
	}
	return r
}

// runHostAllowErrors is runHost for scenarios that expect reported errors.
func runHostAllowErrors(t *testing.T, scenario string) *hostRun {
	t.Helper()
	return runHostOf(t, nil, scenario)
}

// runHostOf runs scenario against the script a test kit changed by mod
// serves; reported errors do not fail the test.
func runHostOf(t *testing.T, mod func(*Config), scenario string) *hostRun {
	t.Helper()
	node := nodePath(t)
	script := servedHostScriptOf(t, mod)
	file := filepath.Join(t.TempDir(), "scenario.js")
	if err := os.WriteFile(file, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "hostscript", "harness.js"), script, file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var r hostRun
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("harness output: %v\n%s", err, out)
	}
	if r.Failure != "" {
		t.Fatalf("scenario failed: %s", r.Failure)
	}
	return &r
}

// js renders v as a JavaScript literal for a scenario.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// protocolPath is the platform's browser contract as data, at the module
// root; the emulator's page tests read the same file.
const protocolPath = "../testdata/embed-protocol.json"

// embedProtocol is the part of embed-protocol.json the tests use.
type embedProtocol struct {
	Envelope struct {
		Source   string   `json:"source"`
		Fields   []string `json:"fields"`
		Surfaces []string `json:"surfaces"`
	} `json:"envelope"`
	Events  []protocolMessage `json:"events"`
	Actions []protocolMessage `json:"actions"`
}

type protocolMessage struct {
	Type       string            `json:"type"`
	Surfaces   []string          `json:"surfaces"`
	Payload    map[string]string `json:"payload"`
	Documented bool              `json:"documented"`
}

// shortName is the kit's name of a message type: cube:event:dashboard-loaded
// is dashboard-loaded.
func (m protocolMessage) shortName() string {
	return m.Type[strings.LastIndex(m.Type, ":")+1:]
}

// method is the handle method that sends an action:
// cube:action:set-color-scheme is setColorScheme.
func (m protocolMessage) method() string {
	parts := strings.Split(m.shortName(), "-")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// kitActions are the actions of embed-protocol.json the kit sends on its
// own and no host method sends: cube:action:set-session carries a session
// the kit minted, for a renewal in place (hostscript_inplace_test.go).
var kitActions = map[string]bool{"cube:action:set-session": true}

func readProtocol(t *testing.T) embedProtocol {
	t.Helper()
	b, err := os.ReadFile(protocolPath)
	if err != nil {
		t.Fatal(err)
	}
	var p embedProtocol
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", protocolPath, err)
	}
	if p.Envelope.Source == "" || len(p.Events) == 0 || len(p.Actions) == 0 {
		t.Fatalf("%s holds no envelope source, events or actions", protocolPath)
	}
	return p
}

// samplePayload builds a payload from the contract's field descriptions
// ("string|null", "number?", "csv|xlsx|png|pdf", "any?"): every field,
// with a value of its type that a test can recognise.
func samplePayload(fields map[string]string) map[string]any {
	out := map[string]any{}
	for name, desc := range fields {
		alt := strings.Split(strings.TrimSuffix(desc, "?"), "|")
		switch alt[0] {
		case "string":
			out[name] = "sample " + name
		case "number":
			out[name] = 42.5
		case "boolean":
			out[name] = true
		case "any":
			out[name] = map[string]any{"nested": []any{1.0, "two", nil}}
		default:
			out[name] = alt[0] // an enumeration: its first value
		}
	}
	return out
}

// TestHostScriptEvents plays every event of embed-protocol.json at a
// managed frame: each reaches handle.on(name) and "*" with
// {name, type, payload, surface, timestamp} intact, and the DOM event
// embedkit:<name> (bubbling, composed) with the same object, on that frame
// only.
func TestHostScriptEvents(t *testing.T) {
	t.Parallel()
	p := readProtocol(t)
	type played struct {
		Type, Name, Surface string
		Payload             map[string]any
	}
	var plays []played
	for _, e := range p.Events {
		if !e.Documented {
			continue
		}
		plays = append(plays, played{Type: e.Type, Name: e.shortName(), Surface: e.Surfaces[len(e.Surfaces)-1], Payload: samplePayload(e.Payload)})
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", target: "chat"});
h.load();
const fa = h.win.embedkit.frame(a), fb = h.win.embedkit.frame(b);
const plays = `+js(plays)+`;
for (const p of plays) {
  h.listen(fa, p.Name);
  h.listen(fb, p.Name);
}
h.listen(fa, "*", "any");
let ts = 1000;
for (const p of plays) {
  h.event(a, p.Type, p.Payload, {surface: p.Surface, timestamp: ts++});
}
`)
	for _, e := range r.of("on") {
		if !e.ThisIsHandle {
			t.Errorf("listener of %s on %s ran with another this than the handle", e.As, e.Frame)
		}
	}
	for i, pl := range plays {
		t.Run(pl.Name, func(t *testing.T) {
			want := hostEvent{Name: pl.Name, Type: pl.Type, Payload: any(pl.Payload), Surface: &pl.Surface, Timestamp: float64(1000 + i)}
			want.Payload = roundTrip(t, pl.Payload)
			got := r.heard("a", pl.Name)
			if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Errorf("handle.on(%q) heard %s, want once %s", pl.Name, js(got), js(want))
			}
			var star []hostEvent
			for _, e := range r.heard("a", "any") {
				if e.Name == pl.Name {
					star = append(star, e)
				}
			}
			if len(star) != 1 || !reflect.DeepEqual(star[0], want) {
				t.Errorf(`handle.on("*") heard %s, want once %s`, js(star), js(want))
			}
			if got := r.heard("b", pl.Name); len(got) != 0 {
				t.Errorf("the other frame's listener heard %s", js(got))
			}
			var dom []hostEntry
			for _, e := range r.of("dom") {
				if e.Type == "embedkit:"+pl.Name {
					dom = append(dom, e)
				}
			}
			if len(dom) != 1 || dom[0].Frame != "a" || !dom[0].Bubbles || !dom[0].Composed || !dom[0].SameAsListener ||
				!reflect.DeepEqual(*dom[0].Detail, want) {
				t.Errorf("DOM events %s, want one embedkit:%s on frame a, bubbling and composed, with the listener's object as detail", js(dom), pl.Name)
			}
		})
	}
}

// roundTrip returns v as JSON decoding gives it back.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(js(v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// actionSample is how a test calls the method of an action, and the
// payload the contract then expects.
type actionSample struct {
	args    []any
	payload any
	// pageWide: embedkit.<method> sends it to every managed frame.
	pageWide bool
}

// actionSamples holds one call per action method. An action of
// embed-protocol.json without an entry fails TestHostScriptActions.
var actionSamples = map[string]actionSample{
	"setColorScheme": {[]any{"dark"}, map[string]any{"scheme": "dark"}, true},
	"setTheme": {[]any{map[string]any{"primaryColor": "#0b5fff", "font": "Inter", "borderRadius": 6}},
		map[string]any{"primaryColor": "#0b5fff", "font": "Inter", "borderRadius": 6}, true},
	"setLocale":   {[]any{"de-DE"}, map[string]any{"locale": "de-DE"}, true},
	"setFilter":   {[]any{"orders.status", "completed"}, map[string]any{"filterUrlParameter": `f_orders.status=%7B%22value%22%3A%22completed%22%7D`}, true},
	"navigate":    {[]any{"/embed/dashboard/regional-performance"}, map[string]any{"path": "/embed/dashboard/regional-performance"}, false},
	"refresh":     {nil, map[string]any{}, true},
	"setTimezone": {[]any{"Europe/Berlin"}, map[string]any{"timezone": "Europe/Berlin"}, true},
}

// checkEnvelope reports how post breaks the documented action envelope.
func checkEnvelope(p embedProtocol, post hostEntry, typ string, payload any) []string {
	var bad []string
	keys := slices.Clone(post.Keys)
	slices.Sort(keys)
	if want := []string{"direction", "payload", "source", "timestamp", "type"}; !slices.Equal(keys, want) {
		bad = append(bad, fmt.Sprintf("fields %v, want %v (an action never carries surface)", keys, want))
	}
	if post.Msg.Source != p.Envelope.Source {
		bad = append(bad, fmt.Sprintf("source %q, want %q", post.Msg.Source, p.Envelope.Source))
	}
	if post.Msg.Direction != "action" {
		bad = append(bad, fmt.Sprintf("direction %q", post.Msg.Direction))
	}
	if post.Msg.Type != typ {
		bad = append(bad, fmt.Sprintf("type %q, want %q", post.Msg.Type, typ))
	}
	if ts, ok := post.Msg.Timestamp.(float64); !ok || ts != post.At {
		bad = append(bad, fmt.Sprintf("timestamp %v, want the clock's epoch ms %v", post.Msg.Timestamp, post.At))
	}
	if post.Origin != harnessPlatform {
		bad = append(bad, fmt.Sprintf("target origin %q, want %q", post.Origin, harnessPlatform))
	}
	if want := roundTripAny(payload); !reflect.DeepEqual(post.Msg.Payload, want) {
		bad = append(bad, fmt.Sprintf("payload %s, want %s", js(post.Msg.Payload), js(want)))
	}
	return bad
}

func roundTripAny(v any) any {
	var out any
	_ = json.Unmarshal([]byte(js(v)), &out)
	return out
}

// TestHostScriptActions sends every action of embed-protocol.json through
// one frame's handle (it reaches that frame only, in the exact envelope,
// to the platform origin) and page-wide where the contract has a
// page-wide helper (it reaches every managed frame and no other iframe).
func TestHostScriptActions(t *testing.T) {
	t.Parallel()
	p := readProtocol(t)
	for _, a := range p.Actions {
		if kitActions[a.Type] {
			continue
		}
		sample, ok := actionSamples[a.method()]
		if !ok {
			t.Errorf("action %s: no handle method %s in this test's table; add one", a.Type, a.method())
			continue
		}
		t.Run(a.shortName(), func(t *testing.T) {
			t.Parallel()
			args := sample.args
			if args == nil {
				args = []any{}
			}
			r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", target: "chat"});
const c = h.iframe({id: "c", embedkit: false});
h.load();
h.ready(a); h.ready(b);
h.clock.now += 5;
const args = `+js(args)+`;
h.win.embedkit.frame(a)[`+js(a.method())+`](...args);
const pageWide = typeof h.win.embedkit[`+js(a.method())+`] === "function";
h.clock.now += 5;
if (pageWide) h.win.embedkit[`+js(a.method())+`](...args);
return {pageWide, navigateIsFrameOnly: h.win.embedkit.navigate === undefined};
`)
			var res struct{ PageWide, NavigateIsFrameOnly bool }
			r.result(t, &res)
			if res.PageWide != sample.pageWide {
				t.Errorf("embedkit.%s exists: %t, want %t", a.method(), res.PageWide, sample.pageWide)
			}
			if !res.NavigateIsFrameOnly {
				t.Error("embedkit.navigate exists; navigate is a frame's own")
			}
			wantA, wantB := 1, 0
			if sample.pageWide {
				wantA, wantB = 2, 1
			}
			posts := map[string][]hostEntry{"a": r.posts("a"), "b": r.posts("b"), "c": r.posts("c")}
			if len(posts["a"]) != wantA || len(posts["b"]) != wantB || len(posts["c"]) != 0 {
				t.Fatalf("posts: a %d, b %d, c (not managed) %d; want %d, %d, 0", len(posts["a"]), len(posts["b"]), len(posts["c"]), wantA, wantB)
			}
			for _, post := range append(posts["a"], posts["b"]...) {
				for _, bad := range checkEnvelope(p, post, a.Type, sample.payload) {
					t.Errorf("%s to %s: %s", a.method(), post.Frame, bad)
				}
			}
		})
	}
}

// TestHostScriptUndocumentedOnlyOnRequest runs a page through its life —
// frames ready, every documented action through handles and page-wide, a
// renewal, a frame added later — and checks that no documented:false
// action of embed-protocol.json is ever sent unless the host called its
// method; then that calling it does send it.
func TestHostScriptUndocumentedOnlyOnRequest(t *testing.T) {
	t.Parallel()
	p := readProtocol(t)
	var calls []string
	var optional []protocolMessage
	for _, a := range p.Actions {
		if kitActions[a.Type] {
			continue
		}
		s, ok := actionSamples[a.method()]
		if !ok {
			t.Fatalf("action %s has no sample in actionSamples", a.Type)
		}
		if !a.Documented {
			optional = append(optional, a)
			continue
		}
		calls = append(calls, fmt.Sprintf("h.win.embedkit.frame(a).%s(...%s);", a.method(), js(orEmpty(s.args))))
		if s.pageWide {
			calls = append(calls, fmt.Sprintf("h.win.embedkit.%s(...%s);", a.method(), js(orEmpty(s.args))))
		}
	}
	if len(optional) == 0 {
		t.Fatal("embed-protocol.json marks no action documented:false; this test checks nothing")
	}
	var optionalCalls []string
	for _, a := range optional {
		optionalCalls = append(optionalCalls, fmt.Sprintf("h.win.embedkit.frame(a).%s(...%s);", a.method(), js(orEmpty(actionSamples[a.method()].args))))
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", attrs: {"data-embedkit-renew-after": "5000"}});
h.load();
h.ready(a);
`+strings.Join(calls, "\n")+`
h.respond({status: 200});
await h.advance(5000);
h.ready(a);
h.event(a, "cube:event:error", {message: "expired", fatal: true, context: "embed-session"});
h.respond({status: 200});
await h.advance(60000);
h.ready(a);
const b = h.iframe({id: "b", target: "chat"});
await h.flush();
h.ready(b);
h.fire("online"); h.fire("visibilitychange", "document");
await h.advance(60000);
h.clock.now += 1;
const marker = h.log.length;
`+strings.Join(optionalCalls, "\n")+`
return marker;
`)
	var marker int
	r.result(t, &marker)
	for _, a := range optional {
		sent := 0
		for i, e := range r.Log {
			if e.Kind != "post" || e.Msg.Type != a.Type {
				continue
			}
			if i < marker {
				t.Errorf("%s (documented:false) sent to %s before the host asked for it", a.Type, e.Frame)
			} else {
				sent++
			}
		}
		if sent != 1 {
			t.Errorf("%s sent %d times when the host called %s, want 1", a.Type, sent, a.method())
		}
	}
	if len(r.of("src")) < 3 {
		t.Errorf("the scenario did not renew the frame (src sets %d); it checks less than it says", len(r.of("src")))
	}
}

func orEmpty(args []any) []any {
	if args == nil {
		return []any{}
	}
	return args
}

// TestHostScriptIgnoresForeignMessages: a message is heard only from the
// platform origin, with the documented source and direction, from the
// window of a managed frame, with a documented type. After each foreign
// message a genuine one is heard, so the listener is known to work.
func TestHostScriptIgnoresForeignMessages(t *testing.T) {
	t.Parallel()
	drill := `"cube:event:drilldown", {member: "sales.region", value: "forged"}`
	for _, tc := range []struct{ name, send string }{
		{"foreign origin", `h.event(a, ` + drill + `, {opts: {origin: "https://evil.example"}});`},
		{"the host's own origin", `h.event(a, ` + drill + `, {opts: {origin: h.HERE}});`},
		{"a sibling of the platform origin", `h.event(a, ` + drill + `, {opts: {origin: "https://acme.example.com.evil.example"}});`},
		{"another source", `h.event(a, ` + drill + `, {source: "someone-else"});`},
		{"no source", `h.event(a, ` + drill + `, {source: undefined});`},
		{"the private dialect", `h.event(a, "platform:event:ready", {}, {source: "platform-embed"});`},
		{"an action echoed back", `h.event(a, ` + drill + `, {direction: "action"});`},
		{"an undocumented type", `h.event(a, "cube:event:content-height", {});`},
		{"a type that is not a string", `h.event(a, ["cube:event:drilldown"], {member: "x.y"});`},
		{"not an object", `h.send(a, JSON.stringify({source: "cube-embed", direction: "event", type: "cube:event:drilldown", payload: {}}));`},
		{"a window that is no frame", `h.event(a, ` + drill + `, {opts: {source: {postMessage() {}}}});`},
		{"no window", `h.event(a, ` + drill + `, {opts: {source: null}});`},
		{"an iframe without data-embedkit", `h.event(c, ` + drill + `);`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
const c = h.iframe({id: "c", embedkit: false});
h.load();
const fa = h.win.embedkit.frame(a);
h.listen(fa, "*", "any");
`+tc.send+`
h.log.push({kind: "mark"});
h.event(a, "cube:event:navigate", {path: "/embed/dashboard/x"});
`)
			var heard []string
			for _, e := range r.Log {
				switch e.Kind {
				case "on":
					heard = append(heard, "on "+e.Ev.Type)
				case "dom":
					heard = append(heard, "dom "+e.Type)
				}
			}
			if want := []string{"on cube:event:navigate", "dom embedkit:navigate"}; !slices.Equal(heard, want) {
				t.Errorf("heard %v, want only the genuine navigate after it: %v", heard, want)
			}
			if n := len(r.of("fetch")) + len(r.of("post")); n != 0 {
				t.Errorf("the foreign message made the script fetch or post %d times", n)
			}
		})
	}
}

// encodeURIComponent is JavaScript's, written again from its definition:
// every UTF-8 byte percent-encoded except A-Z a-z 0-9 - _ . ! ~ * ' ( ).
func encodeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c < 0x80 && (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// TestHostScriptSetFilterEncoding: setFilter sends f_<member>= and the
// percent-encoded JSON {"value": value}, which decodes back to the value.
func TestHostScriptSetFilterEncoding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		value any
		want  string // the whole parameter, when written out by hand
	}{
		{"string", "completed", `f_orders.status=%7B%22value%22%3A%22completed%22%7D`},
		{"ampersand plus percent equals", "a&b+c%d=e", `f_orders.status=%7B%22value%22%3A%22a%26b%2Bc%25d%3De%22%7D`},
		{"quotes and backslash", `say "hi" 'x' \ ok`, `f_orders.status=%7B%22value%22%3A%22say%20%5C%22hi%5C%22%20'x'%20%5C%5C%20ok%22%7D`},
		{"unicode", "Zürich 東京 🙂", ""},
		{"hash question slash", "#?/;:@,", ""},
		{"empty string", "", `f_orders.status=%7B%22value%22%3A%22%22%7D`},
		{"integer", 42, `f_orders.status=%7B%22value%22%3A42%7D`},
		{"negative fraction", -1.5, `f_orders.status=%7B%22value%22%3A-1.5%7D`},
		{"true", true, `f_orders.status=%7B%22value%22%3Atrue%7D`},
		{"false", false, `f_orders.status=%7B%22value%22%3Afalse%7D`},
		{"array of strings", []any{"EMEA", "AMER"}, `f_orders.status=%7B%22value%22%3A%5B%22EMEA%22%2C%22AMER%22%5D%7D`},
		{"mixed array", []any{1, "x&y", false}, ""},
		{"null clears", nil, `f_orders.status=%7B%22value%22%3Anull%7D`},
	}
	var values []any
	for _, c := range cases {
		values = append(values, c.value)
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
h.ready(a);
const fa = h.win.embedkit.frame(a);
for (const v of `+js(values)+`) fa.setFilter("orders.status", v);
`)
	posts := r.posts("a")
	if len(posts) != len(cases) {
		t.Fatalf("%d posts for %d setFilter calls", len(posts), len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload, _ := posts[i].Msg.Payload.(map[string]any)
			got, _ := payload["filterUrlParameter"].(string)
			if len(payload) != 1 || posts[i].Msg.Type != "cube:action:set-filter" {
				t.Fatalf("post %s, want cube:action:set-filter {filterUrlParameter}", js(posts[i].Msg))
			}
			var raw strings.Builder
			enc := json.NewEncoder(&raw)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(map[string]any{"value": c.value}); err != nil {
				t.Fatal(err)
			}
			want := "f_orders.status=" + encodeURIComponent(strings.TrimSpace(raw.String()))
			if c.want != "" && c.want != want {
				t.Fatalf("the test disagrees with itself: %s vs %s", c.want, want)
			}
			if got != want {
				t.Errorf("filterUrlParameter\n got %s\nwant %s", got, want)
			}
			member, value, ok := strings.Cut(got, "=")
			if !ok || member != "f_orders.status" {
				t.Fatalf("parameter %q does not split at its first = into f_orders.status", got)
			}
			plain, err := url.PathUnescape(value)
			if err != nil {
				t.Fatal(err)
			}
			var decoded map[string]any
			if err := json.Unmarshal([]byte(plain), &decoded); err != nil {
				t.Fatalf("value %q is not JSON once decoded: %v", plain, err)
			}
			if !reflect.DeepEqual(decoded, roundTrip(t, map[string]any{"value": c.value})) {
				t.Errorf("decodes to %s, want value %s", plain, js(c.value))
			}
		})
	}
}

// TestHostScriptRejectsBadArguments: each setter and on/off/frame throws a
// TypeError naming the argument and the rule, and sends nothing.
func TestHostScriptRejectsBadArguments(t *testing.T) {
	t.Parallel()
	cases := []struct{ call, want string }{
		{`f.setFilter("status", "x")`, "member must be"},
		{`f.setFilter("orders.", "x")`, "member must be"},
		{`f.setFilter(".status", "x")`, "member must be"},
		{`f.setFilter("orders\n.status", "x")`, "member must be"},
		{`f.setFilter(42, "x")`, "member must be"},
		{`f.setFilter("orders.status")`, "value must be"},
		{`f.setFilter("orders.status", undefined)`, "value must be"},
		{`f.setFilter("orders.status", NaN)`, "value must be"},
		{`f.setFilter("orders.status", Infinity)`, "value must be"},
		{`f.setFilter("orders.status", {value: "x"})`, "value must be"},
		{`f.setFilter("orders.status", [])`, "value must be"},
		{`f.setFilter("orders.status", [null])`, "value must be"},
		{`f.setFilter("orders.status", [["x"]])`, "value must be"},
		{`f.setFilter("orders.status", () => "x")`, "value must be"},
		{`f.setLocale(42)`, "locale must be"},
		{`f.setLocale("")`, "locale must be"},
		{`f.setLocale("de DE")`, "locale must be"},
		{`f.setTimezone("+02:00")`, "timeZone must be"},
		{`f.setTimezone("")`, "timeZone must be"},
		{`f.setTheme(null)`, "theme must be"},
		{`f.setTheme(["x"])`, "theme must be"},
		{`f.setTheme("dark")`, "theme must be"},
		{`f.setTheme({n: 1n})`, "theme must be plain JSON"},
		{`f.setColorScheme("blue")`, "scheme must be"},
		{`f.setColorScheme()`, "scheme must be"},
		{`f.navigate("embed/x")`, "path must be"},
		{`f.navigate("//evil.example/x")`, "path must be"},
		{`f.navigate("/a b")`, "path must be"},
		{`f.navigate("https://evil.example/")`, "path must be"},
		{`f.navigate("/embed/dashboard/sales?x=1")`, "path must be"},
		{`f.navigate("/embed/dashboard/sales#top")`, "path must be"},
		{`f.navigate("/embed/dashboard/a%2Fb")`, "path must be"},
		{`f.navigate("/embed/dashboard/..")`, "path must be"},
		{`f.navigate("/embed/dashboard/./x")`, "path must be"},
		{`f.navigate("/embed/d/0/app")`, "path must be"},
		{`f.navigate("/logout")`, "path must be"},
		{`f.setLocale("de_DE")`, "locale must be"},
		{`f.setLocale("x".repeat(129))`, "locale must be"},
		{`f.setTimezone("Mars/Olympus")`, "timeZone must be"},
		{`k.debug("yes")`, "on must be"},
		{`f.refresh("now")`, "takes no arguments"},
		{`f.on("content-height", () => {})`, "name must be"},
		{`f.on("ready", "handler")`, "listener must be"},
		{`f.off("nope", () => {})`, "name must be"},
		{`k.setFilter("bad", 1)`, "embedkit.setFilter(): member must be"},
		{`k.setLocale(null)`, "embedkit.setLocale(): locale must be"},
		{`k.frame(h.doc.body)`, "element must be"},
		{`k.frame("#missing")`, "element must be"},
		{`k.frame("#plain")`, "element must be"},
		{`k.frame(null)`, "element must be"},
		{`k.frame("::bad")`, "element must be"},
	}
	var calls []string
	for _, c := range cases {
		calls = append(calls, c.call)
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.iframe({id: "plain", embedkit: false});
h.load();
h.ready(a);
const k = h.win.embedkit, f = k.frame(a);
const out = [];
for (const call of `+js(calls)+`) {
  try {
    eval(call);
    out.push({name: "", message: "no error"});
  } catch (e) {
    out.push({name: e.name, message: e.message});
  }
}
return out;
`)
	var got []struct{ Name, Message string }
	r.result(t, &got)
	for i, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			if got[i].Name != "TypeError" || !strings.Contains(got[i].Message, c.want) {
				t.Errorf("%s threw %s %q, want a TypeError saying %q", c.call, got[i].Name, got[i].Message, c.want)
			}
		})
	}
	if n := len(r.of("post")); n != 0 {
		t.Errorf("bad calls posted %d messages", n)
	}
}

// TestHostScriptHandles: frame() gives one handle per frame, by element
// or selector; frames() lists the managed frames; on() returns its own
// remover, registers a function once, off() removes it, listeners run
// with the handle as this, and a listener that throws neither stops the
// others nor the DOM event.
func TestHostScriptHandles(t *testing.T) {
	t.Parallel()
	r := runHostAllowErrors(t, `
const a = h.iframe({id: "a", target: "sales"});
const b = h.iframe({id: "b", target: "chat"});
h.iframe({id: "plain", embedkit: false});
h.load();
const k = h.win.embedkit;
const fa = k.frame(a);
const out = {
  same: fa === k.frame("#a") && fa === k.frame(a),
  element: fa.element === a,
  frames: k.frames().map((f) => f.element.id),
};
const heard = [];
const fn = (e) => heard.push("fn " + e.payload.path);
fa.on("navigate", fn);
fa.on("navigate", fn);
const stop = fa.on("navigate", (e) => heard.push("stop " + e.payload.path));
fa.on("navigate", () => { throw new Error("listener broke"); });
fa.on("navigate", (e) => heard.push("after " + e.payload.path));
h.event(a, "cube:event:navigate", {path: "/1"});
stop();
fa.off("navigate", fn);
h.event(a, "cube:event:navigate", {path: "/2"});
const c = h.iframe({id: "c", target: "app"});
out.later = k.frames().map((f) => f.element.id);
out.heard = heard;
out.dom = h.of("dom").length;
return out;
`)
	var res struct {
		Same, Element bool
		Frames, Later []string
		Heard         []string
		DOM           int
	}
	r.result(t, &res)
	if !res.Same || !res.Element {
		t.Errorf("frame(): same handle %t, element is the iframe %t", res.Same, res.Element)
	}
	if !slices.Equal(res.Frames, []string{"a", "b"}) || !slices.Equal(res.Later, []string{"a", "b", "c"}) {
		t.Errorf("frames() = %v then %v, want [a b] then [a b c]", res.Frames, res.Later)
	}
	if want := []string{"fn /1", "stop /1", "after /1", "after /2"}; !slices.Equal(res.Heard, want) {
		t.Errorf("listeners heard %v, want %v", res.Heard, want)
	}
	if res.DOM != 2 {
		t.Errorf("%d DOM events, want 2 (a throwing listener must not stop them)", res.DOM)
	}
	if !slices.Equal(r.Errors, []string{"listener broke", "listener broke"}) {
		t.Errorf("reported errors %q, want the listener's, once per event", r.Errors)
	}
}
