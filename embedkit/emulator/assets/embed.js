// Script of the emulator's embedded pages (dashboard, creator-mode app,
// analytics chat). It exchanges the single-use session id from the page
// address for an embed token, keeps the token in memory only, loads the
// viewer's context with it, renders, and talks to the host page through
// the postMessage protocol. It never writes the session id or the token
// anywhere else.
(function () {
  "use strict";

  var SOURCE = "platform-embed";
  var POLL_MS = 2000;
  // The iframe stops trusting a token an hour before its signed expiry and
  // warns the host five minutes before that.
  var TRUST_MARGIN_MS = 60 * 60 * 1000;
  var EXPIRING_WARNING_MS = 5 * 60 * 1000;
  var SHIPPED_LOCALES = [
    "en-US", "de-DE", "es-ES", "es-MX", "fr-FR", "it-IT",
    "ja-JP", "nb-NO", "pt-BR", "pt-PT", "sv-SE", "vi-VN"
  ];
  var SCHEMES = { light: true, dark: true, auto: true };

  var root = document.getElementById("embed");
  if (!root) {
    return;
  }
  var params = new URLSearchParams(window.location.search);
  var surface = root.getAttribute("data-surface") || "dashboard";
  var publicId = root.getAttribute("data-public-id") || "";
  var sessionParam = root.getAttribute("data-session-param") || "session";
  var parentOrigin = resolveParentOrigin();

  var state = {
    token: null,
    generation: 0,
    context: null,
    runtimeLocale: null,
    runtimeTimezone: null,
    runtimeTheme: {},
    timer: null,
    ended: false,
    endedSent: false,
    expiringSent: false,
    readySent: false,
    errorSent: false,
    renderedKey: ""
  };

  function $(id) {
    return document.getElementById(id);
  }

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  function str(v) {
    return typeof v === "string" ? v : "";
  }

  // --- host messaging --------------------------------------------------

  function originOf(value) {
    if (typeof value !== "string" || value === "") {
      return null;
    }
    try {
      var u = new URL(value);
      if (u.protocol !== "https:" && u.protocol !== "http:") {
        return null;
      }
      return u.origin;
    } catch (e) {
      return null;
    }
  }

  // The host's origin: ?parentOrigin= when given (and then only it), else
  // the origin of the page that framed us. Without one, no messages flow.
  function resolveParentOrigin() {
    if (params.has("parentOrigin")) {
      return originOf(params.get("parentOrigin"));
    }
    return originOf(document.referrer);
  }

  function post(type, payload) {
    if (!parentOrigin || window.parent === window) {
      return;
    }
    try {
      window.parent.postMessage({
        source: SOURCE,
        direction: "event",
        type: type,
        payload: payload || {},
        timestamp: Date.now(),
        surface: surface
      }, parentOrigin);
    } catch (e) {
      // A parent on another origin than announced: nothing to tell.
    }
  }

  function postError(message, context, fatal) {
    post("platform:event:error", { message: message, context: context, fatal: !!fatal });
  }

  // --- locale, time zone, theme ----------------------------------------

  // matchLocale maps a BCP-47 tag to a shipped locale: an exact match, else
  // the first shipped locale of the same language, else null (fall
  // through to the next source).
  function matchLocale(tag) {
    if (typeof tag !== "string" || tag === "") {
      return null;
    }
    var canon;
    try {
      canon = Intl.getCanonicalLocales(tag)[0];
    } catch (e) {
      return null;
    }
    if (!canon) {
      return null;
    }
    var lower = canon.toLowerCase();
    var lang = lower.split("-")[0];
    var i;
    for (i = 0; i < SHIPPED_LOCALES.length; i++) {
      if (SHIPPED_LOCALES[i].toLowerCase() === lower) {
        return SHIPPED_LOCALES[i];
      }
    }
    for (i = 0; i < SHIPPED_LOCALES.length; i++) {
      if (SHIPPED_LOCALES[i].toLowerCase().split("-")[0] === lang) {
        return SHIPPED_LOCALES[i];
      }
    }
    return null;
  }

  // matchZone returns the canonical IANA name of tz, or null for a bare
  // UTC offset or a name the browser does not know.
  function matchZone(tz) {
    if (typeof tz !== "string" || tz === "" || /^[+-]|^(utc|gmt)[+-]/i.test(tz)) {
      return null;
    }
    try {
      return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone || null;
    } catch (e) {
      return null;
    }
  }

  function setting(name) {
    var ctx = state.context;
    if (ctx && isObject(ctx.settings)) {
      return ctx.settings[name];
    }
    return undefined;
  }

  function effectiveLocale() {
    return matchLocale(state.runtimeLocale) ||
      matchLocale(params.get("locale")) ||
      matchLocale(setting("locale")) ||
      "en-US";
  }

  function effectiveZone() {
    return matchZone(state.runtimeTimezone) ||
      matchZone(params.get("timezone")) ||
      matchZone(setting("timezone")) ||
      "UTC";
  }

  function themeValue(name) {
    if (typeof state.runtimeTheme[name] === "string" && state.runtimeTheme[name] !== "") {
      return state.runtimeTheme[name];
    }
    var ctx = state.context;
    if (ctx && isObject(ctx.theme) && typeof ctx.theme[name] === "string") {
      return ctx.theme[name];
    }
    return "";
  }

  function supports(property, value) {
    try {
      return !!(window.CSS && CSS.supports && CSS.supports(property, value));
    } catch (e) {
      return false;
    }
  }

  function applyTheme() {
    var style = document.documentElement.style;
    var color = themeValue("primaryColor");
    if (color && supports("color", color)) {
      style.setProperty("--primary-color", color);
    } else {
      style.removeProperty("--primary-color");
    }
    var font = themeValue("font");
    if (font && supports("font-family", font)) {
      style.setProperty("--font-family", font);
    } else {
      style.removeProperty("--font-family");
    }
  }

  // --- rendering -------------------------------------------------------

  function setStatus(text, stateName, message) {
    var el = $("status");
    el.textContent = text;
    el.setAttribute("data-state", stateName);
    $("message").textContent = message || "";
  }

  function initials(name) {
    var parts = String(name).trim().split(/\s+/).filter(Boolean);
    var out = "";
    for (var i = 0; i < parts.length && out.length < 2; i++) {
      out += parts[i].charAt(0).toUpperCase();
    }
    return out || "?";
  }

  function renderViewer(ctx) {
    var name = str(ctx.displayName) || str(ctx.email) || str(ctx.externalId) || str(ctx.internalId) || "Viewer";
    $("viewer-name").textContent = name;
    var badge = $("viewer-initials");
    badge.textContent = initials(name);
    var img = $("viewer-picture");
    var pic = str(ctx.picture);
    if (pic && /^https?:\/\//i.test(pic)) {
      if (img.getAttribute("src") !== pic) {
        img.setAttribute("src", pic);
      }
      img.hidden = false;
      badge.hidden = true;
    } else {
      img.removeAttribute("src");
      img.hidden = true;
      badge.hidden = false;
    }
  }

  function formatters(locale, zone) {
    return {
      money: new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      count: new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }),
      month: new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", timeZone: "UTC" }),
      monthShort: new Intl.DateTimeFormat(locale, { month: "short", timeZone: "UTC" }),
      moment: new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: zone })
    };
  }

  function monthDate(value) {
    var t = Date.parse(str(value) + "T00:00:00Z");
    return isNaN(t) ? null : new Date(t);
  }

  function cell(tr, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) {
      td.className = className;
    }
    tr.appendChild(td);
  }

  function renderRows(rows, f) {
    var body = $("rows");
    var frag = document.createDocumentFragment();
    rows.forEach(function (row) {
      if (!isObject(row)) {
        return;
      }
      var tr = document.createElement("tr");
      var region = str(row.region);
      tr.setAttribute("data-region", region);
      tr.setAttribute("data-month", str(row.month));
      var month = monthDate(row.month);
      var updated = Date.parse(str(row.updatedAt));
      cell(tr, region);
      cell(tr, month ? f.month.format(month) : str(row.month));
      cell(tr, typeof row.revenue === "number" ? f.money.format(row.revenue) : "", "num");
      cell(tr, typeof row.orders === "number" ? f.count.format(row.orders) : "", "num");
      cell(tr, isNaN(updated) ? "" : f.moment.format(new Date(updated)));
      frag.appendChild(tr);
    });
    body.replaceChildren(frag);
  }

  function svg(name, attrs) {
    var el = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) {
        el.setAttribute(k, String(attrs[k]));
      }
    }
    return el;
  }

  function renderChart(rows, f) {
    var chart = $("chart");
    var W = 640, H = 220, left = 8, bottom = 196, top = 8;
    var nodes = [svg("line", { "class": "axis", x1: left, y1: bottom, x2: W - 4, y2: bottom })];
    var valid = rows.filter(function (r) {
      return isObject(r) && typeof r.revenue === "number" && isFinite(r.revenue);
    });
    var maxRevenue = 0;
    valid.forEach(function (r) {
      maxRevenue = Math.max(maxRevenue, r.revenue);
    });
    if (valid.length > 0 && maxRevenue > 0) {
      var slot = (W - 4 - left) / valid.length;
      var lastMonth = "";
      valid.forEach(function (r, i) {
        var h = Math.max(0, (bottom - top) * r.revenue / maxRevenue);
        var x = left + i * slot + slot * 0.1;
        var region = str(r.region);
        var rect = svg("rect", {
          "class": "bar bar-" + region.toLowerCase(),
          x: x.toFixed(1), y: (bottom - h).toFixed(1),
          width: (slot * 0.8).toFixed(1), height: h.toFixed(1),
          "data-region": region
        });
        var tip = svg("title", {});
        tip.textContent = region + " " + str(r.month) + ": " + f.money.format(r.revenue);
        rect.appendChild(tip);
        nodes.push(rect);
        if (str(r.month) !== lastMonth) {
          lastMonth = str(r.month);
          var d = monthDate(r.month);
          var label = svg("text", { "class": "label", x: x.toFixed(1), y: H - 8 });
          label.textContent = d ? f.monthShort.format(d) : lastMonth;
          nodes.push(label);
        }
      });
    }
    chart.replaceChildren.apply(chart, nodes);
  }

  function renderLocale(locale, zone) {
    $("locale").textContent = locale;
    $("timezone").textContent = zone;
    root.setAttribute("data-locale", locale);
    root.setAttribute("data-timezone", zone);
    document.documentElement.setAttribute("lang", locale);
  }

  // render draws the current context. It redraws only when something
  // visible changed, so polling does not churn the page.
  function render(force) {
    var locale = effectiveLocale();
    var zone = effectiveZone();
    renderLocale(locale, zone);
    applyTheme();
    var ctx = state.context;
    if (!ctx || state.ended) {
      return;
    }
    var rows = Array.isArray(ctx.rows) ? ctx.rows : [];
    var key = JSON.stringify([locale, zone, ctx.displayName, ctx.picture, ctx.title, rows]);
    if (!force && key === state.renderedKey) {
      return;
    }
    state.renderedKey = key;
    renderViewer(ctx);
    if (str(ctx.title)) {
      $("dashboard-title").textContent = ctx.title;
      document.title = ctx.title;
    }
    var f = formatters(locale, zone);
    renderRows(rows, f);
    renderChart(rows, f);
    setStatus("ready", "ready", "");
  }

  function clearData() {
    $("rows").replaceChildren();
    $("chart").replaceChildren();
    state.renderedKey = "";
  }

  // --- session ---------------------------------------------------------

  function stopPolling() {
    if (state.timer !== null) {
      clearTimeout(state.timer);
      state.timer = null;
    }
  }

  function schedule() {
    stopPolling();
    state.timer = setTimeout(loadContext, POLL_MS);
  }

  function showInvalid() {
    stopPolling();
    state.token = null;
    clearData();
    setStatus("session invalid", "invalid", "This session has expired or was already used — reload the page.");
  }

  function sessionEnded(reason) {
    stopPolling();
    state.token = null;
    state.ended = true;
    clearData();
    setStatus("session ended", "ended", "Your session has ended. Sign in again in the host application to continue.");
    if (!state.endedSent) {
      state.endedSent = true;
      post("platform:event:session-ended", { reason: reason });
    }
  }

  // exchange trades a single-use session id for an embed token. It
  // resolves with the token, or rejects with "invalid" (the id was unknown,
  // expired, revoked or used) or "error" (anything else).
  function exchange(sessionId) {
    return fetch("/api/v1/embed/session/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ sessionId: sessionId }),
      credentials: "omit",
      cache: "no-store"
    }).then(function (res) {
      if (res.status === 401 || res.status === 400 || res.status === 404) {
        throw new Error("invalid");
      }
      if (!res.ok) {
        throw new Error("error");
      }
      return res.json();
    }, function () {
      throw new Error("error");
    }).then(function (body) {
      if (!isObject(body) || typeof body.token !== "string" || body.token === "") {
        throw new Error("error");
      }
      return body.token;
    });
  }

  function useToken(token) {
    state.token = token;
    state.generation++;
    state.ended = false;
    state.endedSent = false;
    state.expiringSent = false;
    state.errorSent = false;
    state.renderedKey = "";
  }

  // checkTrust warns the host as the token nears the moment the iframe
  // stops trusting it, and ends the session once that moment has passed.
  // Times come from the platform's clock (serverTime), not the browser's.
  function checkTrust(ctx) {
    var expires = Date.parse(str(ctx.expiresAt));
    if (isNaN(expires)) {
      return true;
    }
    var now = Date.parse(str(ctx.serverTime));
    if (isNaN(now)) {
      now = Date.now();
    }
    var horizon = expires - TRUST_MARGIN_MS;
    if (now >= horizon) {
      sessionEnded("expired");
      return false;
    }
    if (horizon - now <= EXPIRING_WARNING_MS && !state.expiringSent) {
      state.expiringSent = true;
      post("platform:event:session-expiring", { expiresAt: new Date(horizon).toISOString() });
    }
    return true;
  }

  function contextURL() {
    var url = "/embed/api/context";
    if (surface === "dashboard" && publicId) {
      url += "?publicId=" + encodeURIComponent(publicId);
    }
    return url;
  }

  function loadContext() {
    stopPolling();
    if (!state.token || state.ended) {
      return Promise.resolve();
    }
    var gen = state.generation;
    return fetch(contextURL(), {
      headers: { Authorization: "Bearer " + state.token },
      credentials: "omit",
      cache: "no-store"
    }).then(function (res) {
      if (gen !== state.generation) {
        return;
      }
      if (res.status === 401) {
        sessionEnded("unauthorized");
        return;
      }
      if (res.status === 404) {
        stopPolling();
        clearData();
        setStatus("not found", "error", "This dashboard is not available.");
        postError("dashboard not found", "embed-context", true);
        return;
      }
      if (!res.ok) {
        throw new Error("status " + res.status);
      }
      return res.json().then(function (body) {
        if (gen !== state.generation) {
          return;
        }
        if (!isObject(body)) {
          throw new Error("malformed context");
        }
        state.context = body;
        state.errorSent = false;
        if (!checkTrust(body)) {
          return;
        }
        render(false);
        if (!state.readySent) {
          state.readySent = true;
          var ready = {
            embedTenant: str(body.tenant) || null,
            deploymentId: typeof body.deploymentId === "number" ? body.deploymentId : null,
            mode: "signed",
            surface: surface
          };
          if (publicId) {
            ready.publicId = publicId;
          }
          post("platform:event:ready", ready);
        }
        schedule();
      });
    }).catch(function (err) {
      if (gen !== state.generation || state.ended) {
        return;
      }
      // A transient failure: keep what is shown, tell the host once, and
      // keep polling.
      if (!state.errorSent) {
        state.errorSent = true;
        postError("could not load the embed context (" + (err && err.message ? err.message : "network error") + ")", "embed-context", false);
      }
      if (!state.context) {
        setStatus("error", "error", "The dashboard could not be loaded; retrying.");
      }
      schedule();
    });
  }

  function start(sessionId, context) {
    return exchange(sessionId).then(function (token) {
      useToken(token);
      return loadContext();
    }, function (err) {
      var invalid = err && err.message === "invalid";
      if (context === "renew-session") {
        // Whatever is shown stays: a live session goes on, an ended one
        // stays ended. Only the host needs to know.
        postError(invalid ? "renewal session expired or already used" : "session renewal failed", context, false);
        return;
      }
      if (invalid) {
        showInvalid();
        postError("session expired or already used", context, true);
      } else {
        setStatus("error", "error", "The session could not be started — reload the page.");
        postError("session exchange failed", context, true);
      }
    });
  }

  // --- actions from the host -------------------------------------------

  function onMessage(ev) {
    if (!parentOrigin || ev.origin !== parentOrigin || ev.source !== window.parent) {
      return;
    }
    var msg = ev.data;
    if (!isObject(msg) || msg.source !== SOURCE || typeof msg.type !== "string") {
      return;
    }
    if (msg.direction !== undefined && msg.direction !== "action") {
      return;
    }
    var p = isObject(msg.payload) ? msg.payload : {};
    switch (msg.type) {
      case "platform:action:set-locale":
        state.runtimeLocale = typeof p.locale === "string" ? p.locale : null;
        render(true);
        break;
      case "platform:action:set-timezone":
        state.runtimeTimezone = typeof p.timezone === "string" ? p.timezone : null;
        render(true);
        break;
      case "platform:action:set-theme":
        ["primaryColor", "font"].forEach(function (k) {
          if (typeof p[k] === "string") {
            state.runtimeTheme[k] = p[k];
          } else if (p[k] === null) {
            delete state.runtimeTheme[k];
          }
        });
        applyTheme();
        break;
      case "platform:action:set-color-scheme":
        if (typeof p.scheme === "string" && SCHEMES[p.scheme] === true) {
          document.documentElement.setAttribute("data-color-scheme", p.scheme);
        }
        break;
      case "platform:action:refresh":
        if (state.token && !state.ended) {
          loadContext();
        }
        break;
      case "platform:action:renew-session":
        if (typeof p.sessionId === "string" && p.sessionId !== "") {
          start(p.sessionId, "renew-session");
        } else {
          postError("renew-session needs a sessionId", "renew-session", false);
        }
        break;
      default:
        break;
    }
  }

  window.addEventListener("message", onMessage);
  $("viewer-picture").addEventListener("error", function () {
    // A picture that fails to load falls back to the initials.
    $("viewer-picture").hidden = true;
    $("viewer-initials").hidden = false;
  });

  render(true);
  var initial = params.get(sessionParam);
  if (!initial) {
    showInvalid();
    postError("no session in the page address", "session-exchange", true);
  } else {
    start(initial, "session-exchange");
  }
})();
