// Page setup: configure(), the meta tag, and the page-wide listeners and
// observer that find frames.

import { checkSettings, config } from "./settings.js";
import { checkKitVersion, loadStarted, onMessage, registry, releaseFrame, scan, states } from "./frames.js";
import { onOnline, onVisible } from "./renewal.js";
import { defineElement } from "./element.js";
import { SIZE_ATTRS, onResize, size } from "./sizing.js";
import { listen as listenForLogout } from "./tabs.js";

let started = false;

function observe() {
  if (typeof MutationObserver !== "function") return;
  new MutationObserver(function (records) {
    var rescan = false, removed = false;
    records.forEach(function (rec) {
      if (rec.type === "attributes") {
        if (rec.attributeName === "data-embedkit") rescan = true;
        else if (rec.attributeName === "src") loadStarted(states.get(rec.target));
        else if (states.has(rec.target)) size(rec.target);
        return;
      }
      for (var i = 0; i < rec.addedNodes.length; i++) {
        var n = rec.addedNodes[i];
        // Only a frame to manage calls for a scan; an iframe that gets
        // data-embedkit later is found by its attribute's change.
        if (n.nodeType === 1 && ((n.localName === "iframe" && n.hasAttribute("data-embedkit")) ||
            (n.querySelector && n.querySelector("iframe[data-embedkit]")))) rescan = true;
      }
      for (var j = 0; j < rec.removedNodes.length; j++) {
        if (rec.removedNodes[j].nodeType === 1) removed = true;
      }
    });
    // A managed iframe that has left the document is released: its
    // timers stop and what waits on it is rejected (reason "released").
    // One that was only moved is in the document again by now and is
    // kept; one put back later is managed again, as new.
    if (removed) {
      registry.managed.slice().forEach(function (st) {
        if (!st.el.isConnected) releaseFrame(st);
      });
    }
    if (rescan) scan();
  }).observe(document.documentElement, {
    childList: true, subtree: true, attributes: true,
    attributeFilter: ["data-embedkit", "src"].concat(SIZE_ATTRS)
  });
}

// startPage begins managing the page's frames, once: it listens for messages
// and page events, watches for frames added later and defines
// <embedkit-frame>.
function startPage() {
  if (started) return;
  started = true;
  window.addEventListener("message", onMessage);
  window.addEventListener("online", onOnline);
  window.addEventListener("resize", onResize);
  document.addEventListener("visibilitychange", onVisible);
  observe();
  listenForLogout(); // cross-tab logout (tabs.js)
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { scan(); });
  }
  defineElement();
  // Sized and managed at once, so the page does not jump later.
  scan();
}

export function browser() {
  return typeof window !== "undefined" && typeof document !== "undefined";
}

/**
 * configure sets the kit's settings for this page: platformOrigin (the
 * platform's origin, required), sessionURL (Config.Paths.Session, default
 * "/embed/session"), framePrefix (Config.Paths.Frame, default
 * "/embed/frame/") and version (the kit's host script version, optional,
 * checked against this package's). Kit.HostSettings() on the server
 * returns exactly this object. It starts managing the page's frames.
 * Calling it again with the same settings does nothing; with others it
 * throws, since frames already trust the first origin.
 */
export function configure(settings) {
  var s = checkSettings(settings);
  if (config.origin !== null) {
    if (s.platformOrigin !== config.origin || s.sessionURL !== config.sessionURL || s.framePrefix !== config.framePrefix) {
      throw new Error("embedkit: configure(settings): already configured for " + config.origin + "; a page has one platform");
    }
    return;
  }
  config.origin = s.platformOrigin;
  config.sessionURL = s.sessionURL;
  config.framePrefix = s.framePrefix;
  config.kitVersion = s.version;
  config.targets = s.targets;
  if (browser()) startPage();
  checkKitVersion(config.kitVersion, null);
}

// fromMeta configures from <meta name="embedkit" content="{...}"> when
// the page has one; it reports whether it did.
export function fromMeta() {
  if (!browser() || typeof document.querySelector !== "function") return false;
  var meta = document.querySelector('meta[name="embedkit"]');
  if (!meta) return false;
  var settings;
  try {
    settings = JSON.parse(meta.getAttribute("content"));
  } catch (e) {
    throw new Error("embedkit: <meta name=\"embedkit\"> content is not JSON; render it from Kit.HostSettings()");
  }
  configure(settings);
  return true;
}

// ensure makes sure the module is configured before a call that needs it.
export function ensure(call) {
  if (config.origin !== null || fromMeta()) {
    if (!started && browser()) startPage();
    return;
  }
  throw new Error("embedkit: " + call + ": not configured; call configure({platformOrigin}) first, " +
    "or render Kit.HostSettings() in <meta name=\"embedkit\">");
}
