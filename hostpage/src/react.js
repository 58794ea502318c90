"use client";
// @embedkit/host/react: the embedkit host page as a React component and
// hook, for React 18 and later (an optional peer dependency of the
// package). Plain JavaScript without JSX, so it needs no build step of
// its own.
//
//   import { EmbedkitFrame } from "@embedkit/host/react";
//   <EmbedkitFrame target="sales" filters={{ "sales.region": region }} locale="de-DE"
//     onDrilldown={(e) => show(e.payload.member, e.payload.value)} />
//
// The component renders one <iframe data-embedkit data-embedkit-target>
// whose src is the kit's frame endpoint for the target. The frame
// endpoint mints a session on every load, so the iframe is created, with
// its src, exactly once per mount: React's StrictMode runs effects twice
// on mount but keeps the DOM, and the effects here only subscribe to the
// frame and send actions, which are safe to repeat. A change of filters,
// locale, time zone, theme or colour scheme is sent to the live frame as
// the documented action. A change of target switches the frame (the
// handle's show()): in place, with the documented navigate action and no
// new session, where the kit's settings say the two targets share a
// session and a URL; else as a new frame (a new document, a new session)
// in the same iframe element. Unmounting releases the frame (release():
// its timers and requests stop), once its iframe has left the document.
//
// It is marked as a client component ("use client") and touches no
// browser global while it is imported or rendered on a server: the frame
// is looked up in effects, which run in the browser only.

import { createElement, forwardRef, useCallback, useEffect, useRef, useState } from "react";
import { configured, frame as frameOf, release } from "./index.js";

// The frame handle's events and the component's props that receive them.
const EVENT_PROPS = {
  "ready": "onReady",
  "view": "onView",
  "navigate": "onNavigate",
  "dashboard-loaded": "onDashboardLoaded",
  "download": "onDownload",
  "drilldown": "onDrilldown",
  "ai-query": "onAiQuery",
  "error": "onError",
  "session-renewed": "onSessionRenewed",
  "session-ended": "onSessionEnded",
  "renew-failed": "onRenewFailed",
  "load-failed": "onLoadFailed",
  "version-mismatch": "onVersionMismatch"
};

// The data-embedkit-* attributes the component sets from its props.
const ATTR_PROPS = {
  fit: "data-embedkit-fit",
  minHeight: "data-embedkit-min-height",
  maxHeight: "data-embedkit-max-height",
  renewAfter: "data-embedkit-renew-after",
  readyTimeout: "data-embedkit-ready-timeout"
};

// Props the component consumes; every other prop goes to the iframe.
const OWN_PROPS = new Set(["target", "framePrefix", "filters", "locale", "timezone", "theme",
  "colorScheme", "onEvent", "debug", "src", "children"]
  .concat(Object.values(EVENT_PROPS), Object.keys(ATTR_PROPS)));

const DEFAULT_FRAME_PREFIX = "/embed/frame/";
const TARGET = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
const PREFIX = /^\/(?!\/)[^\u0000-\u0020\u007f\\?#]*\/$/;

function describe(value) {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (value === null || value === undefined || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

function propError(prop, rule, value) {
  return new TypeError("embedkit: <EmbedkitFrame " + prop + ">: " + prop + " must be " + rule + ", got " + describe(value));
}

// configuredPrefix is the framePrefix the page is configured with, or
// null (not configured yet, or on a server).
function configuredPrefix() {
  const c = configured();
  return c ? c.framePrefix : null;
}

// frameSrc is the kit's frame endpoint for target: the frame prefix (the
// prop, else the one the page is configured with, by configure() or its
// <meta name="embedkit">, else the kit's default) and the target.
function frameSrc(target, framePrefix) {
  if (typeof target !== "string" || !TARGET.test(target) ||
      target.split("/").some((s) => s === "." || s === "..")) {
    throw propError("target", 'a target name or path such as "sales"', target);
  }
  const prefix = framePrefix === undefined ? (configuredPrefix() || DEFAULT_FRAME_PREFIX) : framePrefix;
  if (typeof prefix !== "string" || !PREFIX.test(prefix)) {
    throw propError("framePrefix", 'a same-origin path ending in "/" such as "/embed/frame/"', prefix);
  }
  return prefix + target;
}

// same reports whether two prop values carry the same settings: the
// values are plain data, so their JSON says.
function same(a, b) {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch (e) {
    return false;
  }
}

// sendFilters sends the filters that changed since applied: a new or
// changed member gets its value, a member no longer in filters is
// cleared (null). It returns what the frame now holds.
function sendFilters(handle, applied, filters) {
  const next = Object.create(null);
  if (filters !== undefined && filters !== null) {
    if (typeof filters !== "object" || Array.isArray(filters)) {
      throw propError("filters", 'an object of member to value such as {"sales.region": "EMEA"}', filters);
    }
    for (const member of Object.keys(filters)) {
      if (filters[member] === undefined) continue;
      next[member] = filters[member];
      if (!(member in applied) || !same(applied[member], filters[member])) {
        quiet(handle.setFilter(member, filters[member]));
      }
    }
  }
  for (const member of Object.keys(applied)) {
    if (!(member in next) && applied[member] !== null) quiet(handle.setFilter(member, null));
  }
  return next;
}

// quiet keeps an action's promise from being an unhandled rejection: the
// host page rejects what a frame had pending when the frame ends or
// fails, and reports that as the frame's events (session-ended,
// load-failed, renew-failed), which the on<Event> props receive. The
// component has no caller to give the rejection to.
function quiet(promise) {
  if (promise && typeof promise.then === "function") promise.then(undefined, function () {});
}

// useLiveSetting sends value through send whenever it differs from the
// last value sent to handle's frame; undefined sends nothing (the frame
// keeps what its session and the page set).
function useLiveSetting(handle, value, send) {
  const sent = useRef({ handle: null, value: undefined });
  useEffect(() => {
    if (!handle || value === undefined) return;
    const s = sent.current;
    if (s.handle === handle && same(s.value, value)) return;
    quiet(send(handle, value));
    sent.current = { handle: handle, value: value };
  });
}

/**
 * useEmbedkitFrame returns the Frame handle of the <iframe data-embedkit>
 * or <embedkit-frame> that ref points to (for example the ref of an
 * <EmbedkitFrame>), or null until it is mounted. The handle is the same
 * object for the life of the element; the component re-renders when the
 * ref comes to point to another element. The kit must be configured
 * (configure() or <meta name="embedkit">) before the element mounts. An
 * <EmbedkitFrame> releases its frame when it unmounts: the handle then
 * stops working.
 */
export function useEmbedkitFrame(ref) {
  const [handle, setHandle] = useState(null);
  useEffect(() => {
    const el = ref ? ref.current : null;
    const h = el ? frameOf(el) : null;
    // The same handle again does not render again.
    setHandle(h);
  });
  return handle;
}

// firstLoadQuery is the query of a frame's first load: the props that
// have a URL form, locale and timezone, which the kit's frame endpoint
// reads (and checks: a value it does not support is ignored), so the
// frame opens in them instead of switching once it is ready.
function firstLoadQuery(locale, timezone) {
  const q = [];
  if (typeof locale === "string" && locale !== "") q.push("locale=" + encodeURIComponent(locale));
  if (typeof timezone === "string" && timezone !== "") q.push("timezone=" + encodeURIComponent(timezone));
  return q.length ? "?" + q.join("&") : "";
}

function EmbedkitFrameRender(props, forwarded) {
  const { target, framePrefix, filters, locale, timezone, theme, colorScheme } = props;
  const path = frameSrc(target, framePrefix);
  // The iframe's src and target are set once per mount: later locale and
  // timezone changes go to the live frame as actions, and a new target is
  // a switch (show()), not a new load by React (and a new session).
  const first = useRef(null);
  if (first.current === null) first.current = { target: target, src: path + firstLoadQuery(locale, timezone) };
  const src = first.current.src;
  if (props.src !== undefined) {
    throw propError("src", "left out: the src is the kit's frame endpoint for target (framePrefix + target)", props.src);
  }
  const element = useRef(null);
  const [handle, setHandle] = useState(null);
  // The latest props, read by the one listener per frame, so a new
  // callback on every render neither resubscribes nor misses an event.
  const latest = useRef(props);
  latest.current = props;
  // The last ready event given to onReady and onEvent.
  const heard = useRef(null);

  // The frame handle of the current iframe, looked up after the iframe
  // is in the document, and the listeners on it, removed on unmount, when
  // the frame is released too.
  // StrictMode's simulated unmount removes them and its second run adds
  // them again, to the same handle: the iframe is the same. The ready
  // listener is one of its own: the host page gives a ready listener
  // added after the frame became ready the last ready event, which the
  // props get once.
  useEffect(() => {
    const el = element.current;
    if (!el) return undefined;
    const h = frameOf(el);
    setHandle(h);
    const deliver = function (ev) {
      const p = latest.current;
      const own = p[EVENT_PROPS[ev.name]];
      if (typeof own === "function") own.call(h, ev);
      if (typeof p.onEvent === "function") p.onEvent.call(h, ev);
    };
    const offReady = h.on("ready", function (ev) {
      // The same ready event again (given to the listener added after a
      // hidden <Activity> is shown again) is not news.
      if (heard.current === ev) return;
      heard.current = ev;
      deliver(ev);
    });
    const offOthers = h.on("*", function (ev) {
      if (ev.name !== "ready") deliver(ev);
    });
    return function () {
      offReady();
      offOthers();
      // A real unmount, or a new target, has removed the iframe by now:
      // release the frame, which stops its timers, aborts its requests
      // and rejects what waits on it. StrictMode's simulated unmount
      // keeps the iframe in the document, and so the frame.
      if (!el.isConnected) release(h);
    };
  }, []);

  // A new target switches the frame; the filters the component applied
  // were the old target's (show() clears them), so the filters prop is
  // applied afresh below.
  const applied = useRef({ handle: null, filters: Object.create(null) });
  useEffect(() => {
    if (!handle || handle.target === target) return;
    quiet(handle.show(target));
    applied.current = { handle: handle, filters: Object.create(null) };
  }, [handle, target]);

  // Settings: sent once the handle is known (the host page keeps them and
  // sends them again when the frame reports ready), and again on change.
  useLiveSetting(handle, locale, (h, v) => h.setLocale(v));
  useLiveSetting(handle, timezone, (h, v) => h.setTimezone(v));
  useLiveSetting(handle, theme, (h, v) => h.setTheme(v));
  useLiveSetting(handle, colorScheme, (h, v) => h.setColorScheme(v));
  useEffect(() => {
    if (!handle) return;
    const a = applied.current;
    const before = a.handle === handle ? a.filters : Object.create(null);
    applied.current = { handle: handle, filters: sendFilters(handle, before, filters) };
  });

  // One ref callback per forwarded ref: a new function on every render
  // would detach and attach the ref at every commit.
  const ref = useCallback((el) => {
    element.current = el;
    if (typeof forwarded === "function") forwarded(el);
    else if (forwarded) forwarded.current = el;
  }, [forwarded]);

  const attrs = {};
  for (const key of Object.keys(props)) {
    if (!OWN_PROPS.has(key)) attrs[key] = props[key];
  }
  for (const key of Object.keys(ATTR_PROPS)) {
    if (props[key] !== undefined && props[key] !== null) attrs[ATTR_PROPS[key]] = String(props[key]);
  }
  if (props.debug) attrs["data-embedkit-debug"] = "";
  attrs.src = src;
  attrs["data-embedkit"] = "";
  // The first target: show() keeps the attribute to the one shown.
  attrs["data-embedkit-target"] = first.current.target;
  if (attrs.title === undefined) attrs.title = "Analytics";
  if (attrs.referrerPolicy === undefined) attrs.referrerPolicy = "no-referrer";
  if (attrs.allow === undefined) attrs.allow = "fullscreen";
  attrs.ref = ref;
  return createElement("iframe", attrs);
}

/**
 * EmbedkitFrame renders an embedded dashboard (or chat, or app) of the
 * kit's target `target`: an <iframe data-embedkit data-embedkit-target>
 * whose src is the kit's frame endpoint, created once per mount. The
 * first load carries locale and timezone in its URL (the frame
 * endpoint's query), so the frame opens in them. Its props filters,
 * locale, timezone, theme and colorScheme are sent to the frame as the
 * documented actions, at mount and whenever they change;
 * on<Event> props (onReady, onDrilldown, ...) and onEvent receive the
 * frame's events. Other props (title, className, style, loading, id,
 * aria-*, ...) go to the iframe, and its ref is the iframe element.
 * A new target switches the frame (show()): in place where the kit's
 * settings allow it, else a new frame in the same iframe element.
 * Unmounting releases the frame once its iframe has left the document.
 */
export const EmbedkitFrame = forwardRef(EmbedkitFrameRender);
EmbedkitFrame.displayName = "EmbedkitFrame";
