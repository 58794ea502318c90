package middleware

import (
	"maps"
	"slices"
	"testing"
)

// Sizing and <embedkit-frame>, in Node (see hostscript_node_test.go).

// TestHostScriptSizing: the sizing attributes set the iframe's style as
// soon as the script runs; viewport fit is the window's height below the
// iframe, clamped by min and max (min 320 by default).
func TestHostScriptSizing(t *testing.T) {
	t.Parallel()
	type style struct {
		Display, Width, Height, MinHeight, MaxHeight string
	}
	for _, tc := range []struct {
		name  string
		attrs map[string]string
		top   int
		want  style
	}{
		{"viewport", map[string]string{"data-embedkit-fit": "viewport"}, 100, style{"block", "", "800px", "320px", ""}},
		{"viewport below the default minimum", map[string]string{"data-embedkit-fit": "viewport"}, 700, style{"block", "", "320px", "320px", ""}},
		{"viewport below min-height", map[string]string{"data-embedkit-fit": "viewport", "data-embedkit-min-height": "480"}, 600, style{"block", "", "480px", "480px", ""}},
		{"viewport above max-height", map[string]string{"data-embedkit-fit": "viewport", "data-embedkit-max-height": "500"}, 0, style{"block", "", "500px", "320px", "500px"}},
		{"viewport min wins over max", map[string]string{"data-embedkit-fit": "viewport", "data-embedkit-min-height": "600", "data-embedkit-max-height": "400"}, 0, style{"block", "", "600px", "600px", "400px"}},
		{"viewport bad min-height", map[string]string{"data-embedkit-fit": "viewport", "data-embedkit-min-height": "tall"}, 850, style{"block", "", "320px", "320px", ""}},
		{"container", map[string]string{"data-embedkit-fit": "container"}, 100, style{"block", "100%", "100%", "320px", ""}},
		{"container with bounds", map[string]string{"data-embedkit-fit": "container", "data-embedkit-min-height": "200", "data-embedkit-max-height": "640px"}, 100, style{"block", "100%", "100%", "200px", "640px"}},
		{"no fit, min-height", map[string]string{"data-embedkit-min-height": "400"}, 100, style{"", "", "", "400px", ""}},
		{"no fit", map[string]string{}, 100, style{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHost(t, `
const a = h.iframe({id: "a", target: "sales", attrs: `+js(tc.attrs)+`, top: `+js(tc.top)+`});
h.win.innerHeight = 900;
h.load();
return a.style;
`)
			var got style
			r.result(t, &got)
			if got != tc.want {
				t.Errorf("style %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestHostScriptSizingFollowsTheWindow: viewport frames are sized again
// on resize, in an animation frame, once per frame however many resize
// events came; frames added later and attribute changes are sized too.
func TestHostScriptSizingFollowsTheWindow(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
h.win.innerHeight = 900;
const a = h.iframe({id: "a", target: "sales", attrs: {"data-embedkit-fit": "viewport"}, top: 100});
h.load();
const out = {atLoad: a.style.height};
h.win.innerHeight = 1200;
h.fire("resize"); h.fire("resize");
out.beforeFrame = a.style.height;
h.raf();
out.afterFrame = a.style.height;
const b = h.iframe({id: "b", target: "chat", attrs: {"data-embedkit-fit": "viewport", "data-embedkit-max-height": "700"}, top: 0});
await h.flush();
out.added = b.style.height;
b.setAttribute("data-embedkit-max-height", "650");
await h.flush();
out.changed = b.style.height;
return out;
`)
	var res struct{ AtLoad, BeforeFrame, AfterFrame, Added, Changed string }
	r.result(t, &res)
	want := struct{ AtLoad, BeforeFrame, AfterFrame, Added, Changed string }{"800px", "800px", "1100px", "700px", "650px"}
	if res != want {
		t.Errorf("heights %+v, want %+v", res, want)
	}
}

// TestHostScriptCustomElement: <embedkit-frame> creates one iframe with
// the documented attributes and exposes the handle's API on itself.
func TestHostScriptCustomElement(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
h.load();
const k = h.win.embedkit;
const el = h.doc.createElement("embedkit-frame");
el.setAttribute("target", "dashboard/regional-performance");
el.setAttribute("title", "Regional performance");
el.setAttribute("fit", "viewport");
el.setAttribute("min-height", "480");
el.setAttribute("max-height", "720");
el.setAttribute("renew-after", "600000");
el.id = "second";
h.doc.body.appendChild(el);
const iframes = el.children.filter((c) => c.localName === "iframe");
const f = iframes[0];
const attrs = Object.fromEntries(f.attrs);
h.listen(el.frame, "ready");
el.on("dashboard-loaded", (e) => h.log.push({kind: "mark", Value: e.name}));
h.ready(f);
h.event(f, "cube:event:dashboard-loaded", {publicId: "regional-performance", widgetCount: 2});
el.setLocale("ja-JP");
el.setFilter("sales.region", "APAC");
const methods = ["on", "off", "setLocale", "setTimezone", "setTheme", "setColorScheme", "setFilter", "navigate", "refresh", "reload"]
  .filter((m) => typeof el[m] !== "function");
const same = el.frame === k.frame(el) && el.frame === k.frame(f) && el.frame === k.frame("#second") && el.frame.element === f;
const listed = k.frames().map((x) => x.element === f);
el.setAttribute("target", "sales");
const plain = h.doc.createElement("embedkit-frame");
plain.setAttribute("target", "chat");
h.doc.body.appendChild(plain);
const own = h.doc.createElement("embedkit-frame");
own.setAttribute("target", "sales");
own.setAttribute("src", "/embed/frame/dashboard/regional-performance?locale=de-DE");
h.doc.body.appendChild(own);
return {
  count: iframes.length, attrs, style: f.style, methods, same, listed,
  retargeted: f.getAttribute("src"),
  plain: Object.fromEntries(plain.children[0].attrs),
  own: own.children[0].getAttribute("src"),
  defined: typeof h.win.customElements.get("embedkit-frame"),
};
`)
	var res struct {
		Count           int
		Attrs, Plain    map[string]string
		Style           map[string]string
		Methods         []string
		Same            bool
		Listed          []bool
		Retargeted, Own string
		Defined         string
	}
	r.result(t, &res)
	if res.Defined != "function" {
		t.Fatalf("customElements.get(\"embedkit-frame\") is %s", res.Defined)
	}
	if res.Count != 1 {
		t.Fatalf("%d iframes in the element, want 1", res.Count)
	}
	want := map[string]string{
		"data-embedkit": "", "data-embedkit-target": "dashboard/regional-performance",
		"src": "/embed/frame/dashboard/regional-performance", "title": "Regional performance",
		"referrerpolicy": "no-referrer", "allow": "fullscreen",
		"data-embedkit-fit": "viewport", "data-embedkit-min-height": "480", "data-embedkit-max-height": "720",
		"data-embedkit-renew-after": "600000", "data-embedkit-state": "loading", "aria-busy": "true",
	}
	if !maps.Equal(res.Attrs, want) {
		t.Errorf("iframe attributes %v, want %v", res.Attrs, want)
	}
	if res.Style["height"] != "720px" || res.Style["minHeight"] != "480px" {
		t.Errorf("iframe style %v, want the viewport fit clamped to 720px", res.Style)
	}
	if len(res.Methods) != 0 {
		t.Errorf("the element lacks %v", res.Methods)
	}
	if !res.Same || !slices.Equal(res.Listed, []bool{true}) {
		t.Errorf("el.frame is embedkit.frame(el) and of its iframe: %t; frames() %v", res.Same, res.Listed)
	}
	if got := r.heard("second", "ready"); len(got) != 0 {
		t.Errorf("listener recorded under the element's id: %v", got)
	}
	if got := r.heard("second>iframe", "ready"); len(got) != 1 || got[0].Name != "ready" {
		t.Errorf("el.frame.on(ready) heard %v", got)
	}
	var marks []string
	for _, e := range r.of("mark") {
		marks = append(marks, e.Value)
	}
	if !slices.Equal(marks, []string{"dashboard-loaded"}) {
		t.Errorf("el.on(dashboard-loaded) heard %v", marks)
	}
	if got := r.postTypes("second>iframe"); !slices.Equal(got, []string{"cube:action:set-locale", "cube:action:set-filter"}) {
		t.Errorf("el.setLocale/setFilter posted %v", got)
	}
	if res.Retargeted != "/embed/frame/sales" {
		t.Errorf("after target changed, src %q", res.Retargeted)
	}
	if res.Plain["title"] != "Analytics" || res.Plain["src"] != "/embed/frame/chat" {
		t.Errorf("an element with only a target made %v", res.Plain)
	}
	if res.Own != "/embed/frame/dashboard/regional-performance?locale=de-DE" {
		t.Errorf("the src attribute is not the iframe's src: %q", res.Own)
	}
}

// TestHostScriptCustomElementBadTarget: a target that is not a name or a
// path of names gets no src (so nothing loads) and a reported error.
func TestHostScriptCustomElementBadTarget(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"../logout", "sales?x=1", "a//b", "sales#top", "/embed/frame/sales", "dashboard/./x"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			r := runHostAllowErrors(t, `
h.load();
const el = h.doc.createElement("embedkit-frame");
el.setAttribute("target", `+js(target)+`);
h.doc.body.appendChild(el);
return el.children[0].getAttribute("src");
`)
			var src *string
			r.result(t, &src)
			if src != nil {
				t.Errorf("src %q", *src)
			}
			if len(r.Errors) != 1 {
				t.Errorf("reported %q, want one error", r.Errors)
			}
		})
	}
}

// TestHostScriptLoadedTwice: a second copy of the script changes nothing:
// events are heard once, the element is defined once.
func TestHostScriptLoadedTwice(t *testing.T) {
	t.Parallel()
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
const first = h.win.embedkit;
h.load();
h.listen(first.frame(a), "view");
h.event(a, "cube:event:view", {surface: "dashboard", path: "/embed/dashboard/sales"});
return h.win.embedkit === first;
`)
	var same bool
	r.result(t, &same)
	if !same || len(r.heard("a", "view")) != 1 || len(r.of("dom")) != 1 {
		t.Errorf("same api %t, heard %d, DOM events %d; want the first copy only", same, len(r.heard("a", "view")), len(r.of("dom")))
	}
}
