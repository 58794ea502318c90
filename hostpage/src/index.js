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
// Session lifetime: the embedded page trusts its token for about 23 h
// after the exchange. Where the platform renews sessions in place (it
// sends cube:event:session-expiring and -expired), the kit mints a new
// session through its JSON endpoint and posts cube:action:set-session:
// the frame keeps its document and the settings made through the kit.
// Where it does not, the kit loads the frame again through its frame
// endpoint, which mints on every load: 23 h minus 5 min after the frame's
// load started, the earliest its session can have been exchanged
// (data-embedkit-renew-after="<ms>" overrides). Also after a fatal error
// event that a new session can fix, and on reload(). See renewal.js.
//
// Switching targets: frame.show(target), a new target on <embedkit-frame>
// or the React component, moves the frame in place with
// cube:action:navigate when the kit's settings (targets: grant and pinned
// tags computed by the server) say both targets mint alike and share the
// URL-only parameters; else it loads a new frame. See navigation.js.
//
// Sizing: data-embedkit-fit="container" fills the parent, "viewport" the
// rest of the window; data-embedkit-min-height (default 320) and
// data-embedkit-max-height clamp it. The platform sends no content height.
//
// This file is the package's public surface; the modules beside it hold
// one concern each: envelope.js (the postMessage envelope and the message
// checks), settings.js (the page's settings and log), actions.js
// (the actions and their argument rules), endpoints.js (requests to the
// kit's endpoints), frames.js (frame state and events), renewal.js
// (session renewal), handle.js (the frame handle), element.js
// (<embedkit-frame>), navigation.js (switching a frame to another
// target: in place or as a new frame), sizing.js and page.js (page setup), tabs.js
// (cross-tab logout).

import { version } from "./version.js";
import { config } from "./settings.js";
import { argError, ACTIONS } from "./actions.js";
import { registry, states, handles, page, noop, remember, manage, scan, act, releaseFrame } from "./frames.js";
import { build, hosts } from "./element.js";
import { browser, ensure, fromMeta } from "./page.js";

export { version };
export { configure } from "./page.js";
// Cross-tab logout: a single-page app that logs out by fetch calls it.
export { signedOut } from "./tabs.js";

/**
 * configured returns the settings the page's frames are managed with
 * (those configure() was given, or the page's <meta name="embedkit">), as
 * a frozen copy {platformOrigin, sessionURL, framePrefix, version}, or
 * null before either. It never throws, and touches nothing without a DOM.
 */
export function configured() {
  try {
    if (config.origin === null && !fromMeta()) return null;
  } catch (e) {
    return null; // a malformed tag: the calls that need settings say so
  }
  return Object.freeze({ platformOrigin: config.origin, sessionURL: config.sessionURL, framePrefix: config.framePrefix, version: config.kitVersion });
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
  releaseFrame(st);
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
  registry.debugAll = on;
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
