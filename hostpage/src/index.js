// @embedkit/host: the embedkit host page as an ES module. The same source
// is bundled into the global script the kit serves (Kit.HostScript, e.g.
// at /embed/host.js, which sets window.embedkit); internal/hostbuild
// generates it with `go generate ./middleware`.
//
// It manages every <iframe data-embedkit> and every <embedkit-frame>
// element of the page, including ones added later, and speaks the
// platform's documented postMessage protocol only: envelope {source:
// "cube-embed", direction, type, payload, timestamp, surface}, events
// cube:event:* from the embed, actions cube:action:* to it. It accepts a
// message only from the platform origin, with that source, from one of
// the managed frames; it posts actions to the platform origin only.
//
//   import { configure, frame } from "@embedkit/host";
//   configure({ platformOrigin: "https://acme.example.com" });
//   frame("#sales").on("drilldown", (e) => show(e.payload.member, e.payload.value));
//
// Settings: the served script has them filled in by the kit. A module
// gets them from configure(settings), or, when configure was not called,
// from <meta name="embedkit" content="<JSON of Kit.HostSettings()>">,
// which the host page renders from the kit (see README "The host page").
// Importing the module in a browser reads that meta tag; importing it
// without a DOM (server rendering) touches nothing.
//
// Session lifetime: the platform has no message to renew a session in
// place, and the embedded page trusts its token for about 23 h after the
// exchange. So the kit reloads a frame through its frame endpoint, which
// mints on every load: 22 h after the frame's ready
// (data-embedkit-renew-after="<ms>" overrides), after a fatal error event
// that a new session can fix, and on reload().
//
// Sizing: data-embedkit-fit="container" fills the parent, "viewport" the
// rest of the window; data-embedkit-min-height (default 320) and
// data-embedkit-max-height clamp it. The platform sends no content height.

import { version } from "./version.js";
import { LOCALE_MAX_LENGTH, TIMEZONE_MAX_LENGTH, MEMBER_RULE, NAVIGATE_PATH_RULES } from "./rules.js";
import { listen as listenForLogout, signOutEverywhere, blank } from "./tabs.js";

export { version };

const SOURCE = "cube-embed";
const ORIGIN_RULE = /^https?:\/\/[^/?#@\s]+$/;

// The settings; ORIGIN is null until configure() or the meta tag.
let ORIGIN = null;
let SESSION_URL = "/embed/session";
let FRAME_PREFIX = "/embed/frame/";
let KIT_VERSION = null;
let started = false;

// The platform's documented events by wire type, and the names the kit
// gives them (testdata/embed-protocol.json is the contract).
var EVENTS = {
  "cube:event:ready": "ready",
  "cube:event:view": "view",
  "cube:event:navigate": "navigate",
  "cube:event:dashboard-loaded": "dashboard-loaded",
  "cube:event:download": "download",
  "cube:event:drilldown": "drilldown",
  "cube:event:ai-query": "ai-query",
  "cube:event:error": "error"
};
var KIT_EVENTS = ["session-renewed", "session-ended", "renew-failed", "load-failed", "version-mismatch"];
var NAMES = Object.create(null);
Object.keys(EVENTS).forEach(function (type) { NAMES[EVENTS[type]] = true; });
KIT_EVENTS.forEach(function (name) { NAMES[name] = true; });
NAMES["*"] = true;

// One hour of margin before the embedded page stops trusting its token.
var RENEW_AFTER_MS = 22 * 60 * 60 * 1000;
// data-embedkit-renew-after's floor.
var MIN_RENEW_AFTER_MS = 5 * 60 * 1000;
var REQUEST_TIMEOUT_MS = 10000;
var READY_TIMEOUT_MS = 30000;
// A frame's first load has as long to report ready as a renewal has;
// data-embedkit-ready-timeout overrides, from this floor.
var MIN_READY_TIMEOUT_MS = 5000;
var BACKOFF_FIRST_MS = 1000;
var BACKOFF_MAX_MS = 60000;
// No renewal attempt follows another sooner than this, whatever asks.
var MIN_ATTEMPT_GAP_MS = 1000;
var MAX_FAILURES = 5;
// A frame that fails again this soon after its renewal counts as a failed
// attempt of that renewal, so a frame that keeps failing backs off and
// gives up instead of re-minting in a loop.
var STABLE_MS = 30000;
var DEFAULT_MIN_HEIGHT = 320;

// The argument rules: rules.js is generated from the Go rules and the
// protocol's URL forms (internal/hostbuild), and a table test runs the
// Go and the script's checks on the same cases.
var MEMBER = new RegExp(MEMBER_RULE);
var LOCALE = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;
var PRIVATE_LOCALE = /^[xX](?:-[A-Za-z0-9]{1,8})+$/;
// BCP 47's grandfathered tags: well-formed, though not Unicode locale ids.
var GRANDFATHERED = /^(?:en-GB-oed|i-(?:ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)|sgn-(?:BE-FR|BE-NL|CH-DE)|art-lojban|cel-gaulish|no-bok|no-nyn|zh-(?:guoyu|hakka|min|min-nan|xiang))$/i;
// Zone names are case-sensitive, and every segment starts upper-case.
var TIMEZONE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;
var NAVIGATE_PATHS = NAVIGATE_PATH_RULES.map(function (r) { return new RegExp(r); });
var TARGET = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;

var hasOwn = Object.prototype.hasOwnProperty;
var states = new WeakMap(); // iframe -> its state; keeps handles stable
var handles = new WeakMap(); // handle -> state
var hosts = new WeakMap(); // <embedkit-frame> -> its iframe
var managed = []; // states of the frames the last scan found
var page = newSettings(); // page-wide settings, for frames found later
var debugAll = false; // debug(true): log every message accepted or dropped
function noop() {}

// ---- helpers --------------------------------------------------------------

function report(err) {
  // A host listener that throws must not stop the kit or other listeners.
  if (typeof window.reportError === "function") {
    window.reportError(err);
  } else {
    setTimeout(function () { throw err; }, 0);
  }
}

function describe(value) {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  }
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : "a " + typeof value;
}

function argError(call, arg, rule, value) {
  return new TypeError("embedkit: " + call + ": " + arg + " must be " + rule + ", got " + describe(value));
}

function connected(el) {
  return el.isConnected !== false;
}

function absolute(url) {
  try {
    return new URL(url, document.baseURI);
  } catch (e) {
    return null;
  }
}

// ---- frames ---------------------------------------------------------------

function newSettings() {
  return { order: [], values: Object.create(null) };
}

// remember records a setting under key (the latest per key wins, in the
// order first set) so it can be sent again after the frame reloads;
// value is what the host passed, for filters() and settings().
function remember(settings, key, type, payload, value) {
  if (!(key in settings.values)) settings.order.push(key);
  settings.values[key] = { type: type, payload: payload, value: value };
}

// deferred is a promise with its settlers. Its rejection is marked
// handled: a host that ignores an action's promise is not told of an
// unhandled rejection when the frame fails.
function deferred() {
  var d = { settled: false };
  d.promise = new Promise(function (resolve, reject) {
    d.resolve = function (v) { d.settled = true; resolve(v); };
    d.reject = function (e) { d.settled = true; reject(e); };
  });
  d.promise.catch(noop);
  return d;
}

// frozen returns a deep copy of v with null-prototype objects, frozen:
// what listeners get, so no listener can change what the kit decides on
// or what another listener sees. Payload text is the embed's, untrusted.
function frozen(v, depth) {
  depth = depth || 0;
  if (v === null || typeof v !== "object") return typeof v === "function" ? undefined : v;
  if (depth > 32) return null;
  var out;
  if (Array.isArray(v)) {
    out = v.map(function (x) { return frozen(x, depth + 1); });
  } else {
    out = Object.create(null);
    Object.keys(v).forEach(function (k) { out[k] = frozen(v[k], depth + 1); });
  }
  return Object.freeze(out);
}

// ---- frame state -----------------------------------------------------------

var STATES = { loading: true, ready: true, renewing: true, ended: true, failed: true };

// setState records a frame's state on the handle and the iframe
// (data-embedkit-state; aria-busy while it loads).
function setState(st, state) {
  if (!STATES[state]) throw new Error("embedkit: internal: state " + state);
  st.state = state;
  setAttr(st.el, "data-embedkit-state", state);
  setAttr(st.el, "aria-busy", state === "loading" || state === "renewing" ? "true" : null);
}

// freshReady gives the frame a new pending ready promise unless the
// current one is still pending.
function freshReady(st) {
  if (!st.readyD || st.readyD.settled) st.readyD = deferred();
}

// kitError is an error of the kind name (EmbedkitFrameError,
// EmbedkitReloadError) with its reason and, when known, HTTP status.
function kitError(name, reason, status, message) {
  var err = new Error("embedkit: " + message);
  err.name = name;
  err.reason = reason;
  if (status !== undefined) err.status = status;
  return err;
}

function frameError(reason, status, message) {
  return kitError("EmbedkitFrameError", reason, status, message);
}

// rejectReloads rejects the reload() promises that wait on renewal r.
function rejectReloads(r, reason, status, message) {
  var err = kitError("EmbedkitReloadError", reason, status, message);
  r.waiters.forEach(function (w) { w.reject(err); });
}

// settleFailure rejects what waits on a frame that ended or failed.
function settleFailure(st, err) {
  freshReady(st);
  st.readyD.reject(err);
  var queue = st.queue.splice(0);
  var waits = st.waits.splice(0);
  queue.forEach(function (q) { q.d.reject(err); });
  waits.forEach(function (w) { w.d.reject(err); });
  st.failure = err;
}

function label(st) {
  return describe(st.el.getAttribute("data-embedkit-target") || st.el.getAttribute("id") || "unnamed");
}

function manage(el) {
  var st = states.get(el);
  if (st) return st;
  st = {
    el: el,
    listeners: Object.create(null),
    settings: newSettings(),
    surface: null,
    renewTimer: 0,
    renewDue: 0,
    remint: null,
    lastAttemptAt: -Infinity,
    lastRenewal: null,
    ended: false,
    state: "loading",
    readyD: null,
    readyEv: null,
    view: null,
    queue: [], // actions sent before ready: {key, type, payload, kind, arg, d}
    waits: [], // posted navigate and refresh actions waiting for their event
    failure: null,
    firstTimer: 0,
    probe: null // the first load's HEAD probe: its cancel function
  };
  page.order.forEach(function (key) {
    var v = page.values[key];
    remember(st.settings, key, v.type, v.payload, v.value);
  });
  st.handle = new Frame(st);
  states.set(el, st);
  handles.set(st.handle, st);
  freshReady(st);
  setState(st, "loading");
  armFirstLoad(st);
  size(el);
  return st;
}

function scan() {
  var found = document.querySelectorAll("iframe[data-embedkit]");
  var list = [];
  for (var i = 0; i < found.length; i++) {
    var st = manage(found[i]);
    // A frame managed before it was in the page is sized once it is.
    if (managed.indexOf(st) < 0) size(st.el);
    list.push(st);
  }
  managed = list;
  return list;
}

function stateOfWindow(win) {
  if (!win) return null;
  for (var pass = 0; pass < 2; pass++) {
    // The second pass finds frames added since the last scan.
    var list = pass === 0 ? managed : scan();
    for (var i = 0; i < list.length; i++) {
      if (list[i].el.contentWindow === win) return list[i];
    }
  }
  return null;
}

function post(st, type, payload) {
  var win = st.el.contentWindow;
  if (!win) return false;
  // Actions carry no surface; the target origin is the platform's, so a
  // frame that navigated elsewhere never receives them.
  win.postMessage({
    source: SOURCE,
    direction: "action",
    type: type,
    payload: payload,
    timestamp: Date.now()
  }, ORIGIN);
  return true;
}

// act takes an action for st's frame and returns its promise: sent now
// when the frame is ready, else queued until it is; a setting is also
// remembered, to be sent again after a reload.
function act(st, a) {
  if (a.key) remember(st.settings, a.key, a.type, a.payload, a.value);
  var d = deferred();
  if (st.state === "ended" || st.state === "failed") {
    d.reject(st.failure || frameError(st.state, undefined, "the frame has " + st.state));
  } else if (st.state === "ready") {
    deliver(st, a, d);
  } else {
    st.queue.push({ a: a, d: d });
  }
  return d.promise;
}

// deliver posts an action to a ready frame. The protocol has no
// acknowledgement: a setting's promise resolves once it is posted;
// navigate waits for the matching view or navigate event, refresh for the
// next dashboard-loaded.
function deliver(st, a, d) {
  if (!post(st, a.type, a.payload)) {
    d.reject(frameError("unavailable", undefined, "the frame has no window to post to"));
    return;
  }
  if (a.kind === "navigate" || a.kind === "refresh") {
    st.waits.push({ kind: a.kind, path: a.path, d: d });
  } else {
    d.resolve();
  }
}

// flush delivers the actions queued before ready. A setting was sent by
// replay already (its latest value): its promise resolves.
function flush(st) {
  st.queue.splice(0).forEach(function (q) {
    if (q.a.key) q.d.resolve();
    else deliver(st, q.a, q.d);
  });
}

// settleWaits resolves the navigate and refresh promises an event answers.
function settleWaits(st, name, payload, ev) {
  if (!st.waits.length) return;
  st.waits = st.waits.filter(function (w) {
    var done = (w.kind === "refresh" && name === "dashboard-loaded") ||
      (w.kind === "navigate" && (name === "view" || name === "navigate") && typeof payload.path === "string" &&
        samePath(payload.path, w.path));
    if (done) w.d.resolve(ev);
    return !done;
  });
}

function samePath(got, want) {
  var i = got.search(/[?#]/);
  return (i < 0 ? got : got.slice(0, i)) === want;
}

// replay sends the settings made through the kit again: a frame that just
// reported ready is a new page that knows only its URL's.
function replay(st) {
  st.settings.order.forEach(function (key) {
    var v = st.settings.values[key];
    post(st, v.type, v.payload);
  });
}

// ---- events ---------------------------------------------------------------

// emit hands an event to st's listeners and dispatches it on the iframe;
// payload is already a frozen copy (frozen), which listeners share.
function emit(st, name, type, payload, surface, timestamp) {
  var ev = Object.freeze({ name: name, type: type, payload: payload, surface: surface, timestamp: timestamp });
  [name, "*"].forEach(function (key) {
    var list = st.listeners[key];
    if (!list) return;
    list.slice().forEach(function (fn) {
      try {
        fn.call(st.handle, ev);
      } catch (err) {
        report(err);
      }
    });
  });
  if (typeof CustomEvent === "function") {
    st.el.dispatchEvent(new CustomEvent("embedkit:" + name, { bubbles: true, composed: true, detail: ev }));
  }
  return ev;
}

// trace logs a message's fate in debug mode (debug(true), or
// data-embedkit-debug on the frame): its type and origin, never its
// payload.
function trace(st, accepted, reason, event, msg) {
  if (!debugAll && !(st && st.el.hasAttribute("data-embedkit-debug"))) return;
  var type = msg && typeof msg === "object" && typeof msg.type === "string" ? describe(msg.type) : "without a type";
  var where = st ? "frame " + label(st) : "no managed frame";
  log("debug", (accepted ? "message accepted: " : "message dropped (" + reason + "): ") + type +
    " from " + describe(String(event.origin)) + ", " + where);
}

function emitKit(st, name, payload) {
  return emit(st, name, "embedkit:" + name, frozen(payload), st.surface, Date.now());
}

// refusal says why msg, with event's origin, is not a platform event, or
// "" when it is one.
function refusal(event, msg) {
  if (event.origin !== ORIGIN) return "wrong origin";
  if (!msg || typeof msg !== "object" || msg.source !== SOURCE) return "wrong source";
  if (msg.direction !== undefined && msg.direction !== "event") return "wrong direction";
  if (typeof msg.type !== "string" || !hasOwn.call(EVENTS, msg.type)) return "unknown type";
  return "";
}

// debugging reports whether debug mode is on for any managed frame.
function debugging() {
  return debugAll || managed.some(function (m) { return m.el.hasAttribute("data-embedkit-debug"); });
}

function onMessage(event) {
  var msg = event.data;
  var reason = refusal(event, msg);
  // A refused message's frame is looked up only in debug mode, to name
  // it in the log.
  var st = reason && !debugging() ? null : stateOfWindow(event.source);
  if (!reason && !st) reason = "unmanaged frame";
  trace(st, !reason, reason, event, msg);
  if (reason) return;
  // The kit decides on its own copy, read before any listener runs.
  var payload = frozen(msg.payload && typeof msg.payload === "object" && !Array.isArray(msg.payload) ? msg.payload : {});
  if (typeof msg.surface === "string") st.surface = msg.surface;
  var name = EVENTS[msg.type];
  var fatal = name === "error" && payload.fatal === true;
  var ev = emit(st, name, msg.type, payload, typeof msg.surface === "string" ? msg.surface : null,
    typeof msg.timestamp === "number" ? msg.timestamp : Date.now());
  if (name === "view") st.view = ev.payload;
  if (name === "ready") {
    onReady(st, ev);
  } else if (fatal) {
    onFatal(st, payload);
  }
  settleWaits(st, name, payload, ev);
}

function onReady(st, ev) {
  st.ended = false;
  clearTimeout(st.firstTimer);
  st.firstTimer = 0;
  st.failure = null;
  st.readyEv = ev;
  setState(st, "ready");
  freshReady(st);
  st.readyD.resolve(ev);
  var r = st.remint;
  if (r) {
    // Ready while loading is the renewal's success; ready at any other
    // phase means the frame reloaded by other means, which also ends it.
    finish(st, r);
    if (r.phase === "load") {
      st.lastRenewal = { at: Date.now(), attempt: r.attempt, failures: r.failures, hard: r.hard };
      emitKit(st, "session-renewed", { reason: r.reason });
    }
    r.waiters.forEach(function (w) { w.resolve(ev); });
  }
  armRenewal(st);
  replay(st);
  flush(st);
  notifyVersion(st);
}

function onFatal(st, payload) {
  var r = st.remint;
  if (payload.context === "embed-render") {
    // A dashboard that cannot render is not fixed by a new session.
    if (r && r.phase === "load") giveUp(st, undefined, "the embed could not render its content");
    return;
  }
  if (r) {
    if (r.phase === "load") fail(st, "hard", undefined, "the reloaded embed reported a fatal error");
    return;
  }
  if (st.ended) return; // signed out: only reload() tries again
  start(st, "error", null);
}

// ---- versions -------------------------------------------------------------

// log writes to the console (level warn or debug); the only place the
// script does. Messages name versions, frames by their target, message
// types, origins and reasons, never a URL or a payload, which could carry
// a session id.
function log(level, message) {
  if (typeof console !== "undefined" && typeof console[level] === "function") console[level]("embedkit: " + message);
}

var mismatch = null; // {packageVersion, kitVersion} once the kit's differs

// checkKitVersion compares the kit's host script version (from the
// settings or the frame endpoint's Embedkit-Version header) with this
// package's: a difference is warned once and reported to st's frame, or
// every managed frame, as the kit event version-mismatch.
function checkKitVersion(kitVersion, st) {
  if (typeof kitVersion !== "string" || kitVersion === "" || kitVersion === version) return;
  if (!mismatch || mismatch.kitVersion !== kitVersion) {
    mismatch = { packageVersion: version, kitVersion: kitVersion.slice(0, 64) };
    log("warn", "this page uses @embedkit/host " + version + " but the kit serves host script " + mismatch.kitVersion +
      "; install the package from the kit's own version");
  }
  (st ? [st] : managed).forEach(notifyVersion);
}

function notifyVersion(st) {
  if (!mismatch || st.versionNotified === mismatch.kitVersion) return;
  st.versionNotified = mismatch.kitVersion;
  emitKit(st, "version-mismatch", { packageVersion: mismatch.packageVersion, kitVersion: mismatch.kitVersion });
}

// ---- the first load ----------------------------------------------------------

function readyTimeout(el) {
  var v = parseInt(el.getAttribute("data-embedkit-ready-timeout"), 10);
  return isNaN(v) ? READY_TIMEOUT_MS : Math.max(MIN_READY_TIMEOUT_MS, v);
}

// armFirstLoad gives a frame's first load its ready timeout.
function armFirstLoad(st) {
  if (!st.el.getAttribute("src")) return;
  st.firstTimer = setTimeout(function () {
    st.firstTimer = 0;
    firstLoadTimeout(st);
  }, readyTimeout(st.el));
}

// firstLoadTimeout finds out why a frame never reported ready, with the
// HEAD probe of its frame endpoint (which mints nothing): 401 signed-out,
// 403 refused-origin, 5xx or no answer unavailable, another 4xx rejected,
// 2xx never-ready (the endpoint is fine, so the embed was blocked: a
// Content-Security-Policy or X-Frame-Options, for example).
function firstLoadTimeout(st) {
  if (st.state !== "loading" || st.remint) return;
  var waited = "the embed did not report ready within " + readyTimeout(st.el) / 1000 + " s";
  var src = st.el.getAttribute("src");
  var url = src ? absolute(src) : null;
  if (!url || url.origin !== location.origin) {
    loadFailed(st, "never-ready", undefined, waited);
    return;
  }
  var live = function () { return st.state === "loading" && !st.remint && states.get(st.el) === st; };
  st.probe = timedFetch(url.href, headInit(), function (res) {
    st.probe = null;
    if (!live()) return;
    checkKitVersion(header(res, "Embedkit-Version"), st);
    var status = res.status;
    var said = waited + "; the frame endpoint answered " + (res.type === "opaqueredirect" ? "a redirect" : status);
    switch (classify(res)) {
      case "signed-out":
        loadFailed(st, "signed-out", 401, said);
        break;
      case "refused-origin":
        loadFailed(st, "refused-origin", 403, said);
        break;
      case "unavailable":
        loadFailed(st, "unavailable", status, said);
        break;
      case "rejected":
        loadFailed(st, "rejected", status, said);
        break;
      default:
        loadFailed(st, "never-ready", undefined, said + ", so the embed itself was blocked or failed " +
          "(a Content-Security-Policy or X-Frame-Options, for example)");
    }
  }, function () {
    st.probe = null;
    if (live()) loadFailed(st, "unavailable", undefined, waited + ", and the frame endpoint could not be reached");
  }, function (cancel) {
    st.probe = null;
    cancel();
    if (live()) loadFailed(st, "unavailable", undefined, waited + ", and the frame endpoint did not answer");
  });
}

// loadFailed ends a first load that never became ready: state failed
// (ended when signed out), the kit event load-failed {reason, status?,
// message}, a console warning, and what waits on the frame rejected.
function loadFailed(st, reason, status, message) {
  var p = { reason: reason };
  if (status !== undefined) p.status = status;
  p.message = message;
  if (reason === "signed-out") {
    st.ended = true;
    setState(st, "ended");
  } else {
    setState(st, "failed");
  }
  log("warn", "frame " + label(st) + " did not load (" + reason + "): " + message);
  emitKit(st, "load-failed", p);
  if (reason === "signed-out") emitKit(st, "session-ended", { status: 401 });
  settleFailure(st, frameError(reason, status, message));
}

// ---- session renewal ------------------------------------------------------

function renewAfter(el) {
  var v = parseInt(el.getAttribute("data-embedkit-renew-after"), 10);
  // A floor of minutes: "22", meant as hours, must not re-mint every
  // second for ever.
  return isNaN(v) ? RENEW_AFTER_MS : Math.max(MIN_RENEW_AFTER_MS, v);
}

function armRenewal(st) {
  clearTimeout(st.renewTimer);
  var ms = renewAfter(st.el);
  st.renewDue = Date.now() + ms;
  st.renewTimer = setTimeout(function () {
    st.renewTimer = 0;
    checkDue(st);
  }, ms);
}

// checkDue starts the timed renewal once it is due; timers sleep in
// background tabs, so visibilitychange calls it too.
function checkDue(st) {
  if (!st.renewDue || st.remint || st.ended) return;
  var left = st.renewDue - Date.now();
  if (left > 0) {
    if (!st.renewTimer) {
      st.renewTimer = setTimeout(function () {
        st.renewTimer = 0;
        checkDue(st);
      }, left);
    }
    return;
  }
  st.renewDue = 0;
  if (connected(st.el)) start(st, "expiring", null);
}

function backoff(failures) {
  var base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * Math.pow(2, failures - 1));
  // Jitter spreads the retries of tabs that lost the network together;
  // never below the first step, so never a tight loop.
  return Math.max(BACKOFF_FIRST_MS, Math.round(base * (1 - 0.2 * Math.random())));
}

// start begins a renewal of st's frame unless one is under way (at most
// one per frame), adding waiter (a reload() promise's settlers).
function start(st, reason, waiter) {
  var r = st.remint;
  if (!r) {
    clearTimeout(st.renewTimer);
    st.renewTimer = 0;
    st.renewDue = 0;
    st.ended = false;
    r = st.remint = {
      reason: reason, phase: "wait", attempt: 0, failures: 0, hard: 0,
      due: 0, timer: 0, readyTimer: 0, cancel: null, waiters: []
    };
    clearTimeout(st.firstTimer);
    st.firstTimer = 0;
    st.failure = null;
    setState(st, "renewing");
    freshReady(st);
    if (waiter) r.waiters.push(waiter);
    var last = st.lastRenewal;
    if (reason === "error" && last && Date.now() - last.at < STABLE_MS) {
      r.attempt = last.attempt;
      r.failures = last.failures;
      r.hard = last.hard;
      fail(st, "hard", undefined, "the embed failed again right after its renewal");
    } else {
      attempt(st);
    }
    return;
  }
  if (waiter) r.waiters.push(waiter);
  if (reason === "reload") runSoon(st);
}

// runSoon runs a waiting retry now, or one second after the last
// attempt if that is later (online, visibilitychange, reload()).
function runSoon(st) {
  var r = st.remint;
  if (!r || r.phase !== "wait") return;
  var wait = st.lastAttemptAt + MIN_ATTEMPT_GAP_MS - Date.now();
  if (wait > 0 && r.due <= Date.now() + wait) return;
  clearTimeout(r.timer);
  r.timer = 0;
  attempt(st); // which waits out the gap itself
}

// retryIn runs st's attempt after delay.
function retryIn(st, r, delay) {
  r.due = Date.now() + delay;
  r.timer = setTimeout(function () { r.timer = 0; attempt(st); }, delay);
}

function attempt(st) {
  var r = st.remint;
  if (!r || r.phase !== "wait") return;
  var wait = st.lastAttemptAt + MIN_ATTEMPT_GAP_MS - Date.now();
  if (wait > 0) {
    retryIn(st, r, wait);
    return;
  }
  if (!connected(st.el)) {
    giveUp(st, undefined, "the frame is no longer in the page");
    return;
  }
  r.attempt++;
  r.phase = "request";
  st.lastAttemptAt = Date.now();
  var src = st.el.getAttribute("src");
  var url = src ? absolute(src) : null;
  if (url && url.origin === location.origin) {
    probe(st, r, src, url.href);
  } else {
    viaSessionEndpoint(st, r);
  }
}

// timedFetch fetches url with init and calls answered(res), or failed()
// on a network error, or late(cancel) when no answer came within
// REQUEST_TIMEOUT_MS. It returns cancel, which stops the timer and aborts
// the fetch.
function timedFetch(url, init, answered, failed, late) {
  var ctl = typeof AbortController === "function" ? new AbortController() : null;
  if (ctl) init.signal = ctl.signal;
  var timer = setTimeout(function () { late(cancel); }, REQUEST_TIMEOUT_MS);
  function cancel() {
    clearTimeout(timer);
    if (ctl) ctl.abort();
  }
  var p;
  try {
    p = fetch(url, init);
  } catch (err) {
    p = Promise.reject(err);
  }
  p.then(function (res) {
    clearTimeout(timer);
    answered(res);
  }, function () {
    clearTimeout(timer);
    failed();
  });
  return cancel;
}

// headInit is the fetch init of a HEAD request to the frame endpoint,
// which checks the viewer without minting.
function headInit() {
  return { method: "HEAD", credentials: "same-origin", redirect: "manual", cache: "no-store" };
}

// request fetches with a timeout and calls done(res) or fail; a late
// answer to a superseded attempt is dropped.
function request(st, r, what, url, init, done) {
  var n = r.attempt;
  var live = function () { return st.remint === r && r.attempt === n && r.phase === "request"; };
  r.cancel = timedFetch(url, init, function (res) {
    if (!live()) return;
    r.cancel = null;
    done(res, live);
  }, function () {
    if (!live()) return;
    r.cancel = null;
    fail(st, "network", undefined, "network error reaching " + what);
  }, function (cancel) {
    if (!live()) return;
    r.cancel = null;
    cancel();
    fail(st, "network", undefined, what + " did not answer within " + REQUEST_TIMEOUT_MS / 1000 + " s");
  });
}

// classify names what the frame or session endpoint's answer says:
// "signed-out" (401, or a redirect, which is the login page for browsers
// that send no fetch metadata), "refused-origin" (403), "unavailable"
// (5xx, 408 or 429: try again later), "rejected" (another 4xx), "ok"
// (2xx) or "unexpected" (anything else).
function classify(res) {
  var status = res.status;
  if (res.type === "opaqueredirect" || status === 401) return "signed-out";
  if (status >= 200 && status < 300) return "ok";
  if (status === 403) return "refused-origin";
  if (status >= 500 || status === 408 || status === 429) return "unavailable";
  if (status >= 400) return "rejected";
  return "unexpected";
}

// judge handles the answers the frame and session endpoints share and
// reports whether it did.
function judge(st, res, what) {
  var status = res.status;
  var message = what + " answered " + status;
  switch (classify(res)) {
    case "ok":
      return false;
    case "signed-out":
      ended(st);
      break;
    case "unavailable":
      fail(st, "hard", status, message, retryAfter(res));
      break;
    case "refused-origin":
    case "rejected":
      giveUp(st, status, message);
      break;
    default:
      fail(st, "hard", status, message);
  }
  return true;
}

function header(res, name) {
  return res.headers && typeof res.headers.get === "function" ? res.headers.get(name) : null;
}

function retryAfter(res) {
  var v = header(res, "Retry-After");
  var s = v && /^\d+$/.test(v) ? parseInt(v, 10) * 1000 : 0;
  return Math.min(BACKOFF_MAX_MS, s);
}

// probe asks the same-origin frame endpoint with HEAD, which checks the
// viewer without minting, before loading the frame through it again.
function probe(st, r, src, url) {
  request(st, r, "the frame endpoint", url, headInit(), function (res) {
    checkKitVersion(header(res, "Embedkit-Version"), st);
    if (judge(st, res, "the frame endpoint")) return;
    // Setting src, even to the same value, loads the frame again; the
    // frame endpoint mints on every load.
    load(st, r, function () { st.el.setAttribute("src", src); });
  });
}

// viaSessionEndpoint renews a frame whose src is the platform's own URL
// (a single-page app set it) through the kit's JSON endpoint.
function viaSessionEndpoint(st, r) {
  var target = st.el.getAttribute("data-embedkit-target");
  if (!target) {
    giveUp(st, undefined, "the frame has no data-embedkit-target to renew");
    return;
  }
  var endpoint = st.el.getAttribute("data-embedkit-session-url") || SESSION_URL;
  var eu = absolute(endpoint);
  if (!/^\/(?!\/)/.test(endpoint) || !eu || eu.origin !== location.origin) {
    giveUp(st, undefined, "data-embedkit-session-url must be a same-origin path");
    return;
  }
  request(st, r, "the session endpoint", endpoint, {
    method: "POST", credentials: "same-origin", redirect: "manual", cache: "no-store",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify({ target: target })
  }, function (res, live) {
    if (judge(st, res, "the session endpoint")) return;
    var unusable = function () {
      if (live()) fail(st, "hard", res.status, "the session endpoint answered no usable URL");
    };
    Promise.resolve().then(function () { return res.json(); }).then(function (body) {
      if (!live()) return;
      // The answer names a session: it goes into iframe.src and nowhere
      // else, and only when it is the platform's.
      var u = body && typeof body.url === "string" ? absolute(body.url) : null;
      if (!u || u.origin !== ORIGIN) {
        unusable();
        return;
      }
      load(st, r, function () { st.el.setAttribute("src", u.href); });
    }, unusable);
  });
}

function load(st, r, navigate) {
  r.phase = "load";
  r.readyTimer = setTimeout(function () {
    r.readyTimer = 0;
    if (st.remint !== r || r.phase !== "load") return;
    var offline = typeof navigator !== "undefined" && navigator.onLine === false;
    fail(st, offline ? "network" : "hard", undefined, "the embed was not ready within " + READY_TIMEOUT_MS / 1000 + " s");
  }, READY_TIMEOUT_MS);
  navigate();
}

function finish(st, r) {
  clearTimeout(r.timer);
  clearTimeout(r.readyTimer);
  if (r.cancel) r.cancel();
  r.timer = r.readyTimer = 0;
  r.cancel = null;
  if (st.remint === r) st.remint = null;
}

// fail reports a failed attempt and schedules the next; network errors
// are retried for as long as they last, other failures five times.
function fail(st, kind, status, message, minDelay) {
  var r = st.remint;
  clearTimeout(r.readyTimer);
  r.readyTimer = 0;
  if (r.cancel) r.cancel();
  r.cancel = null;
  r.failures++;
  if (kind !== "network") r.hard++;
  if (r.hard >= MAX_FAILURES) {
    giveUp(st, status, message);
    return;
  }
  var delay = Math.max(backoff(r.failures), minDelay || 0);
  r.phase = "wait";
  retryIn(st, r, delay);
  emitKit(st, "renew-failed", failure(status, message, r.attempt, delay));
}

function failure(status, message, n, retryInMs) {
  var p = {};
  if (status !== undefined) p.status = status;
  p.message = message;
  p.attempt = n;
  p.retryInMs = retryInMs;
  return p;
}

function giveUp(st, status, message) {
  var r = st.remint;
  finish(st, r);
  emitKit(st, "renew-failed", failure(status, message, r.attempt, null));
  rejectReloads(r, "renew-failed", status, "the frame could not be renewed: " + message);
  setState(st, "failed");
  settleFailure(st, frameError("renew-failed", status, "the frame could not be renewed: " + message));
}

function ended(st) {
  var r = st.remint;
  finish(st, r);
  st.ended = true;
  emitKit(st, "session-ended", { status: 401 });
  rejectReloads(r, "session-ended", 401, "the viewer is signed out");
  setState(st, "ended");
  settleFailure(st, frameError("session-ended", 401, "the viewer is signed out"));
}

function onOnline() {
  scan().forEach(runSoon);
}

function onVisible() {
  if (document.visibilityState !== "visible") return;
  scan().forEach(function (st) {
    checkDue(st);
    runSoon(st);
  });
}

// ---- actions --------------------------------------------------------------

// validLocale is the Go rule (embedkit): a well-formed BCP-47 tag of at
// most LOCALE_MAX_LENGTH characters; the browser's Intl is the parser.
function validLocale(locale) {
  if (typeof locale !== "string" || locale.length > LOCALE_MAX_LENGTH) return false;
  // A private-use tag alone is well-formed BCP 47, which Intl (Unicode
  // locale ids) does not parse.
  if (PRIVATE_LOCALE.test(locale) || GRANDFATHERED.test(locale)) return true;
  if (!LOCALE.test(locale)) return false;
  if (typeof Intl === "undefined" || typeof Intl.getCanonicalLocales !== "function") return true;
  try {
    return Intl.getCanonicalLocales(locale).length === 1;
  } catch (e) {
    return false;
  }
}

// validTimezone is the Go rule (middleware.ValidTimeZone): an IANA name
// the time zone database knows, never a bare offset.
function validTimezone(tz) {
  if (typeof tz !== "string" || tz.length > TIMEZONE_MAX_LENGTH || tz === "Local" || !TIMEZONE.test(tz)) return false;
  if (typeof Intl === "undefined" || typeof Intl.DateTimeFormat !== "function") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch (e) {
    return false;
  }
}

function validMember(member) {
  return typeof member === "string" && MEMBER.test(member);
}

function validPath(path) {
  return typeof path === "string" && path.length <= 2048 &&
    NAVIGATE_PATHS.some(function (re) { return re.test(path); });
}

function checkLocale(call, locale) {
  if (!validLocale(locale)) {
    throw argError(call, "locale", 'a language tag such as "de-DE" (BCP 47, at most ' + LOCALE_MAX_LENGTH + " characters)", locale);
  }
}

function checkTimezone(call, tz) {
  if (!validTimezone(tz)) {
    throw argError(call, "timeZone", 'an IANA time zone name such as "Europe/Berlin" (not an offset)', tz);
  }
}

function themeCopy(call, theme) {
  if (!theme || typeof theme !== "object" || Array.isArray(theme) ||
      Object.prototype.toString.call(theme) !== "[object Object]") {
    throw argError(call, "theme", "a plain object such as {primaryColor: \"#0b5fff\"}", theme);
  }
  // A copy: later changes to the host's object do not alter what is
  // sent again after a reload, and it must survive postMessage.
  try {
    return JSON.parse(JSON.stringify(theme));
  } catch (e) {
    throw argError(call, "theme", "plain JSON data", theme);
  }
}

function checkScheme(call, scheme) {
  if (scheme !== "light" && scheme !== "dark" && scheme !== "auto") {
    throw argError(call, "scheme", '"light", "dark" or "auto"', scheme);
  }
}

function scalar(v) {
  return typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && isFinite(v));
}

// filterParameter is the documented f_ URL parameter: the member, then
// the percent-encoded JSON {"value": value}.
function filterParameter(call, member, value) {
  if (!validMember(member)) {
    throw argError(call, "member", 'a member name such as "sales.region" (view.member)', member);
  }
  if (!(value === null || scalar(value) || (Array.isArray(value) && value.length > 0 && value.every(scalar)))) {
    throw argError(call, "value", "a string, a finite number, a boolean, a non-empty array of those, or null to clear", value);
  }
  var json = JSON.stringify({ value: value });
  try {
    return "f_" + encodeURIComponent(member) + "=" + encodeURIComponent(json);
  } catch (e) {
    throw argError(call, "value", "well-formed text", value);
  }
}

function checkPath(call, path) {
  if (!validPath(path)) {
    throw argError(call, "path", 'an embed path such as "/embed/dashboard/sales" (one of the forms of the platform\'s embed URLs: ' +
      "no query, fragment, encoded slash or dot segment)", path);
  }
}

function checkNoArgs(call, args) {
  if (args.length) throw new TypeError("embedkit: " + call + " takes no arguments");
}

function valueCopy(v) {
  return Array.isArray(v) ? v.slice() : v;
}

// Each action: how to check its arguments and build the action {key (the
// setting it remembers, or null), type, payload, value (what the host
// passed, for filters() and settings()), kind, path}.
var ACTIONS = {
  setLocale: function (call, locale) {
    checkLocale(call, locale);
    return { key: "locale", type: "cube:action:set-locale", payload: { locale: locale }, value: locale };
  },
  setTimezone: function (call, tz) {
    checkTimezone(call, tz);
    // Not in the platform's event catalog: sent only when the host asks.
    return { key: "timezone", type: "cube:action:set-timezone", payload: { timezone: tz }, value: tz };
  },
  setTheme: function (call, theme) {
    var copy = themeCopy(call, theme);
    return { key: "theme", type: "cube:action:set-theme", payload: copy, value: themeCopy(call, copy) };
  },
  setColorScheme: function (call, scheme) {
    checkScheme(call, scheme);
    return { key: "scheme", type: "cube:action:set-color-scheme", payload: { scheme: scheme }, value: scheme };
  },
  setFilter: function (call, member, value) {
    if (arguments.length < 3) throw argError(call, "value", "given (null clears the filter)", undefined);
    return {
      key: "filter:" + member, type: "cube:action:set-filter",
      payload: { filterUrlParameter: filterParameter(call, member, value) }, value: valueCopy(value)
    };
  },
  navigate: function (call, path) {
    checkPath(call, path);
    return { key: null, type: "cube:action:navigate", payload: { path: path }, kind: "navigate", path: path };
  },
  refresh: function (call) {
    checkNoArgs(call, Array.prototype.slice.call(arguments, 1));
    return { key: null, type: "cube:action:refresh", payload: {}, kind: "refresh" };
  }
};

// hostFilters and hostSettings read what the host set through the script.
function hostFilters(settings) {
  var out = Object.create(null);
  settings.order.forEach(function (key) {
    var v = settings.values[key];
    if (key.indexOf("filter:") === 0 && v.value !== null) out[key.slice(7)] = v.value;
  });
  return frozen(out);
}

var SETTING_NAMES = { locale: "locale", timezone: "timezone", theme: "theme", scheme: "colorScheme" };

function hostSettings(settings) {
  var out = Object.create(null);
  settings.order.forEach(function (key) {
    if (hasOwn.call(SETTING_NAMES, key)) out[SETTING_NAMES[key]] = settings.values[key].value;
  });
  return frozen(out);
}

// ---- the frame handle -----------------------------------------------------

function Frame(st) {
  Object.defineProperty(this, "element", { value: st.el, enumerable: true });
}

Object.defineProperties(Frame.prototype, {
  // state: loading, ready, renewing, ended or failed.
  state: { get: function () { return stateOf(this).state; }, enumerable: true },
  // ready: a promise of the current ready event; a new one once the frame
  // reloads; rejected when the frame ends or fails.
  ready: { get: function () { return stateOf(this).readyD.promise; }, enumerable: true },
  // view: the last view payload, or null.
  view: { get: function () { return stateOf(this).view; }, enumerable: true }
});

// filters returns the filters the host set through the script, by member
// (cleared ones left out): the host's view only, since the platform sends
// no event when the viewer changes a filter inside the embed.
Frame.prototype.filters = function () {
  return hostFilters(stateOf(this).settings);
};

// settings returns the locale, timezone, theme and colorScheme the host
// set through the script.
Frame.prototype.settings = function () {
  return hostSettings(stateOf(this).settings);
};

function stateOf(handle) {
  var st = handles.get(handle);
  if (!st) throw new TypeError("embedkit: not a frame handle; use embedkit.frame(element)");
  return st;
}

function checkListener(call, name, fn) {
  if (typeof name !== "string" || !NAMES[name]) {
    throw argError(call, "name", "one of " + Object.keys(NAMES).join(", "), name);
  }
  if (typeof fn !== "function") throw argError(call, "listener", "a function", fn);
}

Frame.prototype.on = function (name, fn) {
  checkListener("on(name, listener)", name, fn);
  var st = stateOf(this);
  var list = st.listeners[name] || (st.listeners[name] = []);
  var added = list.indexOf(fn) < 0;
  if (added) list.push(fn);
  var self = this;
  // A ready listener added once the frame is ready gets the last ready
  // event at once (in a microtask), unless it was removed or the frame
  // reported ready again meanwhile.
  if (added && name === "ready" && st.state === "ready" && st.readyEv) {
    var ev = st.readyEv;
    Promise.resolve().then(function () {
      if (st.readyEv !== ev || (st.listeners.ready || []).indexOf(fn) < 0) return;
      try {
        fn.call(self, ev);
      } catch (err) {
        report(err);
      }
    });
  }
  return function () { self.off(name, fn); };
};

Frame.prototype.off = function (name, fn) {
  checkListener("off(name, listener)", name, fn);
  var list = stateOf(this).listeners[name];
  var i = list ? list.indexOf(fn) : -1;
  if (i >= 0) list.splice(i, 1);
};

Object.keys(ACTIONS).forEach(function (method) {
  Frame.prototype[method] = function () {
    var st = stateOf(this);
    var args = [method + "()"].concat(Array.prototype.slice.call(arguments));
    return act(st, ACTIONS[method].apply(null, args));
  };
});

Frame.prototype.reload = function () {
  var st = stateOf(this);
  return new Promise(function (resolve, reject) {
    start(st, "reload", { resolve: resolve, reject: reject });
  });
};

var METHODS = ["on", "off", "reload", "filters", "settings"].concat(Object.keys(ACTIONS));

// ---- <embedkit-frame> -----------------------------------------------------

var ELEMENT_ATTRS = {
  "fit": "data-embedkit-fit",
  "min-height": "data-embedkit-min-height",
  "max-height": "data-embedkit-max-height",
  "renew-after": "data-embedkit-renew-after",
  "ready-timeout": "data-embedkit-ready-timeout",
  "debug": "data-embedkit-debug"
};

// The iframe attributes <embedkit-frame> passes on as they are.
var PASSED_ATTRS = ["loading", "allow", "name", "width", "height", "class", "style", "fetchpriority",
  "aria-label", "aria-describedby", "sandbox"];

// frameSrc checks an <embedkit-frame src>: only a same-origin path under
// the kit's frame endpoint, so no URL of another origin or scheme
// (javascript:) reaches the iframe.
function frameSrc(src) {
  var bad = function () {
    report(argError("<embedkit-frame src>", "src", "a same-origin path under the kit's frame endpoint " +
      describe(FRAME_PREFIX), src));
    return null;
  };
  if (!/^\/(?!\/)[^\u0000-\u0020\u007f\\#]*$/.test(src)) return bad();
  var u = absolute(src);
  if (!u || u.origin !== location.origin || u.pathname.indexOf(FRAME_PREFIX) !== 0 || u.hash) return bad();
  var rest = u.pathname.slice(FRAME_PREFIX.length);
  if (!rest || /%2f|%5c/i.test(rest) || /(^|\/)\.\.?(\/|$)/.test(src.split("?")[0].slice(FRAME_PREFIX.length))) return bad();
  return src;
}

function framePath(target) {
  if (!target) return null;
  if (!TARGET.test(target) || target.split("/").some(function (s) { return s === "." || s === ".."; })) {
    report(new TypeError("embedkit: <embedkit-frame target>: target must be a target name or path such as \"sales\", got " + describe(target)));
    return null;
  }
  return FRAME_PREFIX + target;
}

function setAttr(el, name, value) {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

// copyAttrs gives the element's iframe what its attributes say; a new
// src loads the frame again (and mints), so it is set only on change.
function copyAttrs(host, el) {
  var target = host.getAttribute("target");
  setAttr(el, "data-embedkit", "");
  setAttr(el, "data-embedkit-target", target);
  setAttr(el, "title", host.getAttribute("title") || "Analytics");
  setAttr(el, "referrerpolicy", "no-referrer");
  setAttr(el, "allow", "fullscreen");
  PASSED_ATTRS.forEach(function (a) {
    var v = host.getAttribute(a);
    if (v !== null || a !== "allow") setAttr(el, a, v);
  });
  Object.keys(ELEMENT_ATTRS).forEach(function (a) {
    setAttr(el, ELEMENT_ATTRS[a], host.getAttribute(a));
  });
  var src = host.getAttribute("src");
  setAttr(el, "src", src !== null ? frameSrc(src) : framePath(target));
}

// build creates the element's one iframe the first time it is needed.
function build(host) {
  var el = hosts.get(host);
  if (!el) {
    el = document.createElement("iframe");
    copyAttrs(host, el);
    hosts.set(host, el);
    host.appendChild(el);
  }
  return manage(el);
}

function defineElement() {
  if (typeof customElements === "undefined" || typeof HTMLElement !== "function" ||
      customElements.get("embedkit-frame")) {
    return;
  }
  class EmbedkitFrameElement extends HTMLElement {
    static get observedAttributes() {
      return ["target", "src", "title"].concat(Object.keys(ELEMENT_ATTRS), PASSED_ATTRS);
    }

    connectedCallback() {
      // An unknown element is inline by default; the frame needs a box.
      if (typeof getComputedStyle === "function" && getComputedStyle(this).display === "inline") {
        this.style.display = "block";
      }
      build(this);
      scan();
    }

    attributeChangedCallback(name, before, after) {
      var el = hosts.get(this);
      if (!el || before === after) return;
      copyAttrs(this, el);
      size(el);
    }

    get frame() {
      return build(this).handle;
    }

    get state() {
      return build(this).handle.state;
    }

    get ready() {
      return build(this).handle.ready;
    }

    get view() {
      return build(this).handle.view;
    }
  }
  METHODS.forEach(function (method) {
    EmbedkitFrameElement.prototype[method] = function () {
      var h = build(this).handle;
      return h[method].apply(h, arguments);
    };
  });
  customElements.define("embedkit-frame", EmbedkitFrameElement);
}

// ---- sizing ---------------------------------------------------------------

function pixels(value) {
  if (value === null || !/^\s*\d+(?:\.\d+)?\s*(?:px)?\s*$/.test(value)) return null;
  return parseFloat(value);
}

function size(el) {
  var fit = el.getAttribute("data-embedkit-fit");
  var min = pixels(el.getAttribute("data-embedkit-min-height"));
  var max = pixels(el.getAttribute("data-embedkit-max-height"));
  var s = el.style;
  if (fit !== "container" && fit !== "viewport") {
    if (min !== null) s.minHeight = min + "px";
    if (max !== null) s.maxHeight = max + "px";
    return;
  }
  if (min === null) min = DEFAULT_MIN_HEIGHT;
  s.display = "block";
  s.minHeight = min + "px";
  s.maxHeight = max === null ? "" : max + "px";
  if (fit === "container") {
    s.width = "100%";
    s.height = "100%";
    return;
  }
  var top = el.getBoundingClientRect().top + (window.pageYOffset || 0);
  var h = Math.floor(window.innerHeight - top);
  if (max !== null) h = Math.min(h, max);
  s.height = Math.max(h, min) + "px"; // as in CSS, the minimum wins
}

var sizing = 0;
function onResize() {
  if (sizing) return;
  var frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame : function (fn) { return setTimeout(fn, 16); };
  sizing = frame(function () {
    sizing = 0;
    managed.forEach(function (st) {
      if (st.el.getAttribute("data-embedkit-fit") === "viewport") size(st.el);
    });
  });
}

// ---- discovery ------------------------------------------------------------

var SIZE_ATTRS = ["data-embedkit-fit", "data-embedkit-min-height", "data-embedkit-max-height"];

// ---- starting -------------------------------------------------------------

function observe() {
  if (typeof MutationObserver !== "function") return;
  new MutationObserver(function (records) {
    var rescan = false, removed = false;
    records.forEach(function (rec) {
      if (rec.type === "attributes") {
        if (rec.attributeName === "data-embedkit") rescan = true;
        else if (states.has(rec.target)) size(rec.target);
        return;
      }
      for (var i = 0; i < rec.addedNodes.length; i++) {
        var n = rec.addedNodes[i];
        // Only a frame to manage calls for a scan; an iframe that gets
        // data-embedkit later is found by its attribute's change.
        if (n.nodeType === 1 && ((n.localName === "iframe" && n.hasAttribute("data-embedkit")) ||
            (n.querySelector && n.querySelector("iframe[data-embedkit]")))) rescan = true;
      }
      for (var j = 0; j < rec.removedNodes.length; j++) {
        if (rec.removedNodes[j].nodeType === 1) removed = true;
      }
    });
    // A managed iframe that has left the document is released: its timers
    // stop and what waits on it is rejected (reason "released"). One that
    // was only moved is in the document again by now and is kept; one put
    // back later is managed again, as new.
    if (removed) {
      managed.slice().forEach(function (st) {
        if (!st.el.isConnected) release(st.el);
      });
    }
    if (rescan) scan();
  }).observe(document.documentElement, {
    childList: true, subtree: true, attributes: true,
    attributeFilter: ["data-embedkit"].concat(SIZE_ATTRS)
  });
}

// startPage begins managing the page's frames, once: it listens for messages
// and page events, watches for frames added later and defines
// <embedkit-frame>.
function startPage() {
  if (started) return;
  started = true;
  window.addEventListener("message", onMessage);
  window.addEventListener("online", onOnline);
  window.addEventListener("resize", onResize);
  document.addEventListener("visibilitychange", onVisible);
  observe();
  listenForLogout(endSignedOut);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { scan(); });
  }
  defineElement();
  // Sized and managed at once, so the page does not jump later.
  scan();
}

function browser() {
  return typeof window !== "undefined" && typeof document !== "undefined";
}

function checkPathSetting(name, value, prefix) {
  if (typeof value !== "string" || !/^\/(?!\/)[^\u0000-\u0020\u007f\\?#]*$/.test(value) ||
      (prefix && value.charAt(value.length - 1) !== "/")) {
    throw argError("configure(settings)", "settings." + name,
      prefix ? 'a same-origin path ending in "/" such as "/embed/frame/"' : 'a same-origin path such as "/embed/session"', value);
  }
}

// checkSettings checks settings; it returns the checked copy.
function checkSettings(settings) {
  if (!settings || typeof settings !== "object" || Array.isArray(settings)) {
    throw argError("configure(settings)", "settings", "an object such as {platformOrigin: \"https://acme.example.com\"}", settings);
  }
  var out = {
    platformOrigin: settings.platformOrigin,
    sessionURL: settings.sessionURL === undefined ? "/embed/session" : settings.sessionURL,
    framePrefix: settings.framePrefix === undefined ? "/embed/frame/" : settings.framePrefix,
    version: settings.version === undefined ? null : settings.version
  };
  if (typeof out.platformOrigin !== "string" || !ORIGIN_RULE.test(out.platformOrigin)) {
    throw argError("configure(settings)", "settings.platformOrigin", 'an origin such as "https://acme.example.com" (scheme and host, no path)', out.platformOrigin);
  }
  checkPathSetting("sessionURL", out.sessionURL, false);
  checkPathSetting("framePrefix", out.framePrefix, true);
  if (out.version !== null && (typeof out.version !== "string" || out.version.length > 64)) {
    throw argError("configure(settings)", "settings.version", "the kit's host script version, a string", out.version);
  }
  return out;
}

/**
 * configure sets the kit's settings for this page: platformOrigin (the
 * platform's origin, required), sessionURL (Config.Paths.Session, default
 * "/embed/session"), framePrefix (Config.Paths.Frame, default
 * "/embed/frame/") and version (the kit's host script version, optional,
 * checked against this package's). Kit.HostSettings() on the server
 * returns exactly this object. It starts managing the page's frames.
 * Calling it again with the same settings does nothing; with others it
 * throws, since frames already trust the first origin.
 */
export function configure(settings) {
  var s = checkSettings(settings);
  if (ORIGIN !== null) {
    if (s.platformOrigin !== ORIGIN || s.sessionURL !== SESSION_URL || s.framePrefix !== FRAME_PREFIX) {
      throw new Error("embedkit: configure(settings): already configured for " + ORIGIN + "; a page has one platform");
    }
    return;
  }
  ORIGIN = s.platformOrigin;
  SESSION_URL = s.sessionURL;
  FRAME_PREFIX = s.framePrefix;
  KIT_VERSION = s.version;
  if (browser()) startPage();
  checkKitVersion(KIT_VERSION, null);
}

// fromMeta configures from <meta name="embedkit" content="{...}"> when
// the page has one; it reports whether it did.
function fromMeta() {
  if (!browser() || typeof document.querySelector !== "function") return false;
  var meta = document.querySelector('meta[name="embedkit"]');
  if (!meta) return false;
  var settings;
  try {
    settings = JSON.parse(meta.getAttribute("content"));
  } catch (e) {
    throw new Error("embedkit: <meta name=\"embedkit\"> content is not JSON; render it from Kit.HostSettings()");
  }
  configure(settings);
  return true;
}

// ensure makes sure the module is configured before a call that needs it.
function ensure(call) {
  if (ORIGIN !== null || fromMeta()) {
    if (!started && browser()) startPage();
    return;
  }
  throw new Error("embedkit: " + call + ": not configured; call configure({platformOrigin}) first, " +
    "or render Kit.HostSettings() in <meta name=\"embedkit\">");
}

// ---- cross-tab logout (tabs.js) ---------------------------------------------

// endSignedOut ends every frame of the page because the viewer logged out,
// in this tab or another of the origin (tabs.js): nothing is left pending
// (renewal, retry, first-load and probe timers and requests), the frame's
// page is replaced by about:blank, its state is ended, session-ended fires
// with {reason: "logout"} and what waits on it is rejected.
function endSignedOut() {
  scan().forEach(function (st) {
    var r = st.remint;
    clearTimeout(st.renewTimer);
    clearTimeout(st.firstTimer);
    st.renewTimer = st.firstTimer = 0;
    st.renewDue = 0;
    if (st.probe) {
      st.probe();
      st.probe = null;
    }
    if (r) {
      finish(st, r);
      rejectReloads(r, "session-ended", undefined, "the viewer logged out");
    }
    blank(st.el);
    if (st.state === "ended") return; // told once already
    st.ended = true;
    setState(st, "ended");
    emitKit(st, "session-ended", { reason: "logout" });
    settleFailure(st, frameError("session-ended", undefined, "the viewer logged out"));
  });
}

// ---- the API --------------------------------------------------------------

/**
 * signedOut tells every tab of this origin that the viewer has logged
 * out, for a page that does not log out by submitting a form marked
 * data-embedkit-logout (a single-page app that logs out by fetch): the
 * frames of this tab and of every other tab end at once (state ended,
 * session-ended with {reason: "logout"}, the frame blanked, no request
 * left pending). Call it when logout starts; a logout that then fails
 * leaves the frames ended (fail closed) until the page is reloaded. It
 * works before configure() too, and does nothing without a DOM.
 */
export function signedOut() {
  if (browser()) signOutEverywhere();
}

/**
 * configured returns the settings the page's frames are managed with
 * (those configure() was given, or the page's <meta name="embedkit">), as
 * a frozen copy {platformOrigin, sessionURL, framePrefix, version}, or
 * null before either. It never throws, and touches nothing without a DOM.
 */
export function configured() {
  try {
    if (ORIGIN === null && !fromMeta()) return null;
  } catch (e) {
    return null; // a malformed tag: the calls that need settings say so
  }
  return Object.freeze({ platformOrigin: ORIGIN, sessionURL: SESSION_URL, framePrefix: FRAME_PREFIX, version: KIT_VERSION });
}

/**
 * frame returns the handle of an <iframe data-embedkit> or an
 * <embedkit-frame> (an element or a CSS selector of one); the same object
 * each time.
 */
export function frame(elementOrSelector) {
  ensure("frame(element)");
  var el = elementOrSelector;
  if (typeof el === "string") {
    try {
      el = document.querySelector(el);
    } catch (e) {
      el = null;
    }
  }
  if (el && el.nodeType === 1) {
    if (el.localName === "iframe" && el.hasAttribute("data-embedkit")) return manage(el).handle;
    if (el.localName === "embedkit-frame") return build(el).handle;
  }
  throw argError("frame(element)", "element", "an <iframe data-embedkit>, an <embedkit-frame> or a CSS selector of one", elementOrSelector);
}

// stateFor finds the state of a handle, an iframe, an <embedkit-frame> or
// a selector of one, or null.
function stateFor(x) {
  if (typeof x === "string") {
    try {
      x = document.querySelector(x);
    } catch (e) {
      return null;
    }
  }
  if (!x || typeof x !== "object") return null;
  if (handles.has(x)) return handles.get(x);
  if (x.nodeType === 1 && x.localName === "embedkit-frame") x = hosts.get(x);
  return (x && states.get(x)) || null;
}

/**
 * release stops managing a frame (a handle, an iframe, an
 * <embedkit-frame> or a selector of one), for a page or component that
 * removes it: its timers stop, its probe is aborted, its listeners are
 * dropped, what waits on it is rejected (reason "released"), and its
 * handle stops working. It reports whether there was a frame to release.
 * A frame still in the page with data-embedkit is managed again, as new,
 * at the next scan.
 */
export function release(frameOrElement) {
  var st = stateFor(frameOrElement);
  if (!st) return false;
  clearTimeout(st.renewTimer);
  clearTimeout(st.firstTimer);
  st.renewTimer = st.firstTimer = 0;
  st.renewDue = 0;
  if (st.probe) {
    st.probe();
    st.probe = null;
  }
  var err = frameError("released", undefined, "the frame was released");
  var r = st.remint;
  if (r) {
    finish(st, r);
    rejectReloads(r, "released", undefined, "the frame was released");
  }
  settleFailure(st, err);
  st.listeners = Object.create(null);
  states.delete(st.el);
  handles.delete(st.handle);
  managed = managed.filter(function (m) { return m !== st; });
  setAttr(st.el, "data-embedkit-state", null);
  setAttr(st.el, "aria-busy", null);
  return true;
}

/**
 * debug turns debug mode on or off for the whole page: every message
 * from a frame is logged to the console, at the debug level, as accepted or
 * dropped, with the reason (wrong origin, wrong source, wrong direction,
 * unknown type, unmanaged frame); its type and origin only, never its
 * payload. data-embedkit-debug on an iframe (debug on <embedkit-frame>)
 * does the same for messages from that frame.
 */
export function debug(on) {
  if (typeof on !== "boolean") throw argError("debug(on)", "on", "true or false", on);
  debugAll = on;
}

/** frames returns the handles of every managed frame of the page. */
export function frames() {
  ensure("frames()");
  return scan().map(function (st) { return st.handle; });
}

function pageWide(method) {
  return function () {
    var call = "embedkit." + method + "()";
    ensure(call);
    var a = ACTIONS[method].apply(null, [call].concat(Array.prototype.slice.call(arguments)));
    if (a.key) remember(page, a.key, a.type, a.payload, a.value);
    var all = Promise.all(scan().map(function (st) { return act(st, a); })).then(noop);
    all.catch(noop);
    return all;
  };
}

/** setLocale sends cube:action:set-locale to every managed frame, and to frames added later. */
export const setLocale = pageWide("setLocale");
/** setTimezone sends cube:action:set-timezone (an optional extra) to every managed frame, and to frames added later. */
export const setTimezone = pageWide("setTimezone");
/** setTheme sends cube:action:set-theme to every managed frame, and to frames added later. */
export const setTheme = pageWide("setTheme");
/** setColorScheme sends cube:action:set-color-scheme to every managed frame, and to frames added later. */
export const setColorScheme = pageWide("setColorScheme");
/** setFilter sends cube:action:set-filter to every managed frame, and to frames added later. */
export const setFilter = pageWide("setFilter");
/** refresh sends cube:action:refresh to every managed frame. */
export const refresh = pageWide("refresh");

// A page that renders the kit's settings needs no configure() call. The
// served global build (which defines __EMBEDKIT_GLOBAL__) has its settings
// filled in instead.
if (typeof __EMBEDKIT_GLOBAL__ === "undefined" && browser()) fromMeta();
