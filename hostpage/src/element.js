// <embedkit-frame>: a custom element that creates its one iframe from
// its attributes and manages it.

import { config } from "./settings.js";
import { argError, describe } from "./actions.js";
import { absolute } from "./endpoints.js";
import { manage, noop, report, scan, setAttr, states } from "./frames.js";
import { TARGET, show } from "./navigation.js";
import { METHODS } from "./handle.js";
import { size } from "./sizing.js";

export var hosts = new WeakMap(); // <embedkit-frame> -> its iframe

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
      describe(config.framePrefix), src));
    return null;
  };
  if (!/^\/(?!\/)[^\u0000-\u0020\u007f\\#]*$/.test(src)) return bad();
  var u = absolute(src);
  if (!u || u.origin !== location.origin || u.pathname.indexOf(config.framePrefix) !== 0 || u.hash) return bad();
  var rest = u.pathname.slice(config.framePrefix.length);
  if (!rest || /%2f|%5c/i.test(rest) || /(^|\/)\.\.?(\/|$)/.test(src.split("?")[0].slice(config.framePrefix.length))) return bad();
  return src;
}

function framePath(target) {
  if (!target) return null;
  if (!TARGET.test(target) || target.split("/").some(function (s) { return s === "." || s === ".."; })) {
    report(new TypeError("embedkit: <embedkit-frame target>: target must be a target name or path such as \"sales\", got " + describe(target)));
    return null;
  }
  return config.framePrefix + target;
}


var shown = new WeakMap(); // <embedkit-frame> -> {target, src} last applied
var switched = new WeakMap(); // <embedkit-frame> -> the promise of its last switch

// copyAttrs gives the element's iframe what its attributes say; a new
// src loads the frame again (and mints), so it is set only on change. A
// new target of a managed frame without a src attribute is a switch
// (show): in place where the kit's settings allow it, else a new frame.
function copyAttrs(host, el) {
  var target = host.getAttribute("target");
  var src = host.getAttribute("src");
  var st = states.get(el);
  var before = shown.get(host);
  shown.set(host, { target: target, src: src });
  copyRest(host, el);
  if (before && before.target === target && before.src === src) return;
  if (st && before && src === null && before.src === null && target && framePath(target) !== null) {
    var p = show(st, target);
    // The element reports through the frame's events; show() gives the
    // promise to a caller that wants it.
    p.catch(noop);
    switched.set(host, p);
    return;
  }
  setAttr(el, "data-embedkit-target", target);
  setAttr(el, "src", src !== null ? frameSrc(src) : framePath(target));
}

// copyRest copies every attribute but the target and the src.
function copyRest(host, el) {
  setAttr(el, "data-embedkit", "");
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
}

// build creates the element's one iframe the first time it is needed.
export function build(host) {
  var el = hosts.get(host);
  if (!el) {
    el = document.createElement("iframe");
    copyAttrs(host, el);
    hosts.set(host, el);
    host.appendChild(el);
  }
  return manage(el);
}

export function defineElement() {
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
  // show(target) sets the element's target attribute, so that the
  // element and its frame agree, and returns the switch's promise.
  EmbedkitFrameElement.prototype.show = function (target) {
    var h = build(this).handle;
    if (typeof target !== "string" || this.getAttribute("src") !== null || this.getAttribute("target") === target) {
      return h.show(target);
    }
    switched.delete(this);
    this.setAttribute("target", target);
    return switched.get(this) || h.show(target);
  };
  customElements.define("embedkit-frame", EmbedkitFrameElement);
}
