// The page's settings (configure() or <meta name="embedkit">), their
// checks, and the one writer to the console of the script.

import { argError } from "./actions.js";

// config holds the settings; origin is null until configure() or the
// meta tag.
export const config = { origin: null, sessionURL: "/embed/session", framePrefix: "/embed/frame/", kitVersion: null };

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
    version: settings.version === undefined ? null : settings.version
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
