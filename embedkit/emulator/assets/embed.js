// Script of the emulator's embedded pages (dashboard, creator-mode app,
// analytics chat). It exchanges the single-use session id from the page
// address for an embed token, keeps the token in memory only, loads the
// viewer's context with it, renders, and talks to the host page through
// the postMessage protocol. It never writes the session id or the token
// anywhere else.
(function () {
  "use strict";

  var SOURCE = "cube-embed";
  var POLL_MS = 2000;
  // The page stops trusting a token an hour before its signed expiry
  // (about 23 hours after the exchange), as the platform's page does.
  // There it posts cube:event:session-expired and shows "Session expired"
  // (on a platform that predates the renewal messages: a fatal
  // cube:event:error and "session ended", and the host loads the frame
  // again).
  var TRUST_MARGIN_MS = 60 * 60 * 1000;
  // How long before the trust end cube:event:session-expiring comes when
  // the page is not told (data-session-expiring-lead-ms): the emulator's
  // choice, as the platform's docs do not say.
  var DEFAULT_EXPIRING_LEAD_MS = 10 * 60 * 1000;
  var SHIPPED_LOCALES = [
    "en-US", "de-DE", "es-ES", "es-MX", "fr-FR", "it-IT",
    "ja-JP", "nb-NO", "pt-BR", "pt-PT", "sv-SE", "vi-VN"
  ];
  var SCHEMES = { light: true, dark: true, auto: true };
  // The controls of every emulated dashboard, so that the documented f_,
  // tg_ and ms_ parameters and set-filter have something to match: a
  // parameter applies only when a matching control exists.
  var FILTERS = { "sales.region": "region", "sales.month": "month" };
  var GRAINS = { "sales.month": { month: true, quarter: true } };
  var SWITCHES = { "sales.revenue": { "sales.revenue": "revenue", "sales.orders": "orders" } };
  var WIDGETS = 2; // the chart and the table
  // The page's fixed labels in some of the shipped locales' languages, so
  // that a locale change shows in the words as well as in the numbers;
  // other languages fall back to English.
  var LABELS = {
    en: { region: "Region", month: "Month", revenue: "Revenue", orders: "Orders", updated: "Updated", download: "Download CSV", askLabel: "Ask about your data", ask: "Ask", back: "Back", edit: "Edit", duplicate: "Duplicate", export: "Export", newChat: "New chat" },
    de: { region: "Region", month: "Monat", revenue: "Umsatz", orders: "Bestellungen", updated: "Aktualisiert", download: "CSV herunterladen", askLabel: "Fragen Sie Ihre Daten", ask: "Fragen", back: "Zurück", edit: "Bearbeiten", duplicate: "Duplizieren", export: "Exportieren", newChat: "Neuer Chat" },
    fr: { region: "Région", month: "Mois", revenue: "Chiffre d'affaires", orders: "Commandes", updated: "Mis à jour", download: "Télécharger en CSV", askLabel: "Interrogez vos données", ask: "Demander", back: "Retour", edit: "Modifier", duplicate: "Dupliquer", export: "Exporter", newChat: "Nouvelle conversation" },
    es: { region: "Región", month: "Mes", revenue: "Ingresos", orders: "Pedidos", updated: "Actualizado", download: "Descargar CSV", askLabel: "Pregunte por sus datos", ask: "Preguntar", back: "Atrás", edit: "Editar", duplicate: "Duplicar", export: "Exportar", newChat: "Nuevo chat" },
    ja: { region: "地域", month: "月", revenue: "売上", orders: "注文数", updated: "更新日時", download: "CSV をダウンロード", askLabel: "データについて質問", ask: "質問", back: "戻る", edit: "編集", duplicate: "複製", export: "エクスポート", newChat: "新しいチャット" }
  };

  var root = document.getElementById("embed");
  if (!root) {
    return;
  }
  var params = new URLSearchParams(window.location.search);
  var surface = root.getAttribute("data-surface") || "dashboard";
  var publicId = root.getAttribute("data-public-id") || "";
  var sessionParam = root.getAttribute("data-session-param") || "session";
  var parentOrigin = resolveParentOrigin();
  // The platform's session renewal in place (cube:event:session-expiring,
  // cube:event:session-expired, cube:action:set-session), rendered "off"
  // for a fixture that plays a platform predating it, and the lead of
  // session-expiring (the fixture's sessionExpiringLead).
  var RENEWAL = root.getAttribute("data-session-renewal") !== "off";
  var EXPIRING_LEAD_MS = (function () {
    var ms = Number(root.getAttribute("data-session-expiring-lead-ms"));
    return isFinite(ms) && ms > 0 ? ms : DEFAULT_EXPIRING_LEAD_MS;
  })();

  var state = {
    token: null,
    generation: 0,
    // Counts set-session actions, so that only the last one's exchange
    // takes effect.
    renewal: 0,
    // When the current token stops being trusted (ms, the platform's
    // clock), once a context has said.
    trustEnd: null,
    context: null,
    contextOf: null, // the publicId state.context was loaded for
    runtimeLocale: null,
    runtimeTimezone: null,
    runtimeTheme: {},
    timer: null,
    ended: false,
    endedSent: false,
    expiringSent: false,
    readySent: false,
    errorSent: false,
    renderedKey: "",
    // Viewer-side controls: filters by member, the time grain of
    // sales.month and the measure of the chart.
    filters: {},
    grain: "month",
    measure: "revenue",
    // A dashboard load under way, reported as dashboard-loaded once drawn.
    loadStart: Date.now(),
    loadPending: true,
    viewPending: true,
    renderFailed: false,
    shownRows: [],
    // In-embed navigations the back buttons can go back through.
    navDepth: 0
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
    post("cube:event:error", { message: message, context: context, fatal: !!fatal });
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

  // --- dashboard controls ----------------------------------------------

  function scalar(v) {
    return typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && isFinite(v));
  }

  // setFilter applies one filter given as the JSON of the documented f_
  // parameter, {"value": v} with v a scalar or a list of them (any of
  // them matches) and an optional "type" of equals (the default) or
  // notEquals. {"value": null} clears the filter: the docs say nothing of
  // clearing, and this is the emulator's reading. It reports whether a
  // control matched.
  function setFilter(member, json) {
    if (!Object.prototype.hasOwnProperty.call(FILTERS, member)) {
      return false;
    }
    var v;
    try {
      v = JSON.parse(json);
    } catch (e) {
      return false;
    }
    if (!isObject(v) || !Object.prototype.hasOwnProperty.call(v, "value")) {
      return false;
    }
    if (v.value === null) {
      delete state.filters[member];
      return true;
    }
    var values = Array.isArray(v.value) ? v.value : [v.value];
    if (values.length === 0 || !values.every(scalar)) {
      return false;
    }
    if (v.type !== undefined && v.type !== "equals" && v.type !== "notEquals") {
      return false;
    }
    state.filters[member] = { values: values.map(String), not: v.type === "notEquals" };
    return true;
  }

  // filterParameter applies "f_<member>=<JSON>" as set-filter carries it;
  // the JSON is percent-encoded, or, as in the docs' example, not.
  function filterParameter(text) {
    if (typeof text !== "string" || text.indexOf("f_") !== 0 || text.indexOf("=") < 0) {
      return false;
    }
    var eq = text.indexOf("=");
    var member = text.slice(2, eq);
    var raw = text.slice(eq + 1);
    var json = raw;
    try {
      json = decodeURIComponent(raw.replace(/\+/g, " "));
    } catch (e) {
      json = raw;
    }
    return setFilter(member, json) || (json !== raw && setFilter(member, raw));
  }

  // readURLControls applies the page address's f_, tg_ and ms_ parameters,
  // read once at load (the documented rule).
  function readURLControls() {
    params.forEach(function (value, key) {
      if (key.indexOf("f_") === 0) {
        setFilter(key.slice(2), value);
      } else if (key.indexOf("tg_") === 0) {
        var allowed = GRAINS[key.slice(3)];
        if (allowed && allowed[value] === true) {
          state.grain = value;
        }
      } else if (key.indexOf("ms_") === 0) {
        var options = SWITCHES[key.slice(3)];
        if (options && Object.prototype.hasOwnProperty.call(options, value)) {
          state.measure = options[value];
        }
      }
    });
  }

  function rowVisible(row) {
    for (var member in state.filters) {
      if (!Object.prototype.hasOwnProperty.call(state.filters, member)) {
        continue;
      }
      var f = state.filters[member];
      var field = str(row[FILTERS[member]]);
      var hit = f.values.some(function (v) {
        return FILTERS[member] === "month" ? field.indexOf(v) === 0 : field.toUpperCase() === v.toUpperCase();
      });
      if (hit === f.not) {
        return false;
      }
    }
    return true;
  }

  // byQuarter sums rows by region and calendar quarter.
  function byQuarter(rows) {
    var out = [];
    var index = {};
    rows.forEach(function (r) {
      var m = /^(\d{4})-(\d{2})/.exec(str(r.month));
      if (!m) {
        return;
      }
      var q = Math.floor((Number(m[2]) - 1) / 3);
      var month = m[1] + "-" + ("0" + (q * 3 + 1)).slice(-2) + "-01";
      var key = str(r.region) + "|" + month;
      if (!index[key]) {
        index[key] = { region: r.region, month: month, quarter: "Q" + (q + 1) + " " + m[1], revenue: 0, orders: 0, updatedAt: r.updatedAt, project: r.project };
        out.push(index[key]);
      }
      index[key].revenue = Math.round((index[key].revenue + (r.revenue || 0)) * 100) / 100;
      index[key].orders += r.orders || 0;
      if (str(r.updatedAt) > str(index[key].updatedAt)) {
        index[key].updatedAt = r.updatedAt;
      }
    });
    return out;
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
      if (str(row.project)) {
        tr.setAttribute("data-project", str(row.project));
      }
      var month = monthDate(row.month);
      var updated = Date.parse(str(row.updatedAt));
      cell(tr, region);
      cell(tr, row.quarter ? row.quarter : (month ? f.month.format(month) : str(row.month)));
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
    var measure = state.measure;
    var valid = rows.filter(function (r) {
      return isObject(r) && typeof r[measure] === "number" && isFinite(r[measure]);
    });
    var maxRevenue = 0;
    valid.forEach(function (r) {
      maxRevenue = Math.max(maxRevenue, r[measure]);
    });
    if (valid.length > 0 && maxRevenue > 0) {
      var slot = (W - 4 - left) / valid.length;
      var lastMonth = "";
      valid.forEach(function (r, i) {
        var h = Math.max(0, (bottom - top) * r[measure] / maxRevenue);
        var x = left + i * slot + slot * 0.1;
        var region = str(r.region);
        var rect = svg("rect", {
          "class": "bar bar-" + region.toLowerCase(),
          x: x.toFixed(1), y: (bottom - h).toFixed(1),
          width: (slot * 0.8).toFixed(1), height: h.toFixed(1),
          "data-region": region,
          "data-month": str(r.month),
          tabindex: 0,
          role: "button"
        });
        var tip = svg("title", {});
        tip.textContent = region + " " + str(r.month) + ": " + (measure === "revenue" ? f.money.format(r.revenue) : f.count.format(r[measure]));
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

  function renderLabels(locale) {
    var words = LABELS[locale.split("-")[0]] || LABELS.en;
    var els = document.querySelectorAll("[data-label]");
    for (var i = 0; i < els.length; i++) {
      var key = els[i].getAttribute("data-label");
      els[i].textContent = words[key] || LABELS.en[key] || els[i].textContent;
    }
  }

  function renderLocale(locale, zone) {
    renderLabels(locale);
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
    if (str(ctx.renderError)) {
      return;
    }
    var rows = (Array.isArray(ctx.rows) ? ctx.rows : []).filter(function (r) {
      return isObject(r) && rowVisible(r);
    });
    if (state.grain === "quarter") {
      rows = byQuarter(rows);
    }
    state.shownRows = rows;
    root.setAttribute("data-filters", JSON.stringify(state.filters));
    root.setAttribute("data-grain", state.grain);
    root.setAttribute("data-measure", state.measure);
    var key = JSON.stringify([locale, zone, ctx.displayName, ctx.picture, ctx.title, rows, state.measure]);
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
      // The documented way to say the session is over: a fatal error.
      postError("the session has ended (" + reason + ")", "embed-session", true);
    }
  }

  // trustEnded is the end of the token's trust on a platform with the
  // renewal messages: the page stops polling with the dead token, shows
  // "Session expired" and posts cube:event:session-expired, and goes on
  // listening for cube:action:set-session. A session-expiring its timer
  // has not sent yet follows, as a timer woken late would send it.
  function trustEnded() {
    stopPolling();
    state.token = null;
    state.ended = true;
    clearData();
    setStatus("session expired", "expired", "Session expired.");
    if (!state.endedSent) {
      state.endedSent = true;
      post("cube:event:session-expired", {});
    }
    if (!state.expiringSent) {
      state.expiringSent = true;
      post("cube:event:session-expiring", {});
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
    state.trustEnd = null;
  }

  // renewSession is cube:action:set-session: it exchanges the new id by
  // the first exchange's rules and takes the token in place of the old
  // one, without reloading the document, so what the host set at runtime
  // (locale, time zone, theme, color scheme, filters, the in-embed path)
  // stays. The renewal events may come again for the new token. No event
  // confirms it, as none is documented. An id that cannot be exchanged is
  // reported with cube:event:error (context embed-session), fatal only when
  // the current token is no longer trusted; otherwise the page goes on
  // with it. Of set-session actions that overlap, the last one wins.
  function renewSession(sessionId) {
    var renewal = ++state.renewal;
    exchange(sessionId).then(function (token) {
      if (renewal !== state.renewal) {
        return;
      }
      useToken(token);
      loadContext();
    }, function (err) {
      if (renewal !== state.renewal) {
        return;
      }
      var trusted = state.token !== null && !state.ended;
      var invalid = err && err.message === "invalid";
      postError(invalid ? "the new session is unknown, expired, revoked or already used" : "the new session could not be exchanged",
        "embed-session", !trusted);
    });
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
    state.trustEnd = horizon;
    if (now >= horizon) {
      if (RENEWAL) {
        trustEnded();
      } else {
        sessionEnded("expired");
      }
      return false;
    }
    if (RENEWAL && !state.expiringSent && now >= horizon - EXPIRING_LEAD_MS) {
      state.expiringSent = true;
      post("cube:event:session-expiring", {});
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
        // A token refused after its trust end (the tab slept past its
        // signed expiry too) expired; before it, it was revoked. The
        // answer's Date is the platform's clock.
        var at = Date.parse(res.headers.get("Date") || "");
        if (RENEWAL && state.trustEnd !== null && !isNaN(at) && at >= state.trustEnd) {
          trustEnded();
        } else {
          sessionEnded("unauthorized");
        }
        return;
      }
      var refusal = {
        404: ["not found", "This dashboard is not available.", "dashboard not found"],
        403: ["not allowed", "This dashboard does not allow signed embedding.", "signed embedding is not allowed for this dashboard"]
      }[res.status];
      if (refusal) {
        stopPolling();
        clearData();
        setStatus(refusal[0], "error", refusal[1]);
        postError(refusal[2], "embed-context", true);
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
        // The dashboard this context was loaded for: a navigation in
        // flight has not drawn its own yet.
        state.contextOf = publicId;
        state.errorSent = false;
        if (!checkTrust(body)) {
          return;
        }
        render(false);
        renderNav(body);
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
          post("cube:event:ready", ready);
        }
        if (state.viewPending) {
          state.viewPending = false;
          var view = { surface: surface, path: window.location.pathname };
          if (publicId) {
            view.publicId = publicId;
          }
          if (str(body.title)) {
            view.title = str(body.title);
          }
          post("cube:event:view", view);
        }
        if (str(body.renderError)) {
          if (!state.renderFailed) {
            state.renderFailed = true;
            stopPolling();
            clearData();
            setStatus("error", "error", "This dashboard could not be rendered.");
            post("cube:event:error", { message: str(body.renderError), name: "RenderError", context: "embed-render", fatal: true });
          }
          return;
        }
        reportLoaded();
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
    var renewal = state.renewal;
    // renewed reports whether a set-session answered before this first
    // exchange and already gave the page its token: then it wins.
    function renewed() {
      return renewal !== state.renewal && state.token !== null;
    }
    return exchange(sessionId).then(function (token) {
      if (renewed()) {
        return;
      }
      useToken(token);
      return loadContext();
    }, function (err) {
      if (renewed()) {
        return;
      }
      var invalid = err && err.message === "invalid";
      if (invalid) {
        showInvalid();
        postError("session expired or already used", context, true);
      } else {
        setStatus("error", "error", "The session could not be started — reload the page.");
        postError("session exchange failed", context, true);
      }
    });
  }

  // reportLoaded posts dashboard-loaded once a dashboard load (the first,
  // a navigation, a refresh, a new filter) has been drawn.
  function reportLoaded() {
    if (!state.loadPending || surface !== "dashboard") {
      state.loadPending = false;
      return;
    }
    state.loadPending = false;
    var payload = { widgetCount: WIDGETS, loadDurationMs: Math.max(0, Date.now() - state.loadStart) };
    if (publicId) {
      payload.publicId = publicId;
    }
    post("cube:event:dashboard-loaded", payload);
  }

  function startLoad() {
    state.loadStart = Date.now();
    state.loadPending = true;
  }

  // --- in-embed navigation ---------------------------------------------

  function dashboardPath(id) {
    var dep = root.getAttribute("data-deployment-id");
    if (surface === "app") {
      return "/embed/d/" + dep + "/app/dashboard/" + encodeURIComponent(id);
    }
    if (/^\/embed\/d\//.test(window.location.pathname)) {
      return "/embed/d/" + dep + "/dashboard/" + encodeURIComponent(id);
    }
    return "/embed/dashboard/" + encodeURIComponent(id);
  }

  function renderNav(ctx) {
    var nav = $("embed-nav");
    if (!nav || surface === "chat") {
      return;
    }
    var list = Array.isArray(ctx.dashboards) ? ctx.dashboards : [];
    var key = JSON.stringify(list) + "|" + publicId;
    if (nav.getAttribute("data-key") === key) {
      return;
    }
    nav.setAttribute("data-key", key);
    var frag = document.createDocumentFragment();
    list.forEach(function (d) {
      if (!isObject(d) || !str(d.publicId)) {
        return;
      }
      var a = document.createElement("a");
      a.href = dashboardPath(d.publicId);
      a.textContent = str(d.title) || d.publicId;
      a.setAttribute("data-public-id", d.publicId);
      if (d.publicId === publicId) {
        a.setAttribute("aria-current", "page");
      }
      frag.appendChild(a);
    });
    nav.replaceChildren(frag);
  }

  // navigateTo moves the embed to an in-embed path without reloading it
  // (the token stays in memory): another dashboard of the deployment, or
  // a path of the creator app.
  function navigateTo(path) {
    var m;
    var dep = root.getAttribute("data-deployment-id");
    if (surface === "dashboard") {
      m = /^\/embed\/(?:d\/(\d+)\/)?dashboard\/([A-Za-z0-9][A-Za-z0-9_-]*)$/.exec(path);
    } else if (surface === "app") {
      m = new RegExp("^/embed/d/" + dep + "/app(?:/dashboard/([A-Za-z0-9][A-Za-z0-9_-]*)|/[A-Za-z0-9_/-]*)?$").exec(path);
    }
    if (!m) {
      postError("cannot navigate to " + path, "embed-navigate", false);
      return;
    }
    var previous = window.location.pathname;
    if (path === previous) {
      return;
    }
    window.history.pushState({ embedDepth: state.navDepth + 1 }, "", path + window.location.search);
    setNavDepth(state.navDepth + 1);
    post("cube:event:navigate", { path: path, previousPath: previous });
    state.viewPending = true;
    if (surface === "dashboard") {
      publicId = m[2];
      root.setAttribute("data-public-id", publicId);
      state.renderedKey = "";
      startLoad();
    }
    loadContext();
  }

  // --- viewer actions ---------------------------------------------------

  function onChartActivate(ev) {
    if (ev.type === "keydown" && ev.key !== "Enter" && ev.key !== " ") {
      return;
    }
    var bar = ev.target && ev.target.closest ? ev.target.closest("rect.bar") : null;
    if (!bar) {
      return;
    }
    post("cube:event:drilldown", { member: "sales.region", value: bar.getAttribute("data-region"), widgetId: "revenue-chart" });
  }

  function csvField(v) {
    var text = String(v === undefined || v === null ? "" : v);
    return /[",\n]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
  }

  // downloadCSV saves the rows shown as CSV, built in the page, and tells
  // the host what was downloaded, never the rows themselves.
  function downloadCSV() {
    var rows = state.shownRows;
    var lines = ["region,month,revenue,orders"];
    rows.forEach(function (r) {
      lines.push([r.region, r.quarter || r.month, r.revenue, r.orders].map(csvField).join(","));
    });
    var url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
    var a = document.createElement("a");
    a.href = url;
    a.download = (publicId || "rows") + ".csv";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    post("cube:event:download", { format: "csv", target: "widget", widgetId: "rows", title: "Rows", rowCount: rows.length });
  }

  // setNavDepth records how many in-embed steps the back buttons can go
  // back through, and enables them when there is one.
  function setNavDepth(n) {
    state.navDepth = Math.max(n, 0);
    ["back-button", "workbook-back-button"].forEach(function (id) {
      if ($(id)) {
        $(id).disabled = state.navDepth === 0;
      }
    });
  }

  // downloadDashboard saves the whole dashboard as PNG or PDF, rendered by
  // the emulator from the rows the viewer may see, and tells the host
  // what was downloaded.
  function downloadDashboard(format) {
    if (!state.token || state.ended || !publicId) {
      return;
    }
    fetch("/embed/api/export?publicId=" + encodeURIComponent(publicId) + "&format=" + format, {
      headers: { Authorization: "Bearer " + state.token },
      cache: "no-store"
    }).then(function (res) {
      if (!res.ok) {
        throw new Error("export answered " + res.status);
      }
      return res.blob();
    }).then(function (blob) {
      var url = URL.createObjectURL(blob);
      var a = document.createElement("a");
      a.href = url;
      a.download = publicId + "." + format;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
      var title = state.context && str(state.context.title);
      var payload = { format: format, target: "dashboard" };
      if (title) {
        payload.title = title;
      }
      post("cube:event:download", payload);
    }).catch(function (e) {
      postError("dashboard export failed: " + e.message, "embed-export", false);
    });
  }

  // The chat surface answers from the rows the viewer may see; the
  // history lists the questions of the current chat.
  var chatSeq = 0;
  function newChat() {
    $("chat-history").replaceChildren();
    $("chat-answer").textContent = "";
    $("chat-input").value = "";
  }
  function onChatSubmit(ev) {
    ev.preventDefault();
    var input = $("chat-input");
    var query = input.value.trim();
    var chatId = "chat-" + (++chatSeq);
    if (!query || !state.context) {
      post("cube:event:ai-query", { query: query, status: "error", chatId: chatId });
      $("chat-answer").textContent = query ? "The data is still loading." : "Ask a question about your data.";
      return;
    }
    post("cube:event:ai-query", { query: query, status: "submitted", chatId: chatId });
    var asked = document.createElement("li");
    asked.textContent = query;
    $("chat-history").appendChild(asked);
    var rows = Array.isArray(state.context.rows) ? state.context.rows : [];
    var revenue = 0;
    var orders = 0;
    rows.forEach(function (r) {
      revenue += typeof r.revenue === "number" ? r.revenue : 0;
      orders += typeof r.orders === "number" ? r.orders : 0;
    });
    var f = formatters(effectiveLocale(), effectiveZone());
    $("chat-answer").textContent = "Across the " + rows.length + " months and regions you may see: revenue " +
      f.money.format(revenue) + ", " + f.count.format(orders) + " orders.";
    post("cube:event:ai-query", { query: query, status: "completed", chatId: chatId });
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
      case "cube:action:set-locale":
        state.runtimeLocale = typeof p.locale === "string" ? p.locale : null;
        render(true);
        break;
      case "cube:action:set-timezone":
        state.runtimeTimezone = typeof p.timezone === "string" ? p.timezone : null;
        render(true);
        break;
      case "cube:action:set-theme":
        ["primaryColor", "font"].forEach(function (k) {
          if (typeof p[k] === "string") {
            state.runtimeTheme[k] = p[k];
          } else if (p[k] === null) {
            delete state.runtimeTheme[k];
          }
        });
        applyTheme();
        break;
      case "cube:action:set-color-scheme":
        if (typeof p.scheme === "string" && SCHEMES[p.scheme] === true) {
          document.documentElement.setAttribute("data-color-scheme", p.scheme);
        }
        break;
      case "cube:action:refresh":
        if (state.token && !state.ended) {
          startLoad();
          loadContext();
        }
        break;
      case "cube:action:set-filter":
        if (filterParameter(p.filterUrlParameter) && state.contextOf === publicId) {
          startLoad();
          render(true);
          reportLoaded();
        }
        // Otherwise a navigation's load is under way: it draws the
        // filter, and only it reports the new dashboard loaded (never the
        // old dashboard's data under the new one's id).
        break;
      case "cube:action:navigate":
        if (typeof p.path === "string" && state.token && !state.ended) {
          navigateTo(p.path);
        }
        break;
      case "cube:action:set-session":
        // A platform that predates renewal does not know the action.
        if (RENEWAL && typeof p.sessionId === "string") {
          renewSession(p.sessionId);
        }
        break;
      default:
        break;
    }
  }

  window.addEventListener("message", onMessage);
  $("chart").addEventListener("click", onChartActivate);
  $("chart").addEventListener("keydown", onChartActivate);
  // The chrome switches of the address (allowExport, show...=false) are
  // read by the platform when it renders the page: what they hide is
  // rendered hidden, and the script leaves it so.
  $("download-csv").addEventListener("click", downloadCSV);
  if ($("export-menu")) {
    $("export-menu").addEventListener("click", function (ev) {
      var b = ev.target && ev.target.closest ? ev.target.closest("button[data-format]") : null;
      if (b) {
        downloadDashboard(b.getAttribute("data-format"));
      }
    });
  }
  ["back-button", "workbook-back-button"].forEach(function (id) {
    if ($(id)) {
      $(id).addEventListener("click", function () {
        if (state.navDepth > 0) {
          window.history.back();
        }
      });
    }
  });
  if (surface === "chat") {
    $("chat-form").addEventListener("submit", onChatSubmit);
    $("new-chat").addEventListener("click", newChat);
  }
  $("embed-nav").addEventListener("click", function (ev) {
    var a = ev.target && ev.target.closest ? ev.target.closest("a[data-public-id]") : null;
    if (!a) {
      return;
    }
    ev.preventDefault();
    navigateTo(a.getAttribute("href"));
  });
  window.addEventListener("popstate", function () {
    // Back and forward inside the embed: reload what the address names.
    var st = window.history.state;
    setNavDepth(st && typeof st.embedDepth === "number" ? st.embedDepth : 0);
    var m = /\/dashboard\/([A-Za-z0-9][A-Za-z0-9_-]*)$/.exec(window.location.pathname);
    if (surface === "dashboard" && m && m[1] !== publicId) {
      publicId = m[1];
      state.renderedKey = "";
      state.viewPending = true;
      startLoad();
      loadContext();
    }
  });
  readURLControls();
  $("viewer-picture").addEventListener("error", function () {
    // A picture that fails to load falls back to the initials.
    $("viewer-picture").hidden = true;
    $("viewer-initials").hidden = false;
  });

  render(true);
  var initial = params.get(sessionParam);
  if (!initial) {
    showInvalid();
    postError("no session in the page address", "embed-session", true);
  } else {
    start(initial, "embed-session");
  }
})();
