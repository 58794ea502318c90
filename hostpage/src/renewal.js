// Session renewal: at most one renewal per frame at a time, its
// attempts, retries with backoff, and how it ends.

import { config } from "./settings.js";
import { REQUEST_TIMEOUT_MS, absolute, classify, headInit, header, timedFetch } from "./endpoints.js";
import { READY_TIMEOUT_MS, checkKitVersion, connected, emitKit, frameError, freshReady, rejectReloads, scan, setState, settleFailure } from "./frames.js";
import { renewalSignedOut } from "./tabs.js";

// One hour of margin before the embedded page stops trusting its token.
var RENEW_AFTER_MS = 22 * 60 * 60 * 1000;

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

function renewAfter(el) {
  var v = parseInt(el.getAttribute("data-embedkit-renew-after"), 10);
  // A floor of minutes: "22", meant as hours, must not re-mint every
  // second for ever.
  return isNaN(v) ? RENEW_AFTER_MS : Math.max(MIN_RENEW_AFTER_MS, v);
}

export function armRenewal(st) {
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
export function start(st, reason, waiter) {
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

// viaSessionEndpoint renews a frame whose src is the platform's own URL
// (a single-page app set it) through the kit's JSON endpoint.
function viaSessionEndpoint(st, r) {
  var target = st.el.getAttribute("data-embedkit-target");
  if (!target) {
    giveUp(st, undefined, "the frame has no data-embedkit-target to renew");
    return;
  }
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
      if (live()) fail(st, "hard", res.status, "the session endpoint answered no usable URL");
    };
    Promise.resolve().then(function () { return res.json(); }).then(function (body) {
      if (!live()) return;
      // The answer names a session: it goes into iframe.src and nowhere
      // else, and only when it is the platform's.
      var u = body && typeof body.url === "string" ? absolute(body.url) : null;
      if (!u || u.origin !== config.origin) {
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

export function finish(st, r) {
  clearTimeout(r.timer);
  clearTimeout(r.readyTimer);
  if (r.cancel) r.cancel();
  r.timer = r.readyTimer = 0;
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

export function onVisible() {
  if (document.visibilityState !== "visible") return;
  scan().forEach(function (st) {
    checkDue(st);
    runSoon(st);
  });
}
