// Switching a frame to another target: in place, with the documented
// cube:action:navigate, when that is exactly as safe and as correct as a
// new frame; else as a new frame (its src the kit's frame endpoint for the
// new target, which mints), as before.
//
// In place needs all of: the frame is ready, not renewing, and shows a
// dashboard; both targets are in the kit's settings (HostSettings.Targets,
// computed by the server) with equal grant tags (the kit would mint both
// with the same generate-session request: a session grants the
// deployment, not one dashboard) and equal pinned tags (the URL-only
// parameters the platform reads once: chrome switches, tg_ and ms_
// presets, locale, time zone). The script never computes a tag; a target
// the settings do not list (RouteScoped, a security context of its own,
// an app or chat, an unregistered dashboard) always gets a new frame.
//
// The move: cube:action:navigate {path}; once the embed reports it
// (cube:event:navigate or view with that path), the old target's preset
// filters and the filters set through the kit on this frame are cleared
// (set-filter with {"value": null}), the new target's presets are sent,
// and the actions the host made meanwhile follow, in order. show()
// resolves on the new dashboard's dashboard-loaded. ready does not fire
// again (the document is the same). An error event before that, or no
// dashboard-loaded within the frame's ready timeout, ends the move as a
// new frame, once. The frame's session stays the one it has; renewal,
// in place or by reload, now mints for the target it shows.

import { config, log } from "./settings.js";
import { argError, describe } from "./actions.js";
import { post } from "./envelope.js";
import { deferred, deliver, frameError, freshReady, armFirstLoad, page, readyTimeout, rejectReloads, setAttr, setState } from "./frames.js";
import { finish } from "./renewal.js";

export var TARGET = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;

export function validTarget(target) {
  return typeof target === "string" && target.length <= 256 && TARGET.test(target) &&
    !target.split("/").some(function (s) { return s === "." || s === ".."; });
}

// filterMember is the member of a set-filter parameter f_<member>=<json>.
function filterMember(param) {
  try {
    return decodeURIComponent(param.slice(2, param.indexOf("=")));
  } catch (e) {
    return null;
  }
}

// clearParameter clears member: {"value": null}, as setFilter(member, null).
function clearParameter(member) {
  return "f_" + encodeURIComponent(member) + "=" + encodeURIComponent(JSON.stringify({ value: null }));
}

// publicIdOf is the public id of the dashboard target shows, when known:
// from the kit's settings, or the frame path dashboard/{publicId}.
function publicIdOf(target) {
  var t = config.targets[target];
  if (t) return t.path.slice(t.path.lastIndexOf("/") + 1);
  var m = /^dashboard\/([^/]+)$/.exec(target);
  return m ? m[1] : null;
}

// inPlace reports whether st's frame may move from target from to target
// to without a new session or page load.
export function inPlace(st, from, to) {
  var a = from ? config.targets[from] : null;
  var b = config.targets[to];
  return Boolean(a && b && st.state === "ready" && !st.remint && (st.surface === null || st.surface === "dashboard") &&
    a.grant === b.grant && a.pinned === b.pinned);
}

// show moves st's frame to target and returns a promise of the new
// dashboard's dashboard-loaded event.
export function show(st, target) {
  if (!validTarget(target)) {
    throw argError("show(target)", "target", 'a target name or path such as "sales"', target);
  }
  var d = deferred();
  if (st.state === "ended" || st.state === "failed") {
    d.reject(st.failure || frameError(st.state, undefined, "the frame has " + st.state));
    return d.promise;
  }
  var from = st.el.getAttribute("data-embedkit-target");
  // The same target again joins the switch under way.
  if (st.move && st.move.to === target) return st.move.d.promise;
  if (st.move) supersede(st);
  if (from === target && st.state === "ready") {
    d.resolve(st.loaded);
    return d.promise;
  }
  if (from === target && (st.state === "loading" || st.state === "renewing")) {
    st.waits.push({ kind: "show", publicId: publicIdOf(target), d: d });
    return d.promise;
  }
  if (inPlace(st, from, target)) {
    moveInPlace(st, target, d);
  } else {
    newFrame(st, target, d);
  }
  return d.promise;
}

// supersede ends a move in flight for a newer one: its promise rejects
// (reason "superseded"); what the host queued meanwhile goes to the newer
// move.
function supersede(st) {
  var m = st.move;
  clearTimeout(m.timer);
  st.move = null;
  // Filters the host set for the target never shown are dropped with it.
  st.moveQueue = m.queue.filter(function (q) {
    if (!q.a.key || q.a.key.indexOf("filter:") !== 0) return true;
    q.d.resolve();
    return false;
  });
  m.d.reject(frameError("superseded", undefined, "the frame was switched to another target before it showed " + describe(m.to)));
}

// hostFilterMembers takes the filters set through the kit on st's frame
// out of its settings (they belonged to the target it showed) and returns
// their members; page-wide filters (embedkit.setFilter) stay.
function hostFilterMembers(st) {
  var members = [];
  st.settings.order = st.settings.order.filter(function (key) {
    if (key.indexOf("filter:") !== 0) return true;
    var v = st.settings.values[key];
    var pv = page.values[key];
    if (pv && pv.payload === v.payload) return true;
    if (v.value !== null) members.push(key.slice(7));
    delete st.settings.values[key];
    return false;
  });
  return members;
}

function moveInPlace(st, to, d) {
  var info = config.targets[to];
  var clear = hostFilterMembers(st).concat(presetsShown(st));
  var m = st.move = {
    to: to, path: info.path, publicId: publicIdOf(to), d: d,
    moved: false, clear: clear, queue: st.moveQueue || [], timer: 0
  };
  st.moveQueue = null;
  setAttr(st.el, "data-embedkit-target", to);
  // A renewal by reload loads the target the frame shows now.
  st.moveSrc = config.framePrefix + to;
  if (!post(st, "cube:action:navigate", { path: info.path })) {
    moveFailed(st, "the frame has no window to post to");
    return;
  }
  m.timer = setTimeout(function () {
    if (st.move === m) moveFailed(st, "the embed did not show " + describe(to) + " within " + readyTimeout(st.el) / 1000 + " s");
  }, readyTimeout(st.el));
}

// presetsShown returns the members of the preset filters of the target
// st's frame shows.
function presetsShown(st) {
  if (st.presets) return st.presets;
  var t = config.targets[st.el.getAttribute("data-embedkit-target") || ""];
  return t ? t.filters.map(filterMember).filter(function (x) { return x !== null; }) : [];
}

// moving reports whether an action for st's frame waits for its move.
export function moving(st) {
  return Boolean(st.move && !st.move.moved);
}

// queueForMove keeps an action until the embed reports the move.
export function queueForMove(st, a, d) {
  st.move.queue.push({ a: a, d: d });
}

// onMoveEvent follows a move in flight through the frame's events. It
// reports whether the event ended the move as a failure (the caller then
// does not treat it as the frame's own error).
export function onMoveEvent(st, name, payload, ev) {
  var m = st.move;
  if (!m) return false;
  if (name === "error") {
    moveFailed(st, "the embed reported an error while switching to " + describe(m.to));
    return true;
  }
  if (!m.moved && (name === "navigate" || name === "view") && typeof payload.path === "string" &&
      payload.path.replace(/[?#].*$/, "") === m.path) {
    moved(st, m);
  }
  if (m.moved && name === "dashboard-loaded" && (typeof payload.publicId !== "string" || payload.publicId === m.publicId)) {
    clearTimeout(m.timer);
    st.move = null;
    st.loaded = ev;
    m.d.resolve(ev);
  }
  return false;
}

// moved: the embed shows the new dashboard. Clear what belonged to the
// old target, preset the new one's filters, then send what the host asked
// meanwhile, in order.
function moved(st, m) {
  m.moved = true;
  var presets = config.targets[m.to].filters;
  var presetMembers = presets.map(filterMember).filter(function (x) { return x !== null; });
  var seen = Object.create(null);
  m.clear.forEach(function (member) {
    if (seen[member] || presetMembers.indexOf(member) >= 0) return;
    seen[member] = true;
    post(st, "cube:action:set-filter", { filterUrlParameter: clearParameter(member) });
  });
  presets.forEach(function (p) { post(st, "cube:action:set-filter", { filterUrlParameter: p }); });
  st.presets = presetMembers;
  m.queue.splice(0).forEach(function (q) { deliver(st, q.a, q.d); });
}

// moveFailed ends a failed move as a new frame of its target, once: the
// new frame's own failures are the frame's, as for any load.
function moveFailed(st, why) {
  var m = st.move;
  clearTimeout(m.timer);
  st.move = null;
  log("warn", "frame " + describe(m.to) + " could not be switched in place (" + why + "); loading it as a new frame");
  // What the host queued for the move goes to the new frame once ready.
  m.queue.forEach(function (q) { st.queue.push(q); });
  newFrame(st, m.to, m.d, true);
}

// newFrame loads target into st's iframe as a new document through the
// kit's frame endpoint (which mints): a new session, a new ready. The
// filters set through the kit for the old target are dropped; the new
// target's presets come with its URL. A failed move dropped them already
// (filtersDropped): what the host set since is for the new target.
function newFrame(st, to, d, filtersDropped) {
  if (!filtersDropped) hostFilterMembers(st);
  st.presets = null;
  if (st.moveQueue) {
    st.moveQueue.forEach(function (q) { st.queue.push(q); });
    st.moveQueue = null;
  }
  var r = st.remint;
  if (r) {
    finish(st, r);
    rejectReloads(r, "superseded", undefined, "the frame was switched to another target");
  }
  clearTimeout(st.firstTimer);
  st.firstTimer = 0;
  if (st.probe) {
    st.probe();
    st.probe = null;
  }
  st.failure = null;
  st.view = null;
  st.surface = null;
  st.loaded = null;
  st.moveSrc = null;
  setState(st, "loading");
  freshReady(st);
  // A switch whose new frame had not loaded yet is superseded.
  st.waits = st.waits.filter(function (w) {
    if (w.kind !== "show") return true;
    w.d.reject(frameError("superseded", undefined, "the frame was switched to another target before it showed the last"));
    return false;
  });
  st.waits.push({ kind: "show", publicId: publicIdOf(to), d: d });
  setAttr(st.el, "data-embedkit-target", to);
  st.exchangeFloor = Date.now();
  st.el.setAttribute("src", config.framePrefix + to);
  armFirstLoad(st);
}
