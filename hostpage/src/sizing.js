// Sizing: data-embedkit-fit, -min-height and -max-height. The platform
// sends no content height.

import { registry } from "./frames.js";

var DEFAULT_MIN_HEIGHT = 320;

function pixels(value) {
  if (value === null || !/^\s*\d+(?:\.\d+)?\s*(?:px)?\s*$/.test(value)) return null;
  return parseFloat(value);
}

export function size(el) {
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

export function onResize() {
  if (sizing) return;
  var frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame : function (fn) { return setTimeout(fn, 16); };
  sizing = frame(function () {
    sizing = 0;
    registry.managed.forEach(function (st) {
      if (st.el.getAttribute("data-embedkit-fit") === "viewport") size(st.el);
    });
  });
}

export var SIZE_ATTRS = ["data-embedkit-fit", "data-embedkit-min-height", "data-embedkit-max-height"];
