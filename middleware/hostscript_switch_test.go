package middleware

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// Switching a frame to another target (show(target), <embedkit-frame
// target>, the React target prop), in Node (see hostscript_node_test.go):
// in place with cube:action:navigate only between targets whose grant and
// pinned tags, published by the server in the script's settings, agree;
// else a new frame.

// switchTargets is the test kit's registry for these tests.
func switchTargets(c *Config) {
	c.Targets = map[string]Target{
		"sales":  {Kind: KindDashboard, PublicID: "sales-overview", Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{{Member: "sales.region", Value: "EMEA"}}}},
		"ops":    {Kind: KindDashboard, PublicID: "ops", Controls: embedkit.DashboardControls{Filters: []embedkit.DashboardFilter{{Member: "ops.team", Value: "core"}}}},
		"plain":  {Kind: KindDashboard, PublicID: "plain"},
		"themed": {Kind: KindDashboard, PublicID: "themed", Theme: &embedkit.EmbedTheme{PrimaryColor: "#ff0000"}},
		"bare":   {Kind: KindDashboard, PublicID: "bare", Chrome: Chrome{HideDashboardHeader: true}},
		"grains": {Kind: KindDashboard, PublicID: "grains", Controls: embedkit.DashboardControls{TimeGrains: []embedkit.DashboardTimeGrain{{Member: "sales.month", Grain: "week"}}}},
		"scoped": {Kind: KindDashboard, PublicID: "scoped", RouteScoped: true},
		"own":    {Kind: KindDashboard, PublicID: "own", SecurityContext: map[string]any{"project": "p1"}},
	}
}

// switchPrelude: frame a shows sales, ready, with a host filter and a
// locale set through the script; the show() promise's outcome is logged
// as kind "shown" (value: the dashboard-loaded publicId, or the error's
// reason).
const switchPrelude = `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const fa = h.win.embedkit.frame(a);
for (const n of ["ready", "dashboard-loaded", "error", "load-failed"]) h.listen(fa, n);
fa.setFilter("sales.product", "widgets");
fa.setLocale("de-DE");
h.ready(a);
h.event(a, "cube:event:dashboard-loaded", {publicId: "sales-overview"});
await h.flush();
const showing = (p) => p.then((ev) => h.log.push({kind: "shown", value: ev ? ev.payload.publicId : "none"}),
  (err) => h.log.push({kind: "shown", value: "rejected:" + err.reason}));
// moveTo plays the embed's side of a documented move.
const moveTo = (el, id, path) => {
  path = path || "/embed/dashboard/" + id;
  h.event(el, "cube:event:navigate", {path, previousPath: "/embed/dashboard/sales-overview"});
  h.event(el, "cube:event:view", {surface: "dashboard", path, publicId: id});
};
`

func filterParam(member string, value string) string {
	return "f_" + url.QueryEscape(member) + "=" + strings.ReplaceAll(url.QueryEscape(value), "+", "%20")
}

// setFilters returns the set-filter parameters posted to frame, in order.
func (r *hostRun) setFilters(frame string) []string {
	var out []string
	for _, p := range r.posts(frame) {
		if p.Msg.Type == "cube:action:set-filter" {
			out = append(out, p.Msg.Payload.(map[string]any)["filterUrlParameter"].(string))
		}
	}
	return out
}

func (r *hostRun) shown() []string {
	var out []string
	for _, e := range r.of("shown") {
		out = append(out, e.Value)
	}
	return out
}

// TestHostScriptShowInPlace: between two targets with equal tags the
// frame navigates: navigate {path} only, no src set, no session request;
// once the embed reports the move, the old target's preset and host
// filters are cleared, the new target's presets sent, then what the host
// asked meanwhile; show() resolves on the new dashboard's
// dashboard-loaded (not an old one's); ready is not fired again; the
// frame's target is the new one.
func TestHostScriptShowInPlace(t *testing.T) {
	t.Parallel()
	r := runHostOf(t, switchTargets, switchPrelude+`
const before = h.log.length;
showing(fa.show("ops"));
fa.setFilter("ops.region", "north");
await h.flush();
const queued = h.log.slice(before).filter((e) => e.kind === "post").length;
h.event(a, "cube:event:dashboard-loaded", {publicId: "sales-overview"});
moveTo(a, "ops");
await h.flush();
const early = h.log.filter((e) => e.kind === "shown").length;
h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});
await h.flush();
return {queued, early, target: a.getAttribute("data-embedkit-target"), handleTarget: fa.target, state: fa.state,
  filters: Object.assign({}, fa.filters()), settings: Object.assign({}, fa.settings())};
`)
	var res struct {
		Queued, Early        int
		Target, HandleTarget string
		State                string
		Filters              map[string]any
		Settings             map[string]any
	}
	r.result(t, &res)
	if res.Queued != 1 {
		t.Errorf("%d posts before the embed reported the move, want 1 (navigate)", res.Queued)
	}
	types := r.postTypes("a")
	i := slices.Index(types, "cube:action:navigate")
	if i < 0 {
		t.Fatalf("no navigate posted: %q", types)
	}
	if p := r.posts("a")[i].Msg.Payload.(map[string]any)["path"]; p != "/embed/dashboard/ops" {
		t.Errorf("navigate path %v", p)
	}
	if n := len(r.of("src")); n != 1 {
		t.Errorf("src set %d times, want once (the first load)", n)
	}
	if n := len(r.of("fetch")); n != 0 {
		t.Errorf("%d requests, want none (no new session)", n)
	}
	null := `{"value":null}`
	want := []string{filterParam("sales.product", `{"value":"widgets"}`), // set before the move
		filterParam("sales.product", null), filterParam("sales.region", null), // cleared
		filterParam("ops.team", `{"value":"core"}`),    // the new target's preset
		filterParam("ops.region", `{"value":"north"}`)} // the host's, after
	if got := r.setFilters("a"); !slices.Equal(got, want) {
		t.Errorf("set-filter parameters\n%q\nwant\n%q", got, want)
	}
	if res.Early != 0 || !slices.Equal(r.shown(), []string{"ops"}) {
		t.Errorf("shown %q (early %d), want ops on its dashboard-loaded only", r.shown(), res.Early)
	}
	if len(r.heard("a", "ready")) != 1 {
		t.Errorf("ready heard %d times, want once", len(r.heard("a", "ready")))
	}
	if res.Target != "ops" || res.HandleTarget != "ops" || res.State != "ready" {
		t.Errorf("target %q, handle %q, state %q", res.Target, res.HandleTarget, res.State)
	}
	if _, kept := res.Filters["sales.product"]; kept || res.Filters["ops.region"] != "north" {
		t.Errorf("filters() %v, want ops.region only", res.Filters)
	}
	if res.Settings["locale"] != "de-DE" {
		t.Errorf("settings() %v, want the locale kept", res.Settings)
	}
}

// TestHostScriptShowNewFrame: any other switch loads a new frame: the
// iframe's src becomes the frame endpoint of the new target, no navigate
// is posted, the state is loading; after the new document's ready the
// locale is sent again but not the old target's filters, and show()
// resolves on its dashboard-loaded.
func TestHostScriptShowNewFrame(t *testing.T) {
	t.Parallel()
	// shown: the publicId show() resolves with, after a late
	// dashboard-loaded of the old document and then the new one's; a
	// target the settings do not list has no known publicId, so the
	// first resolves it.
	for _, tc := range []struct {
		name, setup, to, id, shown string
	}{
		{"another grant (theme)", "", "themed", "themed", "themed"},
		{"other chrome", "", "bare", "bare", "bare"},
		{"a time grain preset", "", "grains", "grains", "grains"},
		{"route scoped", "", "scoped", "scoped", "sales-overview"},
		{"own security context", "", "own", "own", "sales-overview"},
		{"an unlisted dashboard", "", "dashboard/elsewhere", "elsewhere", "elsewhere"},
		{"from an unlisted target", `a.setAttribute("data-embedkit-target", "dashboard/elsewhere");`, "ops", "ops", "ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHostOf(t, switchTargets, switchPrelude+tc.setup+`
await h.flush();
const before = h.log.length;
showing(fa.show(`+js(tc.to)+`));
await h.flush();
const state = fa.state;
const srcs = h.log.slice(before).filter((e) => e.kind === "src").map((e) => e.value);
const navs = h.log.slice(before).filter((e) => e.kind === "post" && e.msg.type === "cube:action:navigate").length;
const mark = h.log.length;
h.event(a, "cube:event:dashboard-loaded", {publicId: "sales-overview"});
h.ready(a);
h.event(a, "cube:event:dashboard-loaded", {publicId: `+js(tc.id)+`});
await h.flush();
const after = h.log.slice(mark).filter((e) => e.kind === "post").map((e) => e.msg.type + " " + JSON.stringify(e.msg.payload));
return {state, srcs, navs, after};
`)
			var res struct {
				State string
				Srcs  []string
				Navs  int
				After []string
			}
			r.result(t, &res)
			if res.State != "loading" || !slices.Equal(res.Srcs, []string{"/embed/frame/" + tc.to}) || res.Navs != 0 {
				t.Errorf("state %q, src %q, navigate posts %d; want loading, the new target's frame path once, none", res.State, res.Srcs, res.Navs)
			}
			for _, p := range res.After {
				if strings.Contains(p, "sales.product") {
					t.Errorf("the old target's filter was sent to the new frame: %s", p)
				}
			}
			if !slices.ContainsFunc(res.After, func(p string) bool { return strings.HasPrefix(p, "cube:action:set-locale") }) {
				t.Errorf("after ready %q, want the locale sent again", res.After)
			}
			if !slices.Equal(r.shown(), []string{tc.shown}) {
				t.Errorf("shown %q, want %q", r.shown(), tc.shown)
			}
		})
	}
}

// TestHostScriptShowJoins: the same target again joins the switch under
// way: one navigate (in place) or one load (new frame), both promises
// resolved; another target supersedes it.
func TestHostScriptShowJoins(t *testing.T) {
	t.Parallel()
	r := runHostOf(t, switchTargets, switchPrelude+`
showing(fa.show("ops"));
showing(fa.show("ops"));
moveTo(a, "ops");
h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});
await h.flush();
showing(fa.show("themed"));
showing(fa.show("themed"));
h.ready(a);
h.event(a, "cube:event:dashboard-loaded", {publicId: "themed"});
await h.flush();
showing(fa.show("plain"));
showing(fa.show("sales"));
return null;
`)
	var navs []any
	for _, p := range r.posts("a") {
		if p.Msg.Type == "cube:action:navigate" {
			navs = append(navs, p.Msg.Payload.(map[string]any)["path"])
		}
	}
	var srcs []string
	for _, s := range r.of("src") {
		srcs = append(srcs, s.Value)
	}
	if !slices.Equal(navs, []any{"/embed/dashboard/ops"}) || !slices.Equal(srcs, []string{"/embed/frame/sales", "/embed/frame/themed", "/embed/frame/plain", "/embed/frame/sales"}) {
		t.Errorf("navigate %v, src %q", navs, srcs)
	}
	if want := []string{"ops", "ops", "themed", "themed", "rejected:superseded"}; !slices.Equal(r.shown(), want) {
		t.Errorf("shown %q, want %q", r.shown(), want)
	}
}

// TestHostScriptShowFallsBackOnce: a move that fails (an error event, or
// no dashboard-loaded within the ready timeout) becomes a new frame of
// the new target, once; the new frame's own failure is not retried as a
// move, and a refusal rejects show().
func TestHostScriptShowFallsBackOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fail, then string
		shown            []string
	}{
		{"error event", `h.event(a, "cube:event:error", {message: "signed embedding is not allowed for this dashboard", context: "embed-context", fatal: true});`,
			`h.ready(a); h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});`, []string{"ops"}},
		{"no dashboard-loaded in time", `await h.advance(30000);`,
			`h.ready(a); h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});`, []string{"ops"}},
		{"the new frame is refused too", `h.event(a, "cube:event:error", {message: "not allowed", context: "embed-context", fatal: true});`,
			`h.event(a, "cube:event:error", {message: "signed embedding is not allowed for this dashboard", context: "embed-context", fatal: true});`, []string{"rejected:refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHostOf(t, switchTargets, switchPrelude+`
showing(fa.show("ops"));
h.event(a, "cube:event:navigate", {path: "/embed/dashboard/ops", previousPath: "/embed/dashboard/sales-overview"});
`+tc.fail+`
await h.flush();
`+tc.then+`
await h.flush();
return null;
`)
			var moves, srcs int
			for _, p := range r.posts("a") {
				if p.Msg.Type == "cube:action:navigate" {
					moves++
				}
			}
			for _, s := range r.of("src") {
				if s.Value == "/embed/frame/ops" {
					srcs++
				}
			}
			if moves != 1 || srcs != 1 {
				t.Errorf("navigate posted %d times, new frame loaded %d times; want once each", moves, srcs)
			}
			if !slices.Equal(r.shown(), tc.shown) {
				t.Errorf("shown %q, want %q", r.shown(), tc.shown)
			}
		})
	}
}

// TestHostScriptShowThenRenew: a frame that moved renews by the target it
// shows: in place, the session request names the new target; by reload,
// the frame endpoint of the new target is probed and loaded.
func TestHostScriptShowThenRenew(t *testing.T) {
	t.Parallel()
	r := runHostOf(t, switchTargets, switchPrelude+`
showing(fa.show("ops"));
moveTo(a, "ops");
h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});
await h.flush();
h.respond({status: 200, json: {sessionId: "fresh-id-1", url: h.PLATFORM + "/embed/dashboard/ops?session=x"}});
h.event(a, "cube:event:session-expiring", {});
await h.advance(6000);
h.respond({status: 204});
fa.reload();
await h.advance(2000);
return null;
`)
	posts := r.sessionPosts()
	if len(posts) != 1 || posts[0].Body == nil || !strings.Contains(*posts[0].Body, `"target":"ops"`) {
		t.Errorf("session requests %+v, want one for target ops", posts)
	}
	if len(r.setSessions("a")) != 1 {
		t.Errorf("set-session posted %d times, want once", len(r.setSessions("a")))
	}
	var heads []string
	for _, f := range r.of("fetch") {
		if f.Method == "HEAD" {
			heads = append(heads, f.URL)
		}
	}
	srcs := r.of("src")
	if len(heads) != 1 || !strings.HasSuffix(heads[0], "/embed/frame/ops") || srcs[len(srcs)-1].Value != "/embed/frame/ops" {
		t.Errorf("reload probed %q and loaded %q, want the frame endpoint of ops", heads, srcs[len(srcs)-1].Value)
	}
}

// TestHostScriptElementSwitches: <embedkit-frame>'s target attribute and
// its show() switch its one iframe in place where the tags agree.
func TestHostScriptElementSwitches(t *testing.T) {
	t.Parallel()
	r := runHostOf(t, switchTargets, `
h.load();
const el = h.doc.createElement("embedkit-frame");
el.setAttribute("target", "sales");
h.doc.body.appendChild(el);
const a = el.children[0];
a.setAttribute("id", "a");
h.ready(a);
await h.flush();
el.setAttribute("target", "plain");
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/plain", publicId: "plain"});
h.event(a, "cube:event:dashboard-loaded", {publicId: "plain"});
await h.flush();
const p = el.show("ops");
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/ops", publicId: "ops"});
h.event(a, "cube:event:dashboard-loaded", {publicId: "ops"});
const ev = await p;
el.setAttribute("title", "Ops");
await h.flush();
return {shown: ev.payload.publicId, target: el.getAttribute("target"), frameTarget: a.getAttribute("data-embedkit-target"),
  children: el.children.length};
`)
	var res struct {
		Shown, Target, FrameTarget string
		Children                   int
	}
	r.result(t, &res)
	if res.Shown != "ops" || res.Target != "ops" || res.FrameTarget != "ops" || res.Children != 1 {
		t.Errorf("%+v, want ops shown in the one iframe", res)
	}
	if n := len(r.of("src")); n != 1 {
		t.Errorf("src set %d times, want once", n)
	}
	var paths []any
	for _, p := range r.posts("a") {
		if p.Msg.Type == "cube:action:navigate" {
			paths = append(paths, p.Msg.Payload.(map[string]any)["path"])
		}
	}
	if !slices.Equal(paths, []any{"/embed/dashboard/plain", "/embed/dashboard/ops"}) {
		t.Errorf("navigate paths %v", paths)
	}
}

// TestHostPageSettingsTargetsChecked: the module's configure() refuses
// malformed targets, naming the field. (The served script has the kit's
// settings built in and no configure(): a page cannot give it tags.)
func TestHostPageSettingsTargetsChecked(t *testing.T) {
	t.Parallel()
	node := nodePath(t)
	mod, err := filepath.Abs(filepath.Join("..", "hostpage", "src", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, targets string }{
		{"not an object", `"sales"`},
		{"a path of another form", `{"x": {path: "/embed/chat", grant: "g", pinned: "p"}}`},
		{"an absolute url", `{"x": {path: "https://evil.example/embed/dashboard/x", grant: "g", pinned: "p"}}`},
		{"no grant", `{"x": {path: "/embed/dashboard/x", pinned: "p"}}`},
		{"a filter of another parameter", `{"x": {path: "/embed/dashboard/x", grant: "g", pinned: "p", filters: ["tg_a.b=week"]}}`},
	}
	var b strings.Builder
	b.WriteString("const m = await import(" + js("file://"+mod) + ");\nconst out = [];\n")
	for _, tc := range cases {
		b.WriteString("try { m.configure({platformOrigin: \"https://acme.example.com\", targets: " + tc.targets + "}); out.push(\"\"); } catch (e) { out.push(e.message); }\n")
	}
	b.WriteString(`m.configure({platformOrigin: "https://acme.example.com", targets: {x: {path: "/embed/d/4/dashboard/x", grant: "g-1", pinned: "p_2", filters: ["f_a.b=%7B%7D"]}}});
out.push(m.configured() ? "ok" : "unconfigured");
process.stdout.write(JSON.stringify(out));
`)
	file := filepath.Join(t.TempDir(), "targets.mjs")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, file).Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var msgs []string
	if err := json.Unmarshal(out, &msgs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, tc := range cases {
		if !strings.Contains(msgs[i], "settings.targets") {
			t.Errorf("%s: configure said %q, want an error naming settings.targets", tc.name, msgs[i])
		}
	}
	if msgs[len(cases)] != "ok" {
		t.Errorf("well-formed targets: %q", msgs[len(cases)])
	}
}
