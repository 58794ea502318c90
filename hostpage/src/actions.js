// The actions a host sends to a frame and their argument rules: each
// checks its arguments (the Go rules, from rules.js) and builds the
// action; what the host set is read back by filters() and settings().

import { LOCALE_MAX_LENGTH, TIMEZONE_MAX_LENGTH, MEMBER_RULE, NAVIGATE_PATH_RULES } from "./rules.js";
import { frozen, hasOwn } from "./envelope.js";

export function describe(value) {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  }
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : "a " + typeof value;
}

export function argError(call, arg, rule, value) {
  return new TypeError("embedkit: " + call + ": " + arg + " must be " + rule + ", got " + describe(value));
}

// The argument rules: rules.js is generated from the Go rules and the
// protocol's URL forms (internal/hostbuild), and a table test runs the
// Go and the script's checks on the same cases.
var MEMBER = new RegExp(MEMBER_RULE);
var LOCALE = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;
var PRIVATE_LOCALE = /^[xX](?:-[A-Za-z0-9]{1,8})+$/;

// BCP 47's grandfathered tags: well-formed, though not Unicode locale ids.
var GRANDFATHERED = /^(?:en-GB-oed|i-(?:ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)|sgn-(?:BE-FR|BE-NL|CH-DE)|art-lojban|cel-gaulish|no-bok|no-nyn|zh-(?:guoyu|hakka|min|min-nan|xiang))$/i;

// Zone names are case-sensitive, and every segment starts upper-case.
var TIMEZONE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;
var NAVIGATE_PATHS = NAVIGATE_PATH_RULES.map(function (r) { return new RegExp(r); });

// validLocale is the Go rule (embedkit): a well-formed BCP-47 tag of at
// most LOCALE_MAX_LENGTH characters; the browser's Intl is the parser.
function validLocale(locale) {
  if (typeof locale !== "string" || locale.length > LOCALE_MAX_LENGTH) return false;
  // A private-use tag alone is well-formed BCP 47, which Intl (Unicode
  // locale ids) does not parse.
  if (PRIVATE_LOCALE.test(locale) || GRANDFATHERED.test(locale)) return true;
  if (!LOCALE.test(locale)) return false;
  if (typeof Intl === "undefined" || typeof Intl.getCanonicalLocales !== "function") return true;
  try {
    return Intl.getCanonicalLocales(locale).length === 1;
  } catch (e) {
    return false;
  }
}

// validTimezone is the Go rule (middleware.ValidTimeZone): an IANA name
// the time zone database knows, never a bare offset.
function validTimezone(tz) {
  if (typeof tz !== "string" || tz.length > TIMEZONE_MAX_LENGTH || tz === "Local" || !TIMEZONE.test(tz)) return false;
  if (typeof Intl === "undefined" || typeof Intl.DateTimeFormat !== "function") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch (e) {
    return false;
  }
}

function validMember(member) {
  return typeof member === "string" && MEMBER.test(member);
}

function validPath(path) {
  return typeof path === "string" && path.length <= 2048 &&
    NAVIGATE_PATHS.some(function (re) { return re.test(path); });
}

function checkLocale(call, locale) {
  if (!validLocale(locale)) {
    throw argError(call, "locale", 'a language tag such as "de-DE" (BCP 47, at most ' + LOCALE_MAX_LENGTH + " characters)", locale);
  }
}

function checkTimezone(call, tz) {
  if (!validTimezone(tz)) {
    throw argError(call, "timeZone", 'an IANA time zone name such as "Europe/Berlin" (not an offset)', tz);
  }
}

function themeCopy(call, theme) {
  if (!theme || typeof theme !== "object" || Array.isArray(theme) ||
      Object.prototype.toString.call(theme) !== "[object Object]") {
    throw argError(call, "theme", "a plain object such as {primaryColor: \"#0b5fff\"}", theme);
  }
  // A copy: later changes to the host's object do not alter what is
  // sent again after a reload, and it must survive postMessage.
  try {
    return JSON.parse(JSON.stringify(theme));
  } catch (e) {
    throw argError(call, "theme", "plain JSON data", theme);
  }
}

function checkScheme(call, scheme) {
  if (scheme !== "light" && scheme !== "dark" && scheme !== "auto") {
    throw argError(call, "scheme", '"light", "dark" or "auto"', scheme);
  }
}

function scalar(v) {
  return typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && isFinite(v));
}

// filterParameter is the documented f_ URL parameter: the member, then
// the percent-encoded JSON {"value": value}.
function filterParameter(call, member, value) {
  if (!validMember(member)) {
    throw argError(call, "member", 'a member name such as "sales.region" (view.member)', member);
  }
  if (!(value === null || scalar(value) || (Array.isArray(value) && value.length > 0 && value.every(scalar)))) {
    throw argError(call, "value", "a string, a finite number, a boolean, a non-empty array of those, or null to clear", value);
  }
  var json = JSON.stringify({ value: value });
  try {
    return "f_" + encodeURIComponent(member) + "=" + encodeURIComponent(json);
  } catch (e) {
    throw argError(call, "value", "well-formed text", value);
  }
}

function checkPath(call, path) {
  if (!validPath(path)) {
    throw argError(call, "path", 'an embed path such as "/embed/dashboard/sales" (one of the forms of the platform\'s embed URLs: ' +
      "no query, fragment, encoded slash or dot segment)", path);
  }
}

function checkNoArgs(call, args) {
  if (args.length) throw new TypeError("embedkit: " + call + " takes no arguments");
}

function valueCopy(v) {
  return Array.isArray(v) ? v.slice() : v;
}

// Each action: how to check its arguments and build the action {key (the
// setting it remembers, or null), type, payload, value (what the host
// passed, for filters() and settings()), kind, path}.
export var ACTIONS = {
  setLocale: function (call, locale) {
    checkLocale(call, locale);
    return { key: "locale", type: "cube:action:set-locale", payload: { locale: locale }, value: locale };
  },
  setTimezone: function (call, tz) {
    checkTimezone(call, tz);
    // Not in the platform's event catalog: sent only when the host asks.
    return { key: "timezone", type: "cube:action:set-timezone", payload: { timezone: tz }, value: tz };
  },
  setTheme: function (call, theme) {
    var copy = themeCopy(call, theme);
    return { key: "theme", type: "cube:action:set-theme", payload: copy, value: themeCopy(call, copy) };
  },
  setColorScheme: function (call, scheme) {
    checkScheme(call, scheme);
    return { key: "scheme", type: "cube:action:set-color-scheme", payload: { scheme: scheme }, value: scheme };
  },
  setFilter: function (call, member, value) {
    if (arguments.length < 3) throw argError(call, "value", "given (null clears the filter)", undefined);
    return {
      key: "filter:" + member, type: "cube:action:set-filter",
      payload: { filterUrlParameter: filterParameter(call, member, value) }, value: valueCopy(value)
    };
  },
  navigate: function (call, path) {
    checkPath(call, path);
    return { key: null, type: "cube:action:navigate", payload: { path: path }, kind: "navigate", path: path };
  },
  refresh: function (call) {
    checkNoArgs(call, Array.prototype.slice.call(arguments, 1));
    return { key: null, type: "cube:action:refresh", payload: {}, kind: "refresh" };
  }
};

// hostFilters and hostSettings read what the host set through the script.
export function hostFilters(settings) {
  var out = Object.create(null);
  settings.order.forEach(function (key) {
    var v = settings.values[key];
    if (key.indexOf("filter:") === 0 && v.value !== null) out[key.slice(7)] = v.value;
  });
  return frozen(out);
}

var SETTING_NAMES = { locale: "locale", timezone: "timezone", theme: "theme", scheme: "colorScheme" };

export function hostSettings(settings) {
  var out = Object.create(null);
  settings.order.forEach(function (key) {
    if (hasOwn.call(SETTING_NAMES, key)) out[SETTING_NAMES[key]] = settings.values[key].value;
  });
  return frozen(out);
}
