// Session renewal: at most one renewal per frame at a time, its
// attempts, retries with backoff, and how it ends.
//
// In place, where the platform renews sessions in place: on
// cube:event:session-expiring or -expired (or the tab becoming visible
// while the token is near its end), the kit mints a new session through
// its JSON endpoint and posts cube:action:set-session {sessionId} to the
// frame, which keeps its document, its state and the settings made
// through the kit. No event confirms set-session: the renewal counts as
// done SETTLE_MS after the post, and a cube:event:error from the frame
// within that window means the embed refused the new session, so the kit
// loads the frame again instead, once.
//
// By loading the frame again, through its frame endpoint (which mints on
// every load), where the platform predates those messages: the fallback
// timer, after a fatal error event that a new session can fix, and on
// reload().

import { config } from "./settings.js";
import { REQUEST_TIMEOUT_MS, absolute, classify, headInit, header, timedFetch } from "./endpoints.js";
import { post } from "./envelope.js";
import { READY_TIMEOUT_MS, checkKitVersion, connected, emitKit, frameError, freshReady, registry, rejectReloads, scan, setState, settleFailure } from "./frames.js";
import { renewalSignedOut } from "./tabs.js";

// How long the embedded page trusts its token after the exchange (about
// 23 h, an hour less than the token's signed 24 h).
var TRUST_MS = 23 * 60 * 60 * 1000;
// The fallback renewal comes this long before the trust can end, counted
// from the earliest the exchange can have happened: late enough that a
// platform that renews in place sends session-expiring first, early
// enough that the token is still trusted.
var FALLBACK_MARGIN_MS = 5 * 60 * 1000;
var RENEW_AFTER_MS = TRUST_MS - FALLBACK_MARGIN_MS;
// The tab becoming visible renews in place when the token has less than
// this left.
var NEAR_END_MS = 15 * 60 * 1000;
// No confirming event exists: an in-place renewal counts as done this
// long after set-session is posted, unless the frame reports an error
// first.
var SETTLE_MS = 5000;
// A session event this soon after a renewal ended is about the old
// token (the events are best-effort and may arrive late): it is ignored.
var RECENT_MS = 60000;
// The longest session id the kit passes on.
var MAX_SESSION_ID = 1024;

// data-embedkit-renew-after's floor.
var MIN_RENEW_AFTER_MS = 5 * 60 * 1000;
var BACKOFF_FIRST_MS = 1000;
var BACKOFF_MAX_MS = 60000;

// No renewal attempt follows another sooner than this, whatever asks.
var MIN_ATTEMPT_GAP_MS = 1000;
var MAX_FAILURES = 5;

// A frame that fails again this soon after its renewal counts as a failed
// attempt of that renewal, so a frame that keeps failing backs off and
// gives up instead of re-minting in a loop.
var STABLE_MS = 30000;

// renewAfter is when the fallback renewal comes, in ms after the
// earliest exchange (data-embedkit-renew-after overrides).
function renewAfter(el) {
  var v = parseInt(el.getAttribute("data-embedkit-renew-after"), 10);
  // A floor of minutes: "22", meant as hours, must not re-mint every
  // second for ever.
  return isNaN(v) ? RENEW_AFTER_MS : Math.max(MIN_RENEW_AFTER_MS, v);
}

// armRenewal sets the fallback timer: renewAfter after the earliest the
// frame's token can have been exchanged (st.exchangeFloor), not after
// ready, so it comes before the embedded page stops trusting the token.
export function armRenewal(st) {
  clearTimeout(st.renewTimer);
  st.renewDue = st.exchangeFloor + renewAfter(st.el);
  st.renewTimer = setTimeout(function () {
    st.renewTimer = 0;
    checkDue(st);
  }, Math.max(0, st.renewDue - Date.now()));
}

// checkDue starts the fallback renewal once it is due (in place where the
// platform has shown it renews in place, else by loading the frame
// again); timers sleep in background tabs, so visibilitychange calls it
// too.
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
  if (connected(st.el)) start(st, "expiring", null, registry.renewsInPlace && st.state === "ready");
}

function backoff(failures) {
  var base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * Math.pow(2, failures - 1));
  // Jitter spreads the retries of tabs that lost the network together;
  // never below the first step, so never a tight loop.
  return Math.max(BACKOFF_FIRST_MS, Math.round(base * (1 - 0.2 * Math.random())));
}

// start begins a renewal of st's frame unless one is under way (at most
// one per frame: every trigger joins the renewal in flight), adding
// waiter (a reload() promise's settlers). inPlace renews with
// set-session; otherwise the frame loads again.
export function start(st, reason, waiter, inPlace) {
  var r = st.remint;
  if (!r) {
    clearTimeout(st.renewTimer);
    st.renewTimer = 0;
    st.renewDue = 0;
    st.ended = false;
    r = st.remint = {
      reason: reason, inPlace: Boolean(inPlace), phase: "wait", attempt: 0, failures: 0, hard: 0,
      due: 0, timer: 0, readyTimer: 0, settleTimer: 0, cancel: null, waiters: []
    };
    if (waiter) r.waiters.push(waiter);
    if (r.inPlace) {
      // The frame keeps its document: its state stays ready and actions
      // keep flowing.
      attempt(st);
      return;
    }
    toReload(st);
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

// toReload turns st's frame to the renewal by loading it again: state
// renewing, a new pending ready.
function toReload(st) {
  clearTimeout(st.firstTimer);
  st.firstTimer = 0;
  st.failure = null;
  setState(st, "renewing");
  freshReady(st);
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
  if (r.inPlace) {
    var target = sessionTarget(st);
    if (target) {
      renewInPlace(st, r, target);
      return;
    }
    // Nothing names the frame's target to the JSON endpoint: load the
    // frame again instead.
    r.inPlace = false;
    toReload(st);
  }
  // A frame that moved in place reloads the target it shows now.
  var src = st.moveSrc || st.el.getAttribute("src");
  var url = src ? absolute(src) : null;
  if (url && url.origin === location.origin) {
    probe(st, r, src, url.href);
  } else {
    viaSessionEndpoint(st, r);
  }
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

// sessionTarget names st's frame to the JSON endpoint: its
// data-embedkit-target, else its frame path (its src's path under the
// kit's frame endpoint), else "".
function sessionTarget(st) {
  var target = st.el.getAttribute("data-embedkit-target");
  if (target) return target;
  var src = st.el.getAttribute("src");
  var u = src ? absolute(src) : null;
  if (!u || u.origin !== location.origin || u.pathname.indexOf(config.framePrefix) !== 0) return "";
  return u.pathname.slice(config.framePrefix.length);
}

// sessionRequest asks the kit's JSON endpoint for a new session for
// target and hands its answer's body to use, or fails the attempt.
function sessionRequest(st, r, target, use) {
  var endpoint = st.el.getAttribute("data-embedkit-session-url") || config.sessionURL;
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
      if (live()) fail(st, "hard", res.status, "the session endpoint answered no usable session");
    };
    Promise.resolve().then(function () { return res.json(); }).then(function (body) {
      if (!live()) return;
      if (!use(body)) unusable();
    }, unusable);
  });
}

// viaSessionEndpoint reloads a frame whose src is the platform's own URL
// (a single-page app set it) through the kit's JSON endpoint.
function viaSessionEndpoint(st, r) {
  var target = st.el.getAttribute("data-embedkit-target");
  if (!target) {
    giveUp(st, undefined, "the frame has no data-embedkit-target to renew");
    return;
  }
  sessionRequest(st, r, target, function (body) {
    // The answer names a session: its URL goes into iframe.src and
    // nowhere else, and only when it is the platform's.
    var u = body && typeof body.url === "string" ? absolute(body.url) : null;
    if (!u || u.origin !== config.origin) return false;
    load(st, r, function () { st.el.setAttribute("src", u.href); });
    return true;
  });
}

// renewInPlace gets a new session from the JSON endpoint and posts its id
// to the frame (cube:action:set-session, to the platform origin only, in
// the envelope); the id goes nowhere else.
function renewInPlace(st, r, target) {
  sessionRequest(st, r, target, function (body) {
    var id = body ? body.sessionId : null;
    if (typeof id !== "string" || id === "" || id.length > MAX_SESSION_ID || /[\u0000-\u001f\u007f]/.test(id)) return false;
    if (!post(st, "cube:action:set-session", { sessionId: id })) {
      fail(st, "hard", undefined, "the frame has no window to post to");
      return true;
    }
    // The new id is exchanged after this post, never before.
    st.exchangeFloor = Date.now();
    r.phase = "settle";
    r.settleTimer = setTimeout(function () {
      r.settleTimer = 0;
      if (st.remint === r && r.phase === "settle") renewedInPlace(st, r);
    }, SETTLE_MS);
    return true;
  });
}

// renewedInPlace ends an in-place renewal whose settle window passed
// without an error: session-renewed {reason, inPlace: true}; reload()
// resolves with the frame's ready event (its document is the same).
function renewedInPlace(st, r) {
  finish(st, r);
  st.lastRenewal = { at: Date.now(), attempt: r.attempt, failures: r.failures, hard: r.hard };
  emitKit(st, "session-renewed", { reason: r.reason, inPlace: true });
  r.waiters.forEach(function (w) { w.resolve(st.readyEv); });
  armRenewal(st);
}

// refusedInPlace handles a cube:event:error within the settle window
// after set-session: the embed refused the new session, so the renewal
// loads the frame again, once (it does not post set-session again).
export function refusedInPlace(st) {
  var r = st.remint;
  clearTimeout(r.settleTimer);
  r.settleTimer = 0;
  r.inPlace = false;
  r.failures++;
  r.hard++;
  r.phase = "wait";
  toReload(st);
  var delay = Math.max(0, st.lastAttemptAt + MIN_ATTEMPT_GAP_MS - Date.now());
  emitKit(st, "renew-failed", failure(undefined, "the embed reported an error after set-session; loading the frame again",
    r.attempt, delay));
  attempt(st); // which waits out the gap itself
}

// onSessionEvent handles cube:event:session-expiring and -expired: the
// platform renews in place, so the frame's renewal starts in place, or
// the one in flight takes it over (one mint for both events, the
// visibility trigger and reload()). Nothing of their payloads is read.
export function onSessionEvent(st, name) {
  registry.renewsInPlace = true;
  if (st.ended) return; // signed out: only reload() tries again
  if (st.remint) {
    start(st, name, null, true);
    return;
  }
  var last = st.lastRenewal;
  if (st.state !== "ready" || (last && Date.now() - last.at < RECENT_MS)) return;
  start(st, name === "session-expired" ? "expired" : "expiring", null, true);
}

function load(st, r, navigate) {
  r.phase = "load";
  r.readyTimer = setTimeout(function () {
    r.readyTimer = 0;
    if (st.remint !== r || r.phase !== "load") return;
    var offline = typeof navigator !== "undefined" && navigator.onLine === false;
    fail(st, offline ? "network" : "hard", undefined, "the embed was not ready within " + READY_TIMEOUT_MS / 1000 + " s");
  }, READY_TIMEOUT_MS);
  // The new document exchanges its session after this, never before.
  st.exchangeFloor = Date.now();
  navigate();
}

export function finish(st, r) {
  clearTimeout(r.timer);
  clearTimeout(r.readyTimer);
  clearTimeout(r.settleTimer);
  if (r.cancel) r.cancel();
  r.timer = r.readyTimer = r.settleTimer = 0;
  r.cancel = null;
  if (st.remint === r) st.remint = null;
}

// fail reports a failed attempt and schedules the next; network errors
// are retried for as long as they last, other failures five times.
export function fail(st, kind, status, message, minDelay) {
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

export function giveUp(st, status, message) {
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
  renewalSignedOut(); // every tab is signed out (tabs.js)
}

export function onOnline() {
  scan().forEach(runSoon);
}

// onVisible: timers sleep in background tabs, so a tab that becomes
// visible checks each frame: one whose token is near its end renews in
// place where the platform has shown it renews in place; the fallback
// renewal runs when due; a waiting retry runs now.
export function onVisible() {
  if (document.visibilityState !== "visible") return;
  scan().forEach(function (st) {
    if (registry.renewsInPlace && !st.ended && (st.remint || st.state === "ready") &&
        Date.now() >= st.exchangeFloor + TRUST_MS - NEAR_END_MS) {
      var last = st.lastRenewal;
      if (st.remint || !last || Date.now() - last.at >= RECENT_MS) start(st, "expiring", null, true);
    } else {
      checkDue(st);
    }
    runSoon(st);
  });
}
