// <embedkit-frame>: a custom element that creates its one iframe from
// its attributes and manages it.

import { config } from "./settings.js";
import { argError, describe } from "./actions.js";
import { absolute } from "./endpoints.js";
import { manage, report, scan, setAttr } from "./frames.js";
import { METHODS } from "./handle.js";
import { size } from "./sizing.js";

var TARGET = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
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


// copyAttrs gives the element's iframe what its attributes say; a new
// src loads the frame again (and mints), so it is set only on change.
function copyAttrs(host, el) {
  var target = host.getAttribute("target");
  setAttr(el, "data-embedkit", "");
  setAttr(el, "data-embedkit-target", target);
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
  var src = host.getAttribute("src");
  setAttr(el, "src", src !== null ? frameSrc(src) : framePath(target));
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
  customElements.define("embedkit-frame", EmbedkitFrameElement);
}
