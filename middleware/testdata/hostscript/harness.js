// Test harness for the host script (hostscript_*_test.go): runs the served
// script in a fresh Node vm context with a small stand-in for the browser,
// then runs one scenario and prints what happened as JSON.
//
//   node harness.js <served host script> <scenario file>
//
// The scenario file is the body of an async function of `h`:
//   h.load()                        runs the host script
//   h.iframe({id, src, target, attrs, top, parent, embedkit, foreign})
//                                   an <iframe data-embedkit> in the page
//                                   (embedkit: false leaves the attribute out)
//   h.event(el, type, payload, extra) a platform event from el's window;
//                                   extra overrides envelope fields, extra.opts
//                                   the message's origin and source
//   h.ready(el, extra)              the documented ready event
//   h.fire(type[, "document"])      a window (or document) event: online, resize…
//   h.raf()                         runs the pending animation frames
//   h.send(el, data, {origin, source}) any message
//   h.broadcast(data[, name]), h.storage(key, newValue)
//                                   another tab of the origin (see below)
//   h.submit(form, prevented)       a form's submission reaching the window
//   h.listen(handle, name)          records what a listener gets
//   h.respond(...specs)             scripts the next fetch answers:
//                                   {status, json, retryAfter, headers} | {opaque: true}
//                                   | {network: true} | {hang: true}
//   await h.advance(ms)             moves the fake clock, running due timers
//   await h.until(cond, max, step) advances until cond() holds
//   h.sleep(ms)                     moves the clock without running timers,
//                                   as in a background tab
//   await h.flush()                 lets promises settle
//   h.timers()                      delays of the pending timers
//   h.of(kind)                      the log entries of one kind
//   h.win, h.doc                    the fake window and document
// and returns a value, printed as "result". Everything the script did is in
// "log" (post, fetch, src, dom, on, error, console entries, in order).
"use strict";
const fs = require("fs");
const vm = require("vm");

const [scriptPath, scenarioPath] = process.argv.slice(2);
const script = fs.readFileSync(scriptPath, "utf8");
const scenario = fs.readFileSync(scenarioPath, "utf8");

const PLATFORM = "https://acme.example.com";
const HERE = "https://app.example.com";

const log = [];
const seen = new Set(); // objects listeners received
const clone = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

// ---- clock and timers -------------------------------------------------------

const clock = { now: 1700000000000, random: 0 };
let timerSeq = 0;
const timers = new Map();
function setTimeout_(fn, ms) {
  const id = ++timerSeq;
  timers.set(id, { id, at: clock.now + Math.max(0, Number(ms) || 0), ms: Number(ms) || 0, fn });
  return id;
}
function clearTimeout_(id) {
  timers.delete(id);
}
const settle = () => new Promise((r) => setImmediate(r));
async function flush() {
  for (let i = 0; i < 5; i++) await settle();
}
async function advance(ms) {
  const end = clock.now + ms;
  await flush();
  for (;;) {
    let next = null;
    for (const t of timers.values()) {
      if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
    }
    if (!next) break;
    timers.delete(next.id);
    clock.now = Math.max(clock.now, next.at);
    next.fn();
    await flush();
  }
  clock.now = end;
  await flush();
}

// ---- DOM stand-in -----------------------------------------------------------

const observers = [];
function notify(record) {
  for (const o of observers) {
    if (record.type === "attributes" && o.filter && !o.filter.includes(record.attributeName)) continue;
    o.queue.push(record);
    if (!o.scheduled) {
      o.scheduled = true;
      queueMicrotask(() => {
        o.scheduled = false;
        const records = o.queue.splice(0);
        if (records.length) o.fn(records, o);
      });
    }
  }
}

const registry = new Map();
let nextTag = null;

function label(el) {
  if (!el) return null;
  if (el.id) return el.id;
  const p = el.parentNode;
  if (p && p.id) return p.id + ">" + el.localName;
  return el.localName;
}

class FakeElement {
  constructor(tag) {
    this.localName = String(tag || nextTag || "div").toLowerCase();
    nextTag = null;
    this.tagName = this.localName.toUpperCase();
    this.nodeType = 1;
    this.attrs = new Map();
    this.style = {};
    this.children = [];
    this.parentNode = null;
    this.listeners = {};
    this.top = 0;
    if (this.localName === "iframe") {
      const el = this;
      this.win = {
        postMessage(msg, origin) {
          log.push({ kind: "post", frame: label(el), at: clock.now, keys: Object.keys(msg), msg: clone(msg), origin });
        },
        // A parent may navigate its child frame's window (cross-tab logout
        // blanks it): logged as kind "navigate".
        location: {
          replace(url) {
            log.push({ kind: "navigate", frame: label(el), at: clock.now, value: String(url) });
          },
        },
      };
    }
  }
  get contentWindow() {
    return this.win && this.isConnected ? this.win : null;
  }
  get id() {
    return this.getAttribute("id") || "";
  }
  set id(v) {
    this.setAttribute("id", v);
  }
  get isConnected() {
    for (let n = this; n; n = n.parentNode) if (n === doc) return true;
    return false;
  }
  getAttribute(n) {
    return this.attrs.has(n) ? this.attrs.get(n) : null;
  }
  hasAttribute(n) {
    return this.attrs.has(n);
  }
  setAttribute(n, v) {
    const before = this.getAttribute(n);
    v = String(v);
    this.attrs.set(n, v);
    if (n === "src") log.push({ kind: "src", frame: label(this), at: clock.now, value: v });
    if (this.isConnected) notify({ type: "attributes", target: this, attributeName: n });
    const observed = this.constructor.observedAttributes;
    if (this.attributeChangedCallback && observed && observed.includes(n)) this.attributeChangedCallback(n, before, v);
  }
  removeAttribute(n) {
    const before = this.getAttribute(n);
    this.attrs.delete(n);
    const observed = this.constructor.observedAttributes;
    if (this.attributeChangedCallback && observed && observed.includes(n)) this.attributeChangedCallback(n, before, null);
  }
  appendChild(child) {
    if (child.parentNode) child.parentNode.removeChild(child);
    child.parentNode = this;
    this.children.push(child);
    if (this.isConnected) {
      walk(child, (n) => {
        if (n.connectedCallback) n.connectedCallback();
      });
      notify({ type: "childList", target: this, addedNodes: [child], removedNodes: [] });
    }
    return child;
  }
  removeChild(child) {
    this.children = this.children.filter((c) => c !== child);
    child.parentNode = null;
    return child;
  }
  remove() {
    if (this.parentNode) this.parentNode.removeChild(this);
  }
  matches(sel) {
    return sel.split(",").some((s) => matchOne(this, s.trim()));
  }
  querySelectorAll(sel) {
    const out = [];
    for (const c of this.children) walk(c, (n) => { if (n.matches(sel)) out.push(n); });
    return out;
  }
  querySelector(sel) {
    return this.querySelectorAll(sel)[0] || null;
  }
  addEventListener(type, fn) {
    (this.listeners[type] = this.listeners[type] || []).push(fn);
  }
  dispatchEvent(ev) {
    ev.target = this;
    log.push({
      kind: "dom", frame: label(this), type: ev.type, bubbles: ev.bubbles, composed: ev.composed,
      detail: clone(ev.detail), sameAsListener: seen.has(ev.detail),
    });
    for (let n = this; n; n = ev.bubbles ? n.parentNode : null) {
      for (const fn of n.listeners[ev.type] || []) fn.call(n, ev);
    }
    return true;
  }
  getBoundingClientRect() {
    return { top: this.top, left: 0, width: 800, height: 0 };
  }
}

function walk(n, fn) {
  fn(n);
  for (const c of n.children || []) walk(c, fn);
}

// matchOne understands the selectors the script and the tests use: tag,
// #id, tag#id, tag[attr], [attr].
function matchOne(el, sel) {
  const m = /^([a-z][a-z0-9-]*)?(?:#([\w-]+))?(?:\[([\w-]+)\])?$/i.exec(sel);
  if (!m) throw new SyntaxError("harness: unsupported selector " + sel);
  if (m[1] && el.localName !== m[1].toLowerCase()) return false;
  if (m[2] && el.id !== m[2]) return false;
  if (m[3] && !el.hasAttribute(m[3])) return false;
  return Boolean(m[1] || m[2] || m[3]);
}

const doc = new FakeElement("#document");
doc.nodeType = 9;
doc.documentElement = new FakeElement("html");
doc.body = new FakeElement("body");
doc.documentElement.parentNode = doc;
doc.children = [doc.documentElement];
doc.documentElement.children = [doc.body];
doc.body.parentNode = doc.documentElement;
doc.baseURI = HERE + "/reports/sales";
doc.readyState = "interactive";
doc.visibilityState = "visible";
doc.createElement = (tag) => {
  const cls = registry.get(String(tag).toLowerCase());
  if (cls) {
    nextTag = tag;
    return new cls();
  }
  return new FakeElement(tag);
};

// ---- window -----------------------------------------------------------------

class CustomEvent_ {
  constructor(type, init) {
    init = init || {};
    this.type = type;
    this.detail = init.detail;
    this.bubbles = Boolean(init.bubbles);
    this.composed = Boolean(init.composed);
  }
}

class MutationObserver_ {
  constructor(fn) {
    this.fn = fn;
    this.queue = [];
  }
  observe(target, opts) {
    this.filter = opts && opts.attributeFilter;
    observers.push(this);
  }
}

const rafs = [];
const winListeners = {};
const errors = [];
const fetchQueue = [];
const win = {
  document: doc,
  location: { origin: HERE, href: doc.baseURI },
  navigator: { onLine: true },
  innerHeight: 900,
  pageYOffset: 0,
  setTimeout: setTimeout_,
  clearTimeout: clearTimeout_,
  CustomEvent: CustomEvent_,
  MutationObserver: MutationObserver_,
  HTMLElement: FakeElement,
  customElements: {
    define(name, cls) {
      if (registry.has(name)) throw new Error("already defined: " + name);
      registry.set(name, cls);
    },
    get(name) {
      return registry.get(name);
    },
  },
  URL,
  AbortController,
  requestAnimationFrame(fn) {
    rafs.push(fn);
    return rafs.length;
  },
  console: {
    warn(message) {
      log.push({ kind: "console", as: "warn", message: String(message) });
    },
    debug(message) {
      log.push({ kind: "console", as: "debug", message: String(message) });
    },
  },
  reportError(err) {
    errors.push(String(err && err.message ? err.message : err));
    log.push({ kind: "error", message: String(err && err.message ? err.message : err) });
  },
  addEventListener(type, fn) {
    (winListeners[type] = winListeners[type] || []).push(fn);
  },
  fetch(url, init) {
    init = init || {};
    log.push({
      kind: "fetch", at: clock.now, url: String(url), method: init.method || "GET", credentials: init.credentials || null,
      redirect: init.redirect || null, cache: init.cache || null, body: init.body === undefined ? null : init.body,
      headers: init.headers || null, signal: Boolean(init.signal),
    });
    const spec = fetchQueue.shift() || { hang: true };
    return new Promise((resolve, reject) => {
      if (init.signal) {
        init.signal.addEventListener("abort", () => {
          log.push({ kind: "abort", url: String(url) });
          const e = new Error("The operation was aborted.");
          e.name = "AbortError";
          reject(e);
        });
      }
      if (spec.hang) return;
      if (spec.network) {
        reject(new TypeError("Failed to fetch"));
        return;
      }
      const status = spec.opaque ? 0 : spec.status;
      resolve({
        status,
        ok: status >= 200 && status < 300,
        type: spec.opaque ? "opaqueredirect" : "basic",
        headers: {
          get: (n) => {
            if (n.toLowerCase() === "retry-after" && spec.retryAfter !== undefined) return String(spec.retryAfter);
            for (const [k, v] of Object.entries(spec.headers || {})) if (k.toLowerCase() === n.toLowerCase()) return v;
            return null;
          },
        },
        json: () => (spec.badJSON ? Promise.reject(new SyntaxError("bad JSON")) : Promise.resolve(clone(spec.json))),
      });
    });
  },
};
// ---- other tabs: BroadcastChannel and localStorage ----------------------------
// What the script posts or stores is logged (kind "broadcast": value is
// the message as JSON; kind "storage": type set|remove, value). The
// scenario plays another tab of the origin with h.broadcast(data) and
// h.storage(key, newValue); `delete h.win.BroadcastChannel` before
// h.load() plays a browser without one.

const channels = [];
class BroadcastChannel_ {
  constructor(name) {
    this.name = String(name);
    this.onmessage = null;
    this.closed = false;
    channels.push(this);
    log.push({ kind: "channel", value: this.name });
  }
  postMessage(data) {
    if (this.closed) throw new Error("InvalidStateError: channel closed");
    log.push({ kind: "broadcast", at: clock.now, value: JSON.stringify(data), origin: this.name });
    // Delivered to the page's other channels of that name, as a task.
    const copy = clone(data);
    for (const c of channels) {
      if (c !== this && !c.closed && c.name === this.name && c.onmessage) {
        setImmediate(() => c.onmessage({ data: copy }));
      }
    }
  }
  close() {
    this.closed = true;
  }
}
const storage = new Map();
win.localStorage = {
  getItem: (k) => (storage.has(k) ? storage.get(k) : null),
  setItem(k, v) {
    storage.set(k, String(v));
    log.push({ kind: "storage", type: "set", at: clock.now, origin: k, value: String(v) });
  },
  removeItem(k) {
    storage.delete(k);
    log.push({ kind: "storage", type: "remove", at: clock.now, origin: k });
  },
};
win.BroadcastChannel = BroadcastChannel_;

win.window = win;
win.self = win;
const ctx = vm.createContext(win);
vm.runInContext("Date.now = function () { return __clock.now; }; Math.random = function () { return __clock.random; };",
  Object.assign(ctx, { __clock: clock }));
doc.addEventListener = doc.addEventListener.bind(doc);

// ---- the harness API ----------------------------------------------------------

const h = {
  win,
  doc,
  log,
  clock,
  PLATFORM,
  HERE,
  load() {
    vm.runInContext(script, ctx, { filename: "host.js" });
  },
  iframe(o) {
    o = o || {};
    const el = doc.createElement("iframe");
    if (o.id) el.setAttribute("id", o.id);
    if (o.embedkit !== false) el.setAttribute("data-embedkit", "");
    if (o.target) el.setAttribute("data-embedkit-target", o.target);
    for (const [k, v] of Object.entries(o.attrs || {})) el.setAttribute(k, v);
    if (o.src !== null) el.setAttribute("src", o.src || "/embed/frame/" + (o.target || "sales"));
    if (o.foreign) {
      // The frame already holds the platform's page: its address cannot
      // be read from here, as a browser refuses across origins.
      const replace = el.win.location.replace;
      el.win.location = {
        get href() {
          throw new Error("SecurityError: Blocked a frame from accessing a cross-origin frame");
        },
        replace,
      };
    }
    el.top = o.top || 0;
    (o.parent || doc.body).appendChild(el);
    return el;
  },
  send(el, data, opts) {
    opts = opts || {};
    const ev = {
      origin: opts.origin || PLATFORM,
      source: opts.source !== undefined ? opts.source : el.contentWindow,
      data,
    };
    for (const fn of winListeners.message || []) fn(ev);
  },
  event(el, type, payload, extra) {
    const { opts, ...fields } = extra || {};
    const data = Object.assign({
      source: "cube-embed", direction: "event", type, payload: payload || {}, timestamp: clock.now, surface: "dashboard",
    }, fields);
    h.send(el, data, opts);
  },
  ready(el, extra) {
    h.event(el, "cube:event:ready", { embedTenant: null, deploymentId: 1, mode: "signed", surface: "dashboard", publicId: "sales-overview" }, extra);
  },
  listen(handle, name, tag) {
    return handle.on(name, function (ev) {
      seen.add(ev);
      log.push({ kind: "on", frame: label(handle.element), as: tag || name, ev: clone(ev), thisIsHandle: this === handle });
    });
  },
  respond(...specs) {
    fetchQueue.push(...specs);
  },
  fire(type, target) {
    const list = target === "document" ? doc.listeners[type] : winListeners[type];
    for (const fn of list || []) fn({ type });
  },
  // broadcast delivers data to the page's channels named name (default
  // "embedkit") as a message from another tab of the origin.
  broadcast(data, name) {
    for (const c of channels) {
      if (!c.closed && c.name === (name || "embedkit") && c.onmessage) c.onmessage({ data });
    }
  },
  // storage fires the storage event another tab's write would.
  storage(key, newValue) {
    for (const fn of winListeners.storage || []) fn({ type: "storage", key, newValue, oldValue: null });
  },
  // submit fires a form's submit event as it reaches the window, after
  // the page's own handlers (prevented: one of them cancelled it).
  submit(form, prevented) {
    for (const fn of winListeners.submit || []) fn({ type: "submit", target: form, defaultPrevented: Boolean(prevented) });
  },
  raf() {
    for (const fn of rafs.splice(0)) fn(clock.now);
  },
  timers() {
    return [...timers.values()].map((t) => t.at - clock.now).sort((a, b) => a - b);
  },
  of(kind) {
    return log.filter((e) => e.kind === kind);
  },
  sleep(ms) {
    clock.now += ms;
  },
  // until advances the clock in steps until cond() holds (at most max ms).
  async until(cond, max = 120000, step = 100) {
    for (let t = 0; t < max && !cond(); t += step) await advance(step);
    return Boolean(cond());
  },
  flush,
  advance,
  label,
  errors,
};

(async () => {
  let result = null;
  let failure = null;
  try {
    const fn = new Function("h", "return (async () => {\n" + scenario + "\n})();");
    result = await fn(h);
    await flush();
  } catch (err) {
    failure = String(err && err.stack ? err.stack : err);
  }
  process.stdout.write(JSON.stringify({ result: result === undefined ? null : result, log, errors, failure }));
})();
