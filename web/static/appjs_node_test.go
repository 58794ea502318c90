package static

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// appScriptHarness runs app.js in Node against a minimal stand-in for the
// DOM, drives it through settings changes, embed events and menu clicks,
// and prints every check that failed.
const appScriptHarness = `
const fs = require("fs");
const failures = [];
let checks = 0;
function check(name, got, want) {
  checks++;
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) failures.push(name + ": got " + g + ", want " + w);
}

function element(tag, attrs) {
  const el = {
    nodeName: tag.toUpperCase(), attrs: Object.assign({}, attrs || {}), dataset: {},
    children: [], listeners: {}, classes: new Set(), parent: null,
    get firstChild() { return this.children[0] || null; },
    get lastChild() { return this.children[this.children.length - 1] || null; },
    insertBefore(c, ref) { c.parent = this; const i = this.children.indexOf(ref); if (i < 0) this.children.push(c); else this.children.splice(i, 0, c); return c; },
    setAttribute(k, v) { this.attrs[k] = String(v); },
    get textContent() { return this.children.map((c) => c.textContent !== undefined ? c.textContent : c.data).join(""); },
    set textContent(v) { this.children = [{ data: String(v) }]; },
    appendChild(c) { c.parent = this; this.children.push(c); return c; },
    removeChild(c) { this.children = this.children.filter((x) => x !== c); return c; },
    getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; },
    hasAttribute(k) { return k in this.attrs; },
    removeAttribute(k) { delete this.attrs[k]; },
    querySelector(sel) {
      return this.children.find((c) => c.attrs && (("." + c.attrs.class) === sel || c.nodeName === sel.toUpperCase())) || null;
    },
    addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); },
    contains(n) { for (let p = n; p; p = p.parent) if (p === this) return true; return false; },
    focus() { document.activeElement = this; },
    classList: null,
  };
  el.classList = { add: (c) => el.classes.add(c), contains: (c) => el.classes.has(c) };
  return el;
}

const html = element("html");
const form = element("form", { id: "settings", action: "/settings" });
const settingsStatus = element("p", { id: "settings-status" });
const embedStatus = element("p", { id: "embed-status" });
embedStatus.dataset.state = "loading";
const statusText = embedStatus.appendChild(element("span", { class: "status-text" }));
statusText.textContent = "Connecting…";
const frame = element("iframe", { id: "embed-frame", "data-embedkit": "" });
const other = element("iframe", { id: "other" });
const menu = element("details", { id: "account-menu", open: "" });
const summary = menu.appendChild(element("summary"));
const inside = menu.appendChild(element("button"));
const outside = element("div");
const accountName = element("span", { id: "account-name" });
accountName.textContent = "Ana Lima";
const accountTenant = element("span", { id: "account-tenant" });
accountTenant.textContent = "northwind";
const accountPanel = element("div", { class: "account-panel" });
accountPanel.appendChild(element("p")).textContent = "Ana Lima";
const filterBar = element("div", { id: "filter-bar" });
const regionSelect = filterBar.appendChild(element("select", { "data-embedkit-filter": "sales.region" }));
const refreshButton = element("button", { id: "embed-refresh" });
const eventLog = element("ol", { id: "event-log" });
const localeSelect = element("select", { id: "locale-select" });
localeSelect.value = "de-DE";
const timezoneSelect = element("select", { id: "timezone-select" });
timezoneSelect.value = "Europe/Berlin";
const byId = {
  "locale-select": localeSelect, "timezone-select": timezoneSelect,
  settings: form, "settings-status": settingsStatus, "embed-status": embedStatus, "embed-frame": frame,
  "account-name": accountName, "account-tenant": accountTenant, "filter-bar": filterBar,
  "embed-refresh": refreshButton, "event-log": eventLog,
};
const docListeners = {};

global.window = global;
global.document = {
  readyState: "complete",
  documentElement: html,
  activeElement: null,
  getElementById: (id) => byId[id] || null,
  querySelectorAll: () => [menu].filter((m) => m.hasAttribute("open")),
  querySelector: (sel) => (sel === ".account-panel" ? accountPanel : null),
  addEventListener: (type, fn) => { (docListeners[type] = docListeners[type] || []).push(fn); },
  createElement: (tag) => element(tag),
  createTextNode: (data) => ({ data }),
};
function fire(type, event) { (docListeners[type] || []).forEach((fn) => fn(event)); }
function change(name, value) { form.listeners.change.forEach((fn) => fn({ target: { name, value } })); }

const kitCalls = [];
const frameCalls = [];
window.embedkit = {
  setLocale: (v) => kitCalls.push(["setLocale", v]),
  setTimezone: (v) => kitCalls.push(["setTimezone", v]),
  setColorScheme: (v) => kitCalls.push(["setColorScheme", v]),
  frame: (el) => {
    if (el !== frame) throw new TypeError("not a managed frame");
    return {
      setFilter: (m, v) => frameCalls.push(["setFilter", m, v]),
      refresh: () => frameCalls.push(["refresh"]),
    };
  },
};
global.FormData = function (f) { this.form = f; };
const fetches = [];
let answer = () => Promise.resolve({ ok: true, status: 204, redirected: false });
global.fetch = (url, opts) => { fetches.push({ url, opts }); return answer(); };
const tick = () => new Promise((r) => setImmediate(r));

(async () => {
  require(process.argv[2]);
  check("form marked live", form.classList.contains("is-live"), true);

  change("locale", "de-DE");
  change("timezone", "Europe/Berlin");
  change("scheme", "dark");
  change("csrf_token", "x");
  check("kit calls", kitCalls, [["setLocale", "de-DE"], ["setTimezone", "Europe/Berlin"], ["setColorScheme", "dark"]]);
  check("scheme on <html>", html.dataset.scheme, "dark");
  check("fetch count", fetches.length, 3);
  const f = fetches[0];
  check("fetch request", [f.url, f.opts.method, f.opts.headers.Accept, f.opts.credentials, f.opts.body.form === form],
    ["/settings", "POST", "application/json", "same-origin", true]);
  check("saving", settingsStatus.textContent, "Saving…");
  await tick();
  check("saved", [settingsStatus.dataset.state, settingsStatus.textContent], ["saved", "Saved"]);

  answer = () => Promise.resolve({ ok: true, status: 200, redirected: true });
  change("locale", "fr-FR");
  await tick();
  check("redirected to sign-in", settingsStatus.dataset.state, "error");
  check("redirected text", settingsStatus.textContent, "Not saved: sign in again to keep your settings.");

  answer = () => Promise.resolve({ ok: false, status: 500, redirected: false });
  change("locale", "fr-FR");
  await tick();
  check("server error", settingsStatus.textContent, "Not saved. Please try again.");

  answer = () => Promise.reject(new Error("offline"));
  change("locale", "fr-FR");
  await tick();
  check("network error", settingsStatus.textContent, "Not saved: check your connection and try again.");

  let resolveSlow;
  answer = () => new Promise((r) => { resolveSlow = r; });
  change("locale", "en-GB");
  answer = () => Promise.resolve({ ok: true, status: 204, redirected: false });
  change("locale", "en-US");
  await tick();
  resolveSlow({ ok: false, status: 500, redirected: false });
  await tick();
  check("stale answer ignored", settingsStatus.textContent, "Saved");

  regionSelect.value = "EMEA";
  filterBar.listeners.change.forEach((fn) => fn({ target: regionSelect }));
  regionSelect.value = "";
  filterBar.listeners.change.forEach((fn) => fn({ target: regionSelect }));
  filterBar.listeners.change.forEach((fn) => fn({ target: element("select") }));
  refreshButton.listeners.click.forEach((fn) => fn({}));
  check("filter bar and refresh", frameCalls, [["setFilter", "sales.region", "EMEA"], ["setFilter", "sales.region", null], ["refresh"]]);

  // The event log's clock reads 2026-03-01 13:05:09 UTC.
  const RealDate = Date;
  global.Date = class extends RealDate {
    constructor(...a) { if (a.length) super(...a); else super(RealDate.UTC(2026, 2, 1, 13, 5, 9)); }
  };
  fire("embedkit:drilldown", { target: frame, detail: { name: "drilldown", payload: { member: "sales.region", value: "APAC" } } });
  const first = eventLog.children[0].children[0];
  check("event time in the viewer's locale and zone (de-DE, Europe/Berlin)", [first.nodeName, first.textContent, first.attrs.datetime],
    ["TIME", "14:05:09", "2026-03-01T13:05:09.000Z"]);
  localeSelect.value = "ja-JP";
  timezoneSelect.value = "Asia/Tokyo";
  fire("embedkit:view", { target: frame, detail: { payload: { path: "/embed/x" } } });
  check("event time follows a new choice (ja-JP, Asia/Tokyo)", eventLog.children[0].children[0].textContent, "22:05:09");
  localeSelect.value = "en-US";
  timezoneSelect.value = "America/New_York";
  fire("embedkit:view", { target: frame, detail: { payload: { path: "/embed/x" } } });
  check("event time in en-US, America/New_York", eventLog.children[0].children[0].textContent.replace(/\s/g, " "), "8:05:09 AM");
  timezoneSelect.value = "Mars/Olympus";
  fire("embedkit:view", { target: frame, detail: { payload: { path: "/embed/x" } } });
  check("unknown zone: the locale still applies", /^\d{1,2}:\d{2}:\d{2}\s[AP]M$/.test(eventLog.children[0].children[0].textContent), true);
  global.Date = RealDate;
  eventLog.children = [];
  fire("embedkit:drilldown", { target: frame, detail: { name: "drilldown", payload: { member: "sales.region", value: "APAC" } } });
  fire("embedkit:dashboard-loaded", { target: frame, detail: { name: "dashboard-loaded", payload: { widgetCount: 2, loadDurationMs: 41.6 } } });
  fire("embedkit:download", { target: other, detail: { name: "download", payload: { format: "csv" } } });
  check("event log, newest first, this frame only", eventLog.children.map((li) => [li.attrs["data-event"], li.textContent.replace(/^.*? (?=[a-z])/, "")]),
    [["dashboard-loaded", "dashboard-loaded 2 widgets in 42 ms"], ["drilldown", "drilldown sales.region = APAC"]]);
  for (let i = 0; i < 60; i++) fire("embedkit:view", { target: frame, detail: { payload: { path: "/embed/x" + i } } });
  check("event log bounded", eventLog.children.length, 50);

  fire("embedkit:error", { target: frame, detail: { payload: { message: "expired", fatal: true, context: "embed-session" } } });
  check("fatal session error: reconnecting", embedStatus.dataset.state, "slow");
  fire("embedkit:session-renewed", { target: frame, detail: { payload: { reason: "error" } } });
  check("renewed: live", [embedStatus.dataset.state, statusText.textContent], ["live", "Live"]);
  fire("embedkit:renew-failed", { target: frame, detail: { payload: { message: "503", retryInMs: 2000 } } });
  check("renew failed, retrying", embedStatus.dataset.state, "slow");
  fire("embedkit:renew-failed", { target: frame, detail: { payload: { message: "403", retryInMs: null } } });
  check("renew gave up", embedStatus.dataset.state, "error");
  fire("embedkit:error", { target: frame, detail: { payload: { message: "widget 3 failed", fatal: true, context: "embed-render" } } });
  check("render failure", [embedStatus.dataset.state, statusText.textContent], ["error", "The dashboard could not be shown."]);
  embedStatus.dataset.state = "loading";

  delete window.embedkit;
  const before = kitCalls.length;
  change("timezone", "UTC");
  check("no kit: no call, still saved", [kitCalls.length, fetches.length], [before, 9]);

  fire("embedkit:ready", { target: other });
  check("other iframe ignored", embedStatus.dataset.state, "loading");
  fire("embedkit:ready", { target: frame });
  check("live", [embedStatus.dataset.state, statusText.textContent], ["live", "Live"]);
  fire("embedkit:session-ended", { target: frame });
  check("ended", [embedStatus.dataset.state, statusText.textContent], ["ended", "Session ended — sign in again"]);
  const link = statusText.children[1];
  check("sign-in link", [link.nodeName, link.href], ["A", "/login"]);
  check("header no longer names the signed-out user", [accountName.textContent, accountTenant.textContent, accountPanel.textContent], ["Signed out", "", "sign in again"]);
  check("page marked signed out", html.hasAttribute("data-signed-out"), true);

  fire("click", { target: inside });
  check("click inside keeps menu open", menu.hasAttribute("open"), true);
  fire("click", { target: outside });
  check("click outside closes menu", menu.hasAttribute("open"), false);
  menu.attrs.open = "";
  document.activeElement = inside;
  fire("keydown", { key: "Enter" });
  check("other keys keep menu open", menu.hasAttribute("open"), true);
  fire("keydown", { key: "Escape" });
  check("escape closes menu", menu.hasAttribute("open"), false);
  check("focus back on summary", document.activeElement === summary, true);

  console.log(JSON.stringify({ checks, failures }));
  process.exit(0);
})().catch((e) => { console.log(JSON.stringify({ checks, failures: failures.concat(String(e && e.stack || e)) })); process.exit(0); });
`

func TestAppScriptInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: run 'make test', which installs nodejs")
	}
	src, err := FS.ReadFile("app.js")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, harness := filepath.Join(dir, "app.js"), filepath.Join(dir, "harness.js")
	if err := os.WriteFile(script, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(harness, []byte(appScriptHarness), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, harness, script).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var res struct {
		Checks   int
		Failures []string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if res.Checks < 20 {
		t.Errorf("harness ran %d checks, want at least 20", res.Checks)
	}
}
