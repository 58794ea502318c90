// The demo's React page (/react): the same dashboards as /dashboards,
// embedded by the npm package's React entry (@embedkit/host/react)
// instead of the served host script. Bundled with React by
// internal/reactbuild into /static/react.js (`go generate ./web/static`).
//
// The page renders its settings and choices into
// <div id="react-root" data-config="{...}">: the kit's HostSettings, the
// dashboards (target and title) and the filters offered. The viewer's
// locale and time zone are signed into each session by the kit. It runs in StrictMode, which mounts every component, runs its
// effects, removes them and runs them again: the frame is still created
// and minted once.

import { Activity, StrictMode, createElement as h, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { configure } from "@embedkit/host";
import { EmbedkitFrame, useEmbedkitFrame } from "@embedkit/host/react";

const MAX_EVENTS = 30;

function Select({ id, label, value, options, onChange }) {
  return h("div", { className: "field filter-field" },
    h("label", { htmlFor: id }, label),
    h("select", { id: id, value: value, onChange: (e) => onChange(e.target.value) },
      options.map(([v, text]) => h("option", { key: v, value: v }, text))));
}

function describe(ev) {
  const p = ev.payload || {};
  switch (ev.name) {
    case "drilldown": return p.member + " = " + JSON.stringify(p.value);
    case "view": return p.title || p.path || "";
    case "dashboard-loaded": return (p.widgetCount || 0) + " widgets";
    case "download": return p.format + (typeof p.rowCount === "number" ? " (" + p.rowCount + " rows)" : "");
    default: return "";
  }
}

function App({ config }) {
  const [target, setTarget] = useState(config.dashboards[0].target);
  const [filters, setFilters] = useState({});
  const [scheme, setScheme] = useState("");
  const [shown, setShown] = useState(true);
  const [visible, setVisible] = useState(true);
  const [events, setEvents] = useState([]);
  // The frame handle, for the actions that are not props (refresh).
  const ref = useRef(null);
  const frame = useEmbedkitFrame(ref);
  const title = config.dashboards.find((d) => d.target === target).title;

  const onEvent = (ev) => setEvents((list) => [{ n: Date.now() + Math.random(), name: ev.name, text: describe(ev) }]
    .concat(list).slice(0, MAX_EVENTS));
  const setFilter = (member, value) => setFilters((f) => {
    const next = Object.assign({}, f);
    if (value === "") delete next[member];
    else next[member] = value;
    return next;
  });

  return h("div", { className: "embed-layout" },
    h("section", { className: "embed-main", "aria-label": title },
      h("div", { id: "filter-bar", className: "filter-bar", role: "group", "aria-label": "Dashboard and filters" },
        h(Select, {
          id: "react-dashboard", label: "Dashboard", value: target, onChange: setTarget,
          options: config.dashboards.map((d) => [d.target, d.title])
        }),
        config.filters.map((f) => h(Select, {
          key: f.member, id: "react-filter-" + f.member.replace(".", "-"), label: f.label,
          value: filters[f.member] || "", onChange: (v) => setFilter(f.member, v),
          options: [["", "All"]].concat(f.values)
        })),
        h(Select, {
          id: "react-scheme", label: "Colour scheme", value: scheme, onChange: setScheme,
          options: [["", "As signed"], ["light", "Light"], ["dark", "Dark"]]
        }),
        h("button", {
          id: "react-refresh", type: "button", className: "button button-secondary",
          disabled: !frame, onClick: () => frame.refresh()
        }, "Refresh"),
        h("button", {
          id: "react-visible", type: "button", className: "button button-secondary",
          onClick: () => setVisible((v) => !v)
        }, visible ? "Hide, kept mounted" : "Show"),
        h("button", {
          id: "react-toggle", type: "button", className: "button button-secondary",
          onClick: () => setShown((s) => !s)
        }, shown ? "Unmount the frame" : "Mount the frame")),
      // A hidden Activity keeps the iframe (and its session) but runs
      // the component's effect cleanups: the frame is not released.
      h(Activity, { mode: visible ? "visible" : "hidden" }, h("div", { className: "embed-frame-box" },
        shown ? h(EmbedkitFrame, {
          ref: ref, id: "embed-frame", className: "embed-frame", target: target, title: title,
          filters: filters, colorScheme: scheme || undefined,
          fit: "viewport", minHeight: 720, onEvent: onEvent
        }) : h("p", { id: "react-unmounted", className: "settings-help" }, "The frame is unmounted: no session, no listener.")))),
    h("aside", { className: "embed-aside", "aria-label": "Embed events" },
      h("section", { className: "card event-log", "aria-labelledby": "event-log-title" },
        h("h2", { id: "event-log-title", className: "settings-title" }, "Embed events"),
        h("p", { className: "settings-help" }, "What the embedded dashboard tells this React page, through the component's onEvent prop."),
        h("ol", { id: "event-log", className: "event-log-list", "aria-live": "polite" },
          events.map((e) => h("li", { key: e.n, className: "event-log-item", "data-event": e.name },
            h("code", null, e.name), e.text ? " " + e.text : ""))))));
}

const root = document.getElementById("react-root");
const config = JSON.parse(root.getAttribute("data-config"));
configure(config.settings);
createRoot(root).render(h(StrictMode, null, h(App, { config: config })));
