// Frame state and events: the managed frames and their state, the
// messages from them, the actions queued for them, the kit's own events,
// the first load's ready timeout and the version check.

import { version } from "./version.js";
import { EVENTS, frozen, post, refusal } from "./envelope.js";
import { log } from "./settings.js";
import { describe } from "./actions.js";
import { absolute, classify, headInit, header, timedFetch } from "./endpoints.js";
import { armRenewal, fail, finish, giveUp, start, onSessionEvent, refusedInPlace } from "./renewal.js";
import { Frame } from "./handle.js";
import { size } from "./sizing.js";
import { moving, onMoveEvent, queueForMove } from "./navigation.js";

// registry: the states of the frames the last scan found, whether
// debug(true) asked to log every message accepted or dropped, and whether
// the platform has shown that it renews sessions in place (it sent
// cube:event:session-expiring or -expired to a frame of this page; a page
// has one platform).
export const registry = { managed: [], debugAll: false, renewsInPlace: false };

export var READY_TIMEOUT_MS = 30000;

// A frame's first load has as long to report ready as a renewal has;
// data-embedkit-ready-timeout overrides, from this floor.
var MIN_READY_TIMEOUT_MS = 5000;
// A frame that already held the platform's page when the script began
// managing it, and that reports no ready within this, is loaded again
// (missedReady).
var MISSED_READY_MS = 10000;
export var states = new WeakMap(); // iframe -> its state; keeps handles stable

export var handles = new WeakMap(); // handle -> state

export var page = newSettings(); // page-wide settings, for frames found later

export function noop() {}

export function report(err) {
  // A host listener that throws must not stop the kit or other listeners.
  if (typeof window.reportError === "function") {
    window.reportError(err);
  } else {
    setTimeout(function () { throw err; }, 0);
  }
}

export function connected(el) {
  return el.isConnected !== false;
}

function newSettings() {
  return { order: [], values: Object.create(null) };
}

// remember records a setting under key (the latest per key wins, in the
// order first set) so it can be sent again after the frame reloads;
// value is what the host passed, for filters() and settings().
export function remember(settings, key, type, payload, value) {
  if (!(key in settings.values)) settings.order.push(key);
  settings.values[key] = { type: type, payload: payload, value: value };
}

// deferred is a promise with its settlers. Its rejection is marked
// handled: a host that ignores an action's promise is not told of an
// unhandled rejection when the frame fails.
export function deferred() {
  var d = { settled: false };
  d.promise = new Promise(function (resolve, reject) {
    d.resolve = function (v) { d.settled = true; resolve(v); };
    d.reject = function (e) { d.settled = true; reject(e); };
  });
  d.promise.catch(noop);
  return d;
}

var STATES = { loading: true, ready: true, renewing: true, ended: true, failed: true };

// setState records a frame's state on the handle and the iframe
// (data-embedkit-state; aria-busy while it loads).
export function setState(st, state) {
  if (!STATES[state]) throw new Error("embedkit: internal: state " + state);
  st.state = state;
  setAttr(st.el, "data-embedkit-state", state);
  setAttr(st.el, "aria-busy", state === "loading" || state === "renewing" ? "true" : null);
}

// freshReady gives the frame a new pending ready promise unless the
// current one is still pending.
export function freshReady(st) {
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

export function frameError(reason, status, message) {
  return kitError("EmbedkitFrameError", reason, status, message);
}

// rejectReloads rejects the reload() promises that wait on renewal r.
export function rejectReloads(r, reason, status, message) {
  var err = kitError("EmbedkitReloadError", reason, status, message);
  r.waiters.forEach(function (w) { w.reject(err); });
}

// settleFailure rejects what waits on a frame that ended or failed.
export function settleFailure(st, err) {
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

// loadStartBound is the earliest a frame the script finds now can have
// started loading: now, or, while the page itself is still loading (a
// frame in its HTML, whose load may have begun before the script ran),
// the page's own start.
function loadStartBound() {
  var now = Date.now();
  if (typeof performance !== "undefined" && performance && typeof performance.timeOrigin === "number" &&
      typeof document !== "undefined" && document.readyState !== "complete") {
    return Math.min(now, Math.floor(performance.timeOrigin));
  }
  return now;
}

// loadStarted records that st's frame (if managed) began loading a new
// document, whoever set its src: its session is exchanged after now.
export function loadStarted(st) {
  if (!st) return;
  st.exchangeFloor = Date.now();
  st.moveSrc = null;
}

export function manage(el) {
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
    // The earliest the frame's token can have been exchanged: when its
    // current document started loading (its session id was exchanged
    // after that) or when the kit last posted it a new session id.
    exchangeFloor: loadStartBound(),
    ended: false,
    state: "loading",
    readyD: null,
    readyEv: null,
    view: null,
    queue: [], // actions sent before ready: {key, type, payload, kind, arg, d}
    waits: [], // posted navigate and refresh actions waiting for their event
    failure: null,
    firstTimer: 0,
    probe: null, // the first load's HEAD probe: its cancel function
    // Switching targets (navigation.js): the move in flight, actions of
    // a superseded one, the preset filter members of the target shown
    // (null: its settings' presets), the frame endpoint path of the
    // target shown after a move in place (for a reload), and the last
    // dashboard-loaded event.
    move: null,
    moveQueue: null,
    presets: null,
    moveSrc: null,
    loaded: null
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
  armFirstLoad(st, foreignDocument(el));
  size(el);
  return st;
}

// foreignDocument reports whether the iframe el already holds a document
// of another origin than the page's (the platform's): reading its
// address throws then. Its first about:blank, and the frame endpoint's
// answer before its redirect, are the page's own.
function foreignDocument(el) {
  try {
    var w = el.contentWindow;
    if (w) void w.location.href;
    return false;
  } catch (e) {
    return true;
  }
}

export function scan() {
  var found = document.querySelectorAll("iframe[data-embedkit]");
  var list = [];
  for (var i = 0; i < found.length; i++) {
    var st = manage(found[i]);
    // A frame managed before it was in the page is sized once it is.
    if (registry.managed.indexOf(st) < 0) size(st.el);
    list.push(st);
  }
  registry.managed = list;
  return list;
}

function stateOfWindow(win) {
  if (!win) return null;
  for (var pass = 0; pass < 2; pass++) {
    // The second pass finds frames added since the last scan.
    var list = pass === 0 ? registry.managed : scan();
    for (var i = 0; i < list.length; i++) {
      if (list[i].el.contentWindow === win) return list[i];
    }
  }
  return null;
}

// act takes an action for st's frame and returns its promise: sent now
// when the frame is ready, else queued until it is; a setting is also
// remembered, to be sent again after a reload.
export function act(st, a) {
  if (a.key) remember(st.settings, a.key, a.type, a.payload, a.value);
  var d = deferred();
  if (st.state === "ended" || st.state === "failed") {
    d.reject(st.failure || frameError(st.state, undefined, "the frame has " + st.state));
  } else if (st.state === "ready" && moving(st)) {
    queueForMove(st, a, d);
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
export function deliver(st, a, d) {
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
    // A switch's new frame: its dashboard's dashboard-loaded (a late one
    // of the old document names another dashboard).
    var done = (w.kind === "refresh" && name === "dashboard-loaded") ||
      (w.kind === "show" && name === "dashboard-loaded" &&
        (!w.publicId || typeof payload.publicId !== "string" || payload.publicId === w.publicId)) ||
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
  if (!registry.debugAll && !(st && st.el.hasAttribute("data-embedkit-debug"))) return;
  var type = msg && typeof msg === "object" && typeof msg.type === "string" ? describe(msg.type) : "without a type";
  var where = st ? "frame " + label(st) : "no managed frame";
  log("debug", (accepted ? "message accepted: " : "message dropped (" + reason + "): ") + type +
    " from " + describe(String(event.origin)) + ", " + where);
}

export function emitKit(st, name, payload) {
  return emit(st, name, "embedkit:" + name, frozen(payload), st.surface, Date.now());
}

// debugging reports whether debug mode is on for any managed frame.
function debugging() {
  return registry.debugAll || registry.managed.some(function (m) { return m.el.hasAttribute("data-embedkit-debug"); });
}

export function onMessage(event) {
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
  if (name === "dashboard-loaded" && !st.move) st.loaded = ev;
  if (st.move && onMoveEvent(st, name, payload, ev)) {
    // The error ended the move (as a new frame): not the frame's own.
    settleWaits(st, name, payload, ev);
    return;
  }
  if (name === "ready") {
    onReady(st, ev);
  } else if (name === "session-expiring" || name === "session-expired") {
    onSessionEvent(st, name);
  } else if (name === "error" && st.remint && st.remint.phase === "settle") {
    refusedInPlace(st);
  } else if (fatal) {
    showRefused(st, payload);
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
      emitKit(st, "session-renewed", { reason: r.reason, inPlace: false });
    }
    r.waiters.forEach(function (w) { w.resolve(ev); });
  }
  armRenewal(st);
  replay(st);
  flush(st);
  notifyVersion(st);
}

// showRefused rejects the show() promises of a new frame whose embed
// reported a fatal error before its dashboard loaded (a dashboard the
// platform refuses, for example): the host learns it at once, whatever
// the frame does next.
function showRefused(st, payload) {
  if (!st.waits.length) return;
  var msg = typeof payload.message === "string" ? payload.message.slice(0, 200) : "a fatal error";
  st.waits = st.waits.filter(function (w) {
    if (w.kind !== "show") return true;
    w.d.reject(frameError("refused", undefined, "the embed reported " + describe(msg) + " instead of the dashboard"));
    return false;
  });
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

var mismatch = null; // {packageVersion, kitVersion} once the kit's differs

// checkKitVersion compares the kit's host script version (from the
// settings or the frame endpoint's Embedkit-Version header) with this
// package's: a difference is warned once and reported to st's frame, or
// every managed frame, as the kit event version-mismatch.
export function checkKitVersion(kitVersion, st) {
  if (typeof kitVersion !== "string" || kitVersion === "" || kitVersion === version) return;
  if (!mismatch || mismatch.kitVersion !== kitVersion) {
    mismatch = { packageVersion: version, kitVersion: kitVersion.slice(0, 64) };
    log("warn", "this page uses @embedkit/host " + version + " but the kit serves host script " + mismatch.kitVersion +
      "; install the package from the kit's own version");
  }
  (st ? [st] : registry.managed).forEach(notifyVersion);
}

function notifyVersion(st) {
  if (!mismatch || st.versionNotified === mismatch.kitVersion) return;
  st.versionNotified = mismatch.kitVersion;
  emitKit(st, "version-mismatch", { packageVersion: mismatch.packageVersion, kitVersion: mismatch.kitVersion });
}

export function readyTimeout(el) {
  var v = parseInt(el.getAttribute("data-embedkit-ready-timeout"), 10);
  return isNaN(v) ? READY_TIMEOUT_MS : Math.max(MIN_READY_TIMEOUT_MS, v);
}

// armFirstLoad gives a frame's first load its ready timeout. late says
// the frame already held the platform's page when the script began
// managing it: the platform sends ready once, when its page mounts, so a
// script that started after that (a slow network or a busy machine
// delayed it; a module graph) may never hear it. Such a frame that can be
// loaded again (its src is the kit's frame endpoint, or it names its
// data-embedkit-target) and reports no ready within MISSED_READY_MS is
// loaded again, once, with a new session (session-renewed, reason
// "missed-ready"): its new page's ready is heard. Without that it would
// stay loading until the ready timeout and fail as never-ready, with its
// dashboard on screen.
export function armFirstLoad(st, late) {
  if (!st.el.getAttribute("src")) return;
  var retry = late && reloadable(st);
  st.firstTimer = setTimeout(function () {
    st.firstTimer = 0;
    if (retry) {
      missedReady(st);
    } else {
      firstLoadTimeout(st);
    }
  }, retry ? Math.min(MISSED_READY_MS, readyTimeout(st.el)) : readyTimeout(st.el));
}

// reloadable reports whether the kit can load st's frame again: through
// its frame endpoint, or through the session endpoint by its target.
function reloadable(st) {
  var src = st.el.getAttribute("src");
  var url = src ? absolute(src) : null;
  return (url !== null && url.origin === location.origin) || st.el.hasAttribute("data-embedkit-target");
}

// missedReady loads again a frame whose ready the script may have missed
// (armFirstLoad).
function missedReady(st) {
  if (st.state !== "loading" || st.remint || st.ended || states.get(st.el) !== st) return;
  log("info", "frame " + label(st) + " showed the platform's page before this script listened and reported no ready since: loading it again");
  start(st, "missed-ready");
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

export function setAttr(el, name, value) {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

// quiesce leaves nothing of st's frame pending: its renewal, first-load
// and move timers stop, its probe and a renewal's requests are aborted,
// and a move or reload() waiting on them is rejected with reason and
// message. release() and a logout (tabs.js) both end a frame so.
export function quiesce(st, reason, message) {
  clearTimeout(st.renewTimer);
  clearTimeout(st.firstTimer);
  st.renewTimer = st.firstTimer = 0;
  st.renewDue = 0;
  if (st.probe) {
    st.probe();
    st.probe = null;
  }
  if (st.move) {
    var err = frameError(reason, undefined, message);
    clearTimeout(st.move.timer);
    st.move.queue.forEach(function (q) { q.d.reject(err); });
    st.move.d.reject(err);
    st.move = null;
  }
  var r = st.remint;
  if (r) {
    finish(st, r);
    rejectReloads(r, reason, undefined, message);
  }
}

// releaseFrame stops managing st's frame (release()): its timers stop,
// its probe is aborted, its listeners are dropped, what waits on it is
// rejected (reason "released"), and its handle stops working.
export function releaseFrame(st) {
  quiesce(st, "released", "the frame was released");
  settleFailure(st, frameError("released", undefined, "the frame was released"));
  st.listeners = Object.create(null);
  states.delete(st.el);
  handles.delete(st.handle);
  registry.managed = registry.managed.filter(function (m) { return m !== st; });
  setAttr(st.el, "data-embedkit-state", null);
  setAttr(st.el, "aria-busy", null);
}
