// Cross-tab logout: when the viewer logs out in one tab, every other tab
// of the same origin in the browser ends its frames at once, instead of
// leaving dashboards on screen until the platform or a renewal notices
// (the platform's revoke does not tear an open embed down).
//
// What sets it off, in the tab where it happens:
//   - a form marked data-embedkit-logout is submitted (and its submission
//     is not cancelled by the page);
//   - the page calls signedOut() (a single-page app that logs out by
//     fetch);
//   - a renewal of a frame of this tab learns the viewer is signed out:
//     the kit's frame or session endpoint answered 401 (renewal.js calls
//     renewalSignedOut). The login is the browser's shared cookie, so it
//     is signed out for every tab.
// The tab then ends its own frames and tells the others on a
// BroadcastChannel named CHANNEL and, as a fallback for browsers without
// one, through a localStorage write under STORAGE_KEY (the storage event
// reaches the other tabs; the key is removed at once).
//
// Both carriers are same-origin by the browser's rules: a page of another
// origin (another site, another port) has its own channel and storage and
// cannot reach these. A message is acted on only when it has exactly the
// shape {embedkit: "signed-out", at: <ms since the epoch>}: anything else is
// ignored. Nothing secret travels: no session id, no subject, no URL.
//
// It fails closed: the broadcast goes out when logout starts, so a logout
// POST that then fails has still ended the frames of every tab; the viewer,
// still signed in, reloads the page to see them again.

import { emitKit, frameError, quiesce, scan, setState, settleFailure } from "./frames.js";

/** CHANNEL is the BroadcastChannel name the host script uses. */
export var CHANNEL = "embedkit";
/** STORAGE_KEY is the localStorage key of the storage-event fallback. */
export var STORAGE_KEY = "embedkit:signed-out";
/** LOGOUT_ATTR marks a logout form whose submission signs every tab out. */
export var LOGOUT_ATTR = "data-embedkit-logout";

var KIND = "signed-out";

var channel = null;
var onSignedOut = null;

// signedOutMessage reports whether data is a cross-tab logout message:
// a plain object with exactly the own keys embedkit ("signed-out") and at
// (a non-negative integer of milliseconds). Anything else, including
// extra keys, is not one.
export function signedOutMessage(data) {
  // A plain object of any realm: the channel's structured clone makes it
  // in this one, the storage fallback parses JSON.
  if (!data || typeof data !== "object" || Object.prototype.toString.call(data) !== "[object Object]") return false;
  var keys = Object.keys(data);
  if (keys.length !== 2 || keys.indexOf("embedkit") < 0 || keys.indexOf("at") < 0) return false;
  return data.embedkit === KIND && typeof data.at === "number" && isFinite(data.at) &&
    data.at >= 0 && Math.floor(data.at) === data.at;
}

function announcement() {
  return { embedkit: KIND, at: Date.now() };
}

// announce tells the other tabs of this origin that the viewer signed out.
function announce() {
  var msg = announcement();
  try {
    if (channel) {
      channel.postMessage(msg);
    } else if (typeof BroadcastChannel === "function") {
      // A page that manages no frames (never configured) still tells the
      // others.
      var once = new BroadcastChannel(CHANNEL);
      once.postMessage(msg);
      once.close();
    }
  } catch (e) {
    // No usable channel: the storage fallback still carries it.
  }
  try {
    var store = window.localStorage;
    if (store) {
      // The storage event fires in other tabs only when the value
      // changes: at makes each announcement new. Removed at once, so no
      // later page reads it.
      store.setItem(STORAGE_KEY, JSON.stringify(msg));
      store.removeItem(STORAGE_KEY);
    }
  } catch (e) {
    // Storage disabled or full: the channel is the only carrier.
  }
}

// signOutEverywhere ends this tab's frames and tells the other tabs.
function signOutEverywhere() {
  announce();
  if (onSignedOut) onSignedOut();
}

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
  if (typeof window !== "undefined" && typeof document !== "undefined") signOutEverywhere();
}

// endSignedOut ends every frame of the page because the viewer logged out,
// in this tab or another of the origin: nothing is left pending (renewal,
// retry, first-load and probe timers and requests), the frame's page is
// replaced by about:blank, its state is ended, session-ended fires with
// {reason: "logout"} and what waits on it is rejected.
export function endSignedOut() {
  scan().forEach(function (st) {
    quiesce(st, "session-ended", "the viewer logged out");
    blank(st.el);
    if (st.state === "ended") return; // told once already
    st.ended = true;
    setState(st, "ended");
    emitKit(st, "session-ended", { reason: "logout" });
    settleFailure(st, frameError("session-ended", undefined, "the viewer logged out"));
  });
}

function onChannel(event) {
  if (signedOutMessage(event && event.data) && onSignedOut) onSignedOut();
}

function onStorage(event) {
  // Another origin's storage never fires here; a removal (newValue
  // null) is not an announcement.
  if (!event || event.key !== STORAGE_KEY || typeof event.newValue !== "string") return;
  var data;
  try {
    data = JSON.parse(event.newValue);
  } catch (e) {
    return;
  }
  if (signedOutMessage(data) && onSignedOut) onSignedOut();
}

function onSubmit(event) {
  var form = event && event.target;
  if (!form || form.nodeType !== 1 || form.localName !== "form" || !form.hasAttribute(LOGOUT_ATTR)) return;
  // A page that cancels the submission logs out another way, or not at
  // all; it calls signedOut() when it does.
  if (event.defaultPrevented) return;
  announce();
  // This tab's frames end in a task of their own: a session-ended
  // listener that changes the page (removes the form, say) while the
  // submit event is still being dispatched would cancel the logout.
  setTimeout(function () {
    if (onSignedOut) onSignedOut();
  }, 0);
}

/**
 * renewalSignedOut is called once a renewal of one of this tab's frames
 * has ended because the kit's frame or session endpoint answered 401 (or
 * redirected to the login page): the browser's login, which every tab
 * shares, is gone, so the tab's other frames and every other tab end too.
 * A first load's 401 is left to its frame: its src may not be the kit's.
 */
export function renewalSignedOut() {
  signOutEverywhere();
}

// blank replaces the page of a frame that ended at logout with
// about:blank, so no dashboard data stays on screen. It navigates the
// frame's window (a parent may navigate its child of any origin) and
// leaves the src attribute as it is, so reload() can load the frame
// through its endpoint again once the viewer signs back in; setting src
// is the fallback.
export function blank(el) {
  var win = el.contentWindow;
  try {
    if (win) {
      win.location.replace("about:blank");
      return;
    }
  } catch (e) {
    // fall through
  }
  if (el.getAttribute("src") !== "about:blank") el.setAttribute("src", "about:blank");
}

// listen starts cross-tab logout for this page, once (page start): the
// page's frames end when the viewer signs out here or in another tab of
// the origin.
export function listen() {
  if (onSignedOut) return;
  onSignedOut = endSignedOut;
  if (typeof BroadcastChannel === "function") {
    try {
      channel = new BroadcastChannel(CHANNEL);
      channel.onmessage = onChannel;
    } catch (e) {
      channel = null;
    }
  }
  window.addEventListener("storage", onStorage);
  // On window, in the bubbling phase: the page's own submit handlers
  // have run, so a cancelled submission is seen as one.
  window.addEventListener("submit", onSubmit);
}
