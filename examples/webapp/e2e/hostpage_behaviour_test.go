package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/adapters/memstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/internal/readme"
	"github.com/embedkit/embedkit/internal/testbrowser"
	"github.com/embedkit/embedkit/middleware"
)

// The host page's behaviour suite, run in Chromium against both of its
// deliveries: the global script the kit serves (kit.HostScript) and the
// npm package's ES module (hostpage/src/index.js, loaded as a native
// module and configured from <meta name="embedkit">). A small host app
// here mounts the kit in front of the platform emulator; each scenario is
// the same JavaScript for both, reaching the API as window.embedkit.

// behaviourHost is the host app and platform of the suite.
type behaviourHost struct {
	host, platform string
	kit            *middleware.Kit
	em             *emulator.Server
}

// senderPage is served on the platform's origin: a page that posts the
// messages in its fragment (a JSON array) to its parent, as the embed
// would, so the suite can play messages the emulator never sends.
const senderPage = `<!doctype html><meta charset="utf-8"><title>sender</title><script>
for (const m of JSON.parse(decodeURIComponent(location.hash.slice(1)))) parent.postMessage(m, "*");
</script>`

// newBehaviourHost starts the emulator (behind a platform server that also
// serves senderPage) and a host app with the kit: the viewer is always
// signed in; /fail/{status} answers status to GET and HEAD.
func newBehaviourHost(t *testing.T) *behaviourHost {
	t.Helper()
	em, err := emulator.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	pmux := http.NewServeMux()
	pmux.HandleFunc("/_test/sender.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, senderPage)
	})
	pmux.Handle("/", em)
	platform := httptest.NewServer(pmux)
	t.Cleanup(platform.Close)
	client, err := embedkit.New(platform.URL, "ek_dev_only_admin_all")
	if err != nil {
		t.Fatal(err)
	}
	kit, err := middleware.New(middleware.Config{
		Platform: client,
		Identity: middleware.IdentityFunc(func(r *http.Request) (*middleware.Viewer, error) {
			return &middleware.Viewer{Subject: "ana", SessionKey: "login-of-ana", Groups: []string{"sales", "emea"}}, nil
		}),
		Store:       memstore.New(),
		Policy:      middleware.Policy{DeploymentID: 1, Groups: middleware.GroupOptions{Allowed: []string{"sales", "emea"}}},
		PlatformURL: platform.URL,
		Targets:     map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}},
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &behaviourHost{platform: platform.URL, kit: kit, em: em}
	mux := http.NewServeMux()
	mux.Handle("/embed/frame/", kit.FrameHandler())
	mux.Handle("/embed/session", kit.SessionHandler())
	mux.Handle("/embed/host.js", kit.HostScript())
	mux.Handle("/hostpage/", http.StripPrefix("/hostpage/", http.FileServer(http.Dir(filepath.Join("..", "..", "..", "hostpage", "src")))))
	// /late/host.js is the host script, served only once the embedded
	// page has loaded its context (after which it posts ready) and a
	// second more: the script of a slow network or a busy machine, which
	// starts after the frame's one ready event.
	mux.HandleFunc("/late/host.js", func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(stepTimeout)
		for !contextLoaded(em) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Second)
		kit.HostScript().ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /late", b.late)
	mux.HandleFunc("/fail/{status}", func(w http.ResponseWriter, r *http.Request) {
		var status int
		if _, err := fmt.Sscan(r.PathValue("status"), &status); err != nil || status < 400 {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	})
	mux.HandleFunc("/page/{delivery}", b.page)
	mux.HandleFunc("/readme/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		snippets := readmeHTML(t)
		if _, err := fmt.Sscan(r.PathValue("n"), &n); err != nil || n < 0 || n >= len(snippets) {
			http.NotFound(w, r)
			return
		}
		// A snippet is an html/template of the README's page data, as its
		// ten lines serve it: the PageFrame whose URL is the iframe src,
		// and the host script's address.
		page, err := template.New("snippet").Parse("<!doctype html><meta charset=\"utf-8\"><title>README snippet</title>\n" + snippets[n])
		if err != nil {
			http.Error(w, "the README's snippet "+r.PathValue("n")+" is not a template: "+err.Error(), http.StatusInternalServerError)
			return
		}
		sales, _ := kit.Target("sales")
		frame, err := kit.PageFrame(w, r, sales)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		if err := page.Execute(w, map[string]any{"Frame": frame, "Script": kit.HostScriptSrc("/embed/host.js")}); err != nil {
			t.Errorf("the README's snippet %s: %v", r.PathValue("n"), err)
		}
	})
	host := httptest.NewServer(mux)
	t.Cleanup(host.Close)
	b.host = host.URL
	return b
}

// pageTemplate is the suite's host page: the console's warnings and debug
// lines and reported errors are recorded, then the host page loads in one
// of its two deliveries; ?csp=1 adds a Content-Security-Policy that lets
// the page frame only its own origin.
var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>host page</title>
{{if .Module}}<meta name="embedkit" content="{{.Settings}}">{{end}}
<script>
window.__console = [];
for (const level of ["warn", "debug"]) {
  const original = console[level].bind(console);
  console[level] = (m) => { window.__console.push(level + " " + m); original(m); };
}
window.__errors = [];
addEventListener("error", (e) => window.__errors.push(String(e.message)));
</script>
{{if .Module}}<script type="module">
import * as embedkit from "/hostpage/index.js";
window.embedkit = embedkit;
window.__loaded = true;
</script>{{else}}<script src="/embed/host.js"></script>
<script>window.__loaded = true;</script>{{end}}
</head><body></body></html>`))

func (b *behaviourHost) page(w http.ResponseWriter, r *http.Request) {
	settings, err := json.Marshal(b.kit.HostSettings())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if r.URL.Query().Get("csp") == "1" {
		w.Header().Set("Content-Security-Policy", "frame-src 'self'")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTemplate.Execute(w, struct {
		Module   bool
		Settings string
	}{r.PathValue("delivery") == "module", string(settings)})
}

// run opens the page of delivery in a new browser context and evaluates
// scenario, the body of an async function, returning its result as JSON.
func (b *behaviourHost) run(t *testing.T, browser context.Context, delivery, query, scenario string) string {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	start(t, ctx, cancel, "open a tab")
	do(t, ctx, "open the host page", chromedp.Navigate(b.host+"/page/"+delivery+query))
	step, stop := context.WithTimeout(ctx, stepTimeout)
	defer stop()
	if _, err := chromedp.Run(step, chromedp.Poll[bool](`window.__loaded === true`, chromedp.WithPollingInterval(pollEvery), chromedp.WithPollingTimeout(stepTimeout))); err != nil {
		t.Fatalf("%s: the host page did not load its script: %v", delivery, err)
	}
	out, err := chromedp.Run(step, chromedp.Evaluate[string](`(async () => {
const PLATFORM = `+jsString(b.platform)+`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const frameOf = (attrs) => {
  const el = document.createElement("iframe");
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  document.body.appendChild(el);
  return el;
};
const sender = (msgs) => PLATFORM + "/_test/sender.html#" + encodeURIComponent(JSON.stringify(msgs));
const out = await (async () => {`+scenario+`})();
return JSON.stringify(out);
})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: scenario: %v", delivery, err)
	}
	return out
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// behaviourBrowser starts one headless Chromium for the suite.
func behaviourBrowser(t *testing.T) context.Context {
	t.Helper()
	return testbrowser.Start(t, stepTimeout, viewport(),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	)
}

// TestHostPageBehaviour runs every scenario against the served global
// script and against the package's ES module.
func TestHostPageBehaviour(t *testing.T) {
	b := newBehaviourHost(t)
	browser := behaviourBrowser(t)
	for _, delivery := range []string{"global", "module"} {
		t.Run(delivery, func(t *testing.T) {
			for _, sc := range behaviourScenarios {
				t.Run(sc.name, func(t *testing.T) {
					sc.check(t, b.run(t, browser, delivery, sc.query, sc.js))
				})
			}
		})
	}
}

// decode unmarshals a scenario's result.
func decode[T any](t *testing.T, raw string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("scenario result %s: %v", raw, err)
	}
	return v
}

var behaviourScenarios = []struct {
	name, query, js string
	check           func(t *testing.T, raw string)
}{
	{
		name: "late ready listener and frame.ready",
		js: `
const el = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", src: "/embed/frame/sales", id: "a"});
const f = embedkit.frame(el);
const before = [f.state, el.getAttribute("data-embedkit-state"), el.getAttribute("aria-busy")].join(" ");
const ev = await f.ready;
await sleep(100);
const late = await new Promise((resolve) => f.on("ready", resolve));
return {before, after: [f.state, el.getAttribute("data-embedkit-state"), String(el.getAttribute("aria-busy"))].join(" "),
  name: ev.name, same: late === ev, surface: ev.payload.surface};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				Before, After, Name, Surface string
				Same                         bool
			}](t, raw)
			if got.Before != "loading loading true" || got.After != "ready ready null" {
				t.Errorf("state, attribute, aria-busy: before %q, after %q", got.Before, got.After)
			}
			if got.Name != "ready" || !got.Same || got.Surface != "dashboard" {
				t.Errorf("frame.ready gave %q (surface %q); the late listener got the same event: %t", got.Name, got.Surface, got.Same)
			}
		},
	},
	{
		name: "configured settings",
		js: `
const c = embedkit.configured();
return {origin: c.platformOrigin === PLATFORM, prefix: c.framePrefix, session: c.sessionURL, frozen: Object.isFrozen(c)};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				Origin, Frozen  bool
				Prefix, Session string
			}](t, raw)
			if !got.Origin || got.Prefix != "/embed/frame/" || got.Session != "/embed/session" || !got.Frozen {
				t.Errorf("configured() = %+v; want the kit's settings, frozen", got)
			}
		},
	},
	{
		name: "a frame that leaves the page is released",
		js: `
const el = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", src: "/embed/frame/sales"});
const f = embedkit.frame(el);
const ready = f.ready.then(() => "resolved", (e) => e.reason);
const before = embedkit.frames().length;
el.remove();
const reason = await ready;
const moved = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", src: "/embed/frame/sales"});
const g = embedkit.frame(moved);
document.body.prepend(moved); // moved, not removed: still managed
await sleep(50);
return {before, after: embedkit.frames().length, reason, state: el.getAttribute("data-embedkit-state"),
  movedKept: embedkit.frame(moved) === g && moved.getAttribute("data-embedkit-state") !== null};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				Before, After int
				Reason        string
				State         *string
				MovedKept     bool
			}](t, raw)
			if got.Reason != "released" || got.State != nil {
				t.Errorf("a removed frame: ready settled as %q, state attribute %v; want released and none", got.Reason, got.State)
			}
			if got.After != got.Before {
				t.Errorf("managed frames: %d before removing one and adding another, %d after", got.Before, got.After)
			}
			if !got.MovedKept {
				t.Error("a frame moved within the page was released")
			}
		},
	},
	{
		name: "navigate and refresh before ready",
		js: `
const el = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", src: "/embed/frame/sales"});
const f = embedkit.frame(el);
const seen = [];
f.on("*", (e) => seen.push(e.name + (e.name === "view" || e.name === "navigate" ? " " + e.payload.path : "")));
const stateThen = f.state;
const nav = f.navigate("/embed/dashboard/regional-performance");
const ref = f.refresh();
const navEv = await nav;
const refEv = await ref;
for (let i = 0; i < 100 && !(f.view && f.view.path === "/embed/dashboard/regional-performance"); i++) await sleep(50);
return {stateThen, nav: navEv.name + " " + navEv.payload.path, ref: refEv.name, seen, view: f.view && f.view.path};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				StateThen, Nav, Ref, View string
				Seen                      []string
			}](t, raw)
			if got.StateThen != "loading" {
				t.Errorf("the actions were not sent before ready: state %q", got.StateThen)
			}
			if got.Nav != "view /embed/dashboard/regional-performance" && got.Nav != "navigate /embed/dashboard/regional-performance" {
				t.Errorf("navigate resolved with %q", got.Nav)
			}
			if got.Ref != "dashboard-loaded" || got.View != "/embed/dashboard/regional-performance" {
				t.Errorf("refresh resolved with %q; frame.view %q", got.Ref, got.View)
			}
			ready := slices.Index(got.Seen, "ready")
			nav := slices.Index(got.Seen, "navigate /embed/dashboard/regional-performance")
			if ready < 0 || nav < ready {
				t.Errorf("events %v: the navigation must follow ready", got.Seen)
			}
		},
	},
	{
		name:  "first-load timeout reasons",
		query: "?csp=1",
		js: `
const cases = {signed: "/fail/401", refused: "/fail/403", down: "/fail/503", blocked: "/embed/frame/sales"};
const results = {};
await Promise.all(Object.entries(cases).map(async ([name, src]) => {
  const el = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", "data-embedkit-ready-timeout": "5000", src});
  const f = embedkit.frame(el);
  const heard = new Promise((resolve) => f.on("load-failed", (e) => resolve(e.payload)));
  const err = await f.ready.then(() => null, (e) => e);
  const p = await heard;
  results[name] = {reason: p.reason, status: p.status === undefined ? 0 : p.status, error: err && err.name + " " + err.reason, state: f.state};
}));
return {results, console: window.__console.filter((l) => l.startsWith("warn"))};
`,
		check: func(t *testing.T, raw string) {
			type result struct {
				Reason, Error, State string
				Status               int
			}
			got := decode[struct {
				Results map[string]result
				Console []string
			}](t, raw)
			want := map[string]result{
				"signed":  {"signed-out", "EmbedkitFrameError signed-out", "ended", 401},
				"refused": {"refused-origin", "EmbedkitFrameError refused-origin", "failed", 403},
				"down":    {"unavailable", "EmbedkitFrameError unavailable", "failed", 503},
				"blocked": {"never-ready", "EmbedkitFrameError never-ready", "failed", 0},
			}
			for name, w := range want {
				if got.Results[name] != w {
					t.Errorf("%s: %+v, want %+v", name, got.Results[name], w)
				}
			}
			if len(got.Console) != len(want) {
				t.Errorf("console warnings %q, want one per frame", got.Console)
			}
			for _, l := range got.Console {
				if strings.Contains(l, "/fail/") || strings.Contains(l, "/embed/frame/") {
					t.Errorf("a warning names a URL: %q", l)
				}
			}
		},
	},
	{
		name: "debug mode names the drop reason",
		js: `
embedkit.debug(true);
const good = {source: "cube-embed", direction: "event", type: "cube:event:view", payload: {surface: "dashboard", path: "/embed/chat"}, timestamp: 1, surface: "dashboard"};
frameOf({"data-embedkit": "", id: "managed", src: sender([
  Object.assign({}, good, {source: "someone-else"}),
  Object.assign({}, good, {type: "cube:event:content-height"}),
  good,
])});
frameOf({id: "unmanaged", src: sender([good])});
window.postMessage(good, "*");
for (let i = 0; i < 100 && window.__console.filter((l) => l.startsWith("debug")).length < 5; i++) await sleep(50);
return window.__console.filter((l) => l.startsWith("debug"));
`,
		check: func(t *testing.T, raw string) {
			lines := decode[[]string](t, raw)
			for _, want := range []string{
				"dropped (wrong origin)",
				"dropped (wrong source)",
				"dropped (unknown type): \"cube:event:content-height\"",
				"dropped (unmanaged frame): \"cube:event:view\"",
				"accepted: \"cube:event:view\"",
			} {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
					t.Errorf("debug lines %q lack %q", lines, want)
				}
			}
			for _, l := range lines {
				if strings.Contains(l, "/embed/chat") {
					t.Errorf("a debug line names the payload: %q", l)
				}
			}
		},
	},
	{
		name: "src and navigate refusals",
		js: `
const el = document.createElement("embedkit-frame");
el.setAttribute("target", "sales");
el.setAttribute("src", "javascript:alert(document.domain)");
document.body.appendChild(el);
await sleep(50);
const f = embedkit.frame(frameOf({"data-embedkit": "", src: "/embed/frame/sales"}));
const refused = [];
for (const p of ["/embed/dashboard/sales?x=1", "/embed/dashboard/sales#x", "/embed/dashboard/a%2Fb", "/embed/dashboard/..", "//evil.example/x", "javascript:alert(1)"]) {
  try { f.navigate(p); } catch (e) { refused.push(e.name); }
}
const lazy = document.createElement("embedkit-frame");
lazy.setAttribute("target", "sales");
lazy.setAttribute("loading", "lazy");
document.body.appendChild(lazy);
return {src: el.querySelector("iframe").getAttribute("src"), errors: window.__errors, refused,
  loading: lazy.querySelector("iframe").getAttribute("loading")};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				Src     *string
				Errors  []string
				Refused []string
				Loading string
			}](t, raw)
			if got.Src != nil {
				t.Errorf("the iframe got src %q", *got.Src)
			}
			if len(got.Errors) != 1 || !strings.Contains(got.Errors[0], "src must be a same-origin path") {
				t.Errorf("reported errors %q, want the refusal of src", got.Errors)
			}
			if len(got.Refused) != 6 || slices.ContainsFunc(got.Refused, func(n string) bool { return n != "TypeError" }) {
				t.Errorf("navigate refused %v, want six TypeErrors", got.Refused)
			}
			if got.Loading != "lazy" {
				t.Errorf("loading %q not passed on", got.Loading)
			}
		},
	},
	{
		name: "a listener mutating a payload does not change renewal",
		js: `
const ready = {source: "cube-embed", direction: "event", type: "cube:event:ready", timestamp: 1, surface: "dashboard",
  payload: {embedTenant: null, deploymentId: 1, mode: "signed", surface: "dashboard"}};
const fatal = {source: "cube-embed", direction: "event", type: "cube:event:error", timestamp: 2, surface: "dashboard",
  payload: {message: "session expired", fatal: true, context: "embed-session"}};
// The frame's page reports ready, then a fatal session error that a new
// session fixes; the host's listener tries to turn it into a render
// error, which the kit must not renew.
const el = frameOf({"data-embedkit": "", "data-embedkit-target": "sales", src: sender([ready, fatal])});
const f = embedkit.frame(el);
let kept = "", stateAfter = "";
f.on("error", (e) => {
  try { e.payload.context = "embed-render"; e.payload.fatal = false; } catch (err) { /* strict code throws */ }
  kept = e.payload.context + " " + e.payload.fatal;
  Promise.resolve().then(() => { stateAfter = f.state; });
});
const renewed = new Promise((resolve) => f.on("session-renewed", (e) => resolve(e.payload.reason)));
const reason = await renewed;
return {kept, stateAfter, reason, src: el.getAttribute("src").startsWith(PLATFORM + "/embed/dashboard/")};
`,
		check: func(t *testing.T, raw string) {
			got := decode[struct {
				Kept       string
				StateAfter string
				Reason     string
				Src        bool
			}](t, raw)
			if got.Kept != "embed-session true" || got.StateAfter != "renewing" || got.Reason != "error" || !got.Src {
				t.Errorf("%+v: want the payload unchanged by the listener, the frame renewing and renewed (reason error) through the session endpoint", got)
			}
		},
	},
}

// readmeHTML returns the HTML snippets of the README: the page of
// "Embedding in ten lines", then those of "The host page".
func readmeHTML(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, section := range []string{"Embedding in ten lines", "The host page"} {
		blocks, err := readme.Blocks(filepath.Join("..", "..", "..", "README.md"), section, "html")
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) == 0 {
			t.Fatalf("no HTML snippet in the README's section %q; this test checks less than it says", section)
		}
		out = append(out, blocks...)
	}
	return out
}

// frameStatesJS is a JavaScript expression: the data-embedkit-state of
// every managed iframe of the page, in document order.
const frameStatesJS = `Array.from(document.querySelectorAll("iframe[data-embedkit]"), (f) => f.getAttribute("data-embedkit-state"))`

// pendingStates reads the frame states of tab for a failure message, within
// a short deadline of its own (the step's may be spent).
func pendingStates(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	states, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+frameStatesJS+`)`))
	if err != nil {
		return fmt.Sprintf("(could not be read: %v)", err)
	}
	return states
}

// TestReadmeHTMLInBrowser loads every HTML snippet of the README ("Embedding
// in ten lines" and "The host page") as a page of a host app with the kit, and checks that each
// frame it declares becomes ready.
func TestReadmeHTMLInBrowser(t *testing.T) {
	b := newBehaviourHost(t)
	browser := behaviourBrowser(t)
	snippets := readmeHTML(t)
	if len(snippets) == 0 {
		t.Fatal("no HTML snippet in the README's host page section; this test checks nothing")
	}
	for i := range snippets {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
			t.Cleanup(cancel)
			start(t, ctx, cancel, "open a tab")
			do(t, ctx, "open the snippet", chromedp.Navigate(fmt.Sprintf("%s/readme/%d", b.host, i)))
			step, stop := context.WithTimeout(ctx, stepTimeout)
			defer stop()
			states, err := chromedp.Run(step, chromedp.Poll[string](`(() => {
  const states = `+frameStatesJS+`;
  return states.length > 0 && states.every((s) => s === "ready" || s === "failed" || s === "ended") && JSON.stringify(states);
})()`, chromedp.WithPollingInterval(pollEvery), chromedp.WithPollingTimeout(stepTimeout)))
			if err != nil {
				t.Fatalf("the snippet's frames did not settle within %s: %v; frame states then: %s", stepTimeout, err, pendingStates(ctx))
			}
			var got []string
			if err := json.Unmarshal([]byte(states), &got); err != nil {
				t.Fatal(err)
			}
			for _, s := range got {
				if s != "ready" {
					t.Errorf("frame states %v, want every frame ready", got)
					break
				}
			}
		})
	}
}
