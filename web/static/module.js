// The demo's module page (/module): one dashboard embedded by the npm
// package's plain ES module (@embedkit/host), imported as it is from the
// kit's folder (served by the demo at /embed/module/, see
// hostpage.Modules), with no bundler and no other host script on the
// page. The iframe is the server's; its src, the platform URL the page's
// handler minted as it rendered (Kit.FrameURL), comes in data-module-src
// and is set below, once the module listens. data-embedkit-target lets
// the module re-mint it through the session endpoint; the settings come
// from <div id="module-root" data-config="{...}">.

import { configure, frame } from "/embed/module/index.js";

const MAX_EVENTS = 30;

const root = document.getElementById("module-root");
const config = JSON.parse(root.dataset.config);
configure(config.settings);

const sales = frame("#module-frame");
// Only now that the module listens does the frame load: the platform sends
// ready once, at mount, and on a fast connection a frame whose src was in
// the HTML can mount before this module graph has arrived.
const el = document.getElementById("module-frame");
el.src = el.dataset.moduleSrc;
const state = document.getElementById("module-state");
const log = document.getElementById("module-events");
const timeFormat = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { timeStyle: "medium" });

function show() {
  state.textContent = sales.state;
}

function describe(ev) {
  const p = ev.payload || {};
  switch (ev.name) {
    case "drilldown": return p.member + " = " + JSON.stringify(p.value);
    case "view": return p.title || p.path || "";
    case "dashboard-loaded": return (p.widgetCount || 0) + " widgets";
    case "load-failed": return p.reason || "";
    default: return "";
  }
}

// Every event of the frame, the platform's and the kit's, newest first.
// Payload text is the embedded page's: it is shown as text, never as HTML.
sales.on("*", (ev) => {
  const item = document.createElement("li");
  item.dataset.event = ev.name;
  const time = document.createElement("time");
  time.textContent = timeFormat.format(new Date());
  item.append(time, " " + ev.name + " " + describe(ev));
  log.prepend(item);
  while (log.children.length > MAX_EVENTS) log.lastChild.remove();
  show();
});

// The frame may have been ready before this script ran; ready is the
// current ready event's promise either way.
sales.ready.then(show, show);
show();

document.getElementById("module-refresh").addEventListener("click", () => {
  // Resolves on the next dashboard-loaded; a frame that ends first
  // rejects it with the reason.
  sales.refresh().catch((err) => console.warn("refresh:", err.message));
});
