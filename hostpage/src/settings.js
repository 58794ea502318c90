// The page's settings (configure() or <meta name="embedkit">), their
// checks, and the one writer to the console of the script.

import { argError } from "./actions.js";
import { NAVIGATE_PATH_RULES } from "./rules.js";

// config holds the settings; origin is null until configure() or the
// meta tag.
// targets are HostSettings.Targets: by target name or frame path, what
// lets a frame move between targets in place ({path, grant, pinned,
// filters}); an empty object (every change of target a new frame) until
// the settings name some.
export const config = { origin: null, sessionURL: "/embed/session", framePrefix: "/embed/frame/", kitVersion: null,
  targets: Object.create(null) };

var DASHBOARD_PATHS = NAVIGATE_PATH_RULES.map(function (r) { return new RegExp(r); }).filter(function (re) {
  return re.test("/embed/dashboard/x") || re.test("/embed/d/1/dashboard/x");
});
var TAG = /^[A-Za-z0-9_-]{1,64}$/;
var FILTER_PARAM = /^f_[^=&\s]+=[^&\s]+$/;

// checkTargets checks settings.targets (HostSettings.Targets) and returns
// a frozen copy; a malformed entry throws, naming it.
function checkTargets(targets) {
  var out = Object.create(null);
  if (targets === undefined || targets === null) return Object.freeze(out);
  if (typeof targets !== "object" || Array.isArray(targets)) {
    throw argError("configure(settings)", "settings.targets", "an object of target name to {path, grant, pinned, filters} (Kit.HostSettings().Targets)", targets);
  }
  Object.keys(targets).forEach(function (name) {
    var t = targets[name];
    var field = "settings.targets[" + JSON.stringify(name.slice(0, 64)) + "]";
    var ok = t && typeof t === "object" && typeof t.path === "string" && t.path.length <= 256 &&
      DASHBOARD_PATHS.some(function (re) { return re.test(t.path); }) &&
      typeof t.grant === "string" && TAG.test(t.grant) && typeof t.pinned === "string" && TAG.test(t.pinned) &&
      (t.filters === undefined || t.filters === null || (Array.isArray(t.filters) && t.filters.every(function (f) {
        return typeof f === "string" && f.length <= 4096 && FILTER_PARAM.test(f);
      })));
    if (!ok) {
      throw argError("configure(settings)", field, "{path: an embed dashboard path, grant, pinned: tags, filters: f_ parameters} as Kit.HostSettings() renders it", t);
    }
    out[name] = Object.freeze({ path: t.path, grant: t.grant, pinned: t.pinned, filters: Object.freeze((t.filters || []).slice()) });
  });
  return Object.freeze(out);
}

const ORIGIN_RULE = /^https?:\/\/[^/?#@\s]+$/;

function checkPathSetting(name, value, prefix) {
  if (typeof value !== "string" || !/^\/(?!\/)[^\u0000-\u0020\u007f\\?#]*$/.test(value) ||
      (prefix && value.charAt(value.length - 1) !== "/")) {
    throw argError("configure(settings)", "settings." + name,
      prefix ? 'a same-origin path ending in "/" such as "/embed/frame/"' : 'a same-origin path such as "/embed/session"', value);
  }
}

// checkSettings checks settings; it returns the checked copy.
export function checkSettings(settings) {
  if (!settings || typeof settings !== "object" || Array.isArray(settings)) {
    throw argError("configure(settings)", "settings", "an object such as {platformOrigin: \"https://acme.example.com\"}", settings);
  }
  var out = {
    platformOrigin: settings.platformOrigin,
    sessionURL: settings.sessionURL === undefined ? "/embed/session" : settings.sessionURL,
    framePrefix: settings.framePrefix === undefined ? "/embed/frame/" : settings.framePrefix,
    version: settings.version === undefined ? null : settings.version,
    targets: checkTargets(settings.targets)
  };
  if (typeof out.platformOrigin !== "string" || !ORIGIN_RULE.test(out.platformOrigin)) {
    throw argError("configure(settings)", "settings.platformOrigin", 'an origin such as "https://acme.example.com" (scheme and host, no path)', out.platformOrigin);
  }
  checkPathSetting("sessionURL", out.sessionURL, false);
  checkPathSetting("framePrefix", out.framePrefix, true);
  if (out.version !== null && (typeof out.version !== "string" || out.version.length > 64)) {
    throw argError("configure(settings)", "settings.version", "the kit's host script version, a string", out.version);
  }
  return out;
}

// log writes to the console (level warn or debug); the only place the
// script does. Messages name versions, frames by their target, message
// types, origins and reasons, never a URL or a payload, which could carry
// a session id.
export function log(level, message) {
  if (typeof console !== "undefined" && typeof console[level] === "function") console[level]("embedkit: " + message);
}
