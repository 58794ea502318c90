// The platform's postMessage protocol: the envelope, the events the kit
// accepts and the names it gives them, the check every message passes,
// and the one place the script posts an action.

import { config } from "./settings.js";

const SOURCE = "cube-embed";

// The platform's documented events by wire type, and the names the kit
// gives them (testdata/embed-protocol.json is the contract).
export var EVENTS = {
  "cube:event:ready": "ready",
  "cube:event:view": "view",
  "cube:event:navigate": "navigate",
  "cube:event:dashboard-loaded": "dashboard-loaded",
  "cube:event:download": "download",
  "cube:event:drilldown": "drilldown",
  "cube:event:ai-query": "ai-query",
  "cube:event:error": "error",
  // Session renewal in place: their payloads are not documented, and the
  // kit reads nothing from them.
  "cube:event:session-expiring": "session-expiring",
  "cube:event:session-expired": "session-expired"
};

var KIT_EVENTS = ["session-renewed", "session-ended", "renew-failed", "load-failed", "version-mismatch"];
// NAMES: the event names a listener may ask for.
export var NAMES = Object.create(null);
Object.keys(EVENTS).forEach(function (type) { NAMES[EVENTS[type]] = true; });
KIT_EVENTS.forEach(function (name) { NAMES[name] = true; });
NAMES["*"] = true;

export var hasOwn = Object.prototype.hasOwnProperty;

// refusal says why msg, with event's origin, is not a platform event, or
// "" when it is one.
export function refusal(event, msg) {
  if (event.origin !== config.origin) return "wrong origin";
  if (!msg || typeof msg !== "object" || msg.source !== SOURCE) return "wrong source";
  if (msg.direction !== undefined && msg.direction !== "event") return "wrong direction";
  if (typeof msg.type !== "string" || !hasOwn.call(EVENTS, msg.type)) return "unknown type";
  return "";
}

export function post(st, type, payload) {
  var win = st.el.contentWindow;
  if (!win) return false;
  // Actions carry no surface; the target origin is the platform's, so a
  // frame that navigated elsewhere never receives them.
  win.postMessage({
    source: SOURCE,
    direction: "action",
    type: type,
    payload: payload,
    timestamp: Date.now()
  }, config.origin);
  return true;
}

// frozen returns a deep copy of v with null-prototype objects, frozen:
// what listeners get, so no listener can change what the kit decides on
// or what another listener sees. Payload text is the embed's, untrusted.
export function frozen(v, depth) {
  depth = depth || 0;
  if (v === null || typeof v !== "object") return typeof v === "function" ? undefined : v;
  if (depth > 32) return null;
  var out;
  if (Array.isArray(v)) {
    out = v.map(function (x) { return frozen(x, depth + 1); });
  } else {
    out = Object.create(null);
    Object.keys(v).forEach(function (k) { out[k] = frozen(v[k], depth + 1); });
  }
  return Object.freeze(out);
}
