// The frame handle: what frame(element) returns.

import { NAMES } from "./envelope.js";
import { ACTIONS, argError, hostFilters, hostSettings } from "./actions.js";
import { act, handles, report } from "./frames.js";
import { start } from "./renewal.js";
import { show } from "./navigation.js";

export function Frame(st) {
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

// show switches the frame to another target: in place where the kit's
// settings say the two targets share a session and a URL (navigation.js),
// else as a new frame. It resolves on the new dashboard's
// dashboard-loaded.
Frame.prototype.show = function (target) {
  return show(stateOf(this), target);
};

// target: the target the frame shows (its data-embedkit-target), or null.
Object.defineProperty(Frame.prototype, "target", {
  get: function () { return stateOf(this).el.getAttribute("data-embedkit-target"); }, enumerable: true
});

export var METHODS = ["on", "off", "reload", "show", "filters", "settings"].concat(Object.keys(ACTIONS));
