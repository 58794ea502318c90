// Ledgerly page script. No dependencies and no build step; the pages work
// without it. It:
//   - applies display settings to the embedded dashboards as soon as they
//     change (through window.embedkit, defined by the kit's host script)
//     and saves them in the background;
//   - shows the embed's state in #embed-status from the embedkit:* events
//     the host script dispatches on the iframe (ready, session-renewed,
//     renew-failed, a fatal error, session-ended);
//   - sends the filter bar's choices to the embed as live filters
//     (embedkit.frame(iframe).setFilter) and its refresh button as a
//     refresh;
//   - lists the embed's events in #event-log as they happen;
//   - closes the header menus on an outside click or Escape.
(function () {
  "use strict";

  var SLOW_AFTER_MS = 15000;

  // kit calls window.embedkit[name](value) when the host script is loaded.
  function kit(name, value) {
    var api = window.embedkit;
    if (api && typeof api[name] === "function") {
      api[name](value);
    }
  }

  function applyScheme(value) {
    document.documentElement.dataset.scheme = value;
  }

  // ---- display settings ---------------------------------------------------

  function setSettingsStatus(el, state, text) {
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }

  function initSettings(form) {
    var status = document.getElementById("settings-status");
    var latest = 0;
    form.classList.add("is-live");

    function save() {
      var id = ++latest;
      setSettingsStatus(status, "saving", "Saving…");
      fetch(form.getAttribute("action") || "/settings", {
        method: "POST",
        body: new FormData(form),
        headers: { "Accept": "application/json" },
        credentials: "same-origin"
      }).then(function (res) {
        if (id !== latest) return;
        if (res.ok && !res.redirected) {
          setSettingsStatus(status, "saved", "Saved");
        } else if (res.status === 401 || res.status === 403 || res.redirected) {
          setSettingsStatus(status, "error", "Not saved: sign in again to keep your settings.");
        } else {
          setSettingsStatus(status, "error", "Not saved. Please try again.");
        }
      }).catch(function () {
        if (id !== latest) return;
        setSettingsStatus(status, "error", "Not saved: check your connection and try again.");
      });
    }

    form.addEventListener("change", function (event) {
      var field = event.target;
      switch (field && field.name) {
        case "locale":
          kit("setLocale", field.value);
          break;
        case "timezone":
          kit("setTimezone", field.value);
          break;
        case "scheme":
          kit("setColorScheme", field.value);
          applyScheme(field.value);
          break;
        default:
          return;
      }
      save();
    });
  }

  // ---- embed status -------------------------------------------------------

  function statusParts() {
    var el = document.getElementById("embed-status");
    if (!el) return null;
    return { el: el, text: el.querySelector(".status-text") || el };
  }

  function setEmbedStatus(state, nodes) {
    var s = statusParts();
    if (!s) return;
    s.el.dataset.state = state;
    while (s.text.firstChild) s.text.removeChild(s.text.firstChild);
    nodes.forEach(function (n) {
      s.text.appendChild(typeof n === "string" ? document.createTextNode(n) : n);
    });
  }

  function signInLink() {
    var a = document.createElement("a");
    a.href = "/login";
    a.textContent = "sign in again";
    return a;
  }

  function isEmbed(target) {
    return target && target.nodeName === "IFRAME" && target.hasAttribute("data-embedkit");
  }

  var slowTimer = 0;

  function onEmbed(name, fn) {
    document.addEventListener("embedkit:" + name, function (event) {
      if (!isEmbed(event.target)) return;
      clearTimeout(slowTimer);
      fn(event.detail || {}, event.target);
    });
  }

  onEmbed("ready", function () { setEmbedStatus("live", ["Live"]); });
  onEmbed("session-renewed", function () { setEmbedStatus("live", ["Live"]); });
  onEmbed("renew-failed", function (d) {
    var p = d.payload || {};
    if (p.retryInMs === null || p.retryInMs === undefined) {
      setEmbedStatus("error", ["The dashboard could not be reconnected — reload the page."]);
    } else {
      setEmbedStatus("slow", ["Reconnecting…"]);
    }
  });
  onEmbed("error", function (d) {
    var p = d.payload || {};
    if (p.fatal === true) {
      setEmbedStatus(p.context === "embed-render" ? "error" : "slow",
        [p.context === "embed-render" ? "The dashboard could not be shown." : "Reconnecting…"]);
    }
  });
  onEmbed("session-ended", function () {
    setEmbedStatus("ended", ["Session ended — ", signInLink()]);
    showSignedOut();
  });

  // showSignedOut stops a tab left open after sign-out from showing the
  // signed-out user: the frame endpoint said nobody is signed in.
  function showSignedOut() {
    var name = document.getElementById("account-name");
    if (name) name.textContent = "Signed out";
    ["account-tenant"].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) el.textContent = "";
    });
    var panel = document.querySelector(".account-panel");
    if (panel) {
      while (panel.firstChild) panel.removeChild(panel.firstChild);
      var p = document.createElement("p");
      p.appendChild(signInLink());
      panel.appendChild(p);
    }
    document.documentElement.setAttribute("data-signed-out", "");
  }

  // ---- filter bar ---------------------------------------------------------

  // frameHandle is the host script's handle of the page's embed, or null
  // when the host script is not loaded.
  function frameHandle() {
    var api = window.embedkit;
    var el = document.getElementById("embed-frame");
    if (!api || typeof api.frame !== "function" || !el) return null;
    try {
      return api.frame(el);
    } catch (e) {
      return null;
    }
  }

  function initFilterBar(bar) {
    bar.addEventListener("change", function (event) {
      var field = event.target;
      var member = field && field.getAttribute && field.getAttribute("data-embedkit-filter");
      var handle = frameHandle();
      if (!member || !handle) return;
      handle.setFilter(member, field.value === "" ? null : field.value);
    });
    var refresh = document.getElementById("embed-refresh");
    if (refresh) {
      refresh.addEventListener("click", function () {
        var handle = frameHandle();
        if (handle) handle.refresh();
      });
    }
  }

  // ---- event log ----------------------------------------------------------

  var LOGGED = ["ready", "view", "navigate", "dashboard-loaded", "download", "drilldown",
    "ai-query", "error", "session-renewed", "session-ended", "renew-failed"];
  var MAX_LOG = 50;

  // summary is one line about an event's payload: its documented fields,
  // never more than a short text.
  function summary(name, p) {
    p = p || {};
    switch (name) {
      case "view":
      case "navigate":
        return p.path || "";
      case "dashboard-loaded":
        return (p.widgetCount !== undefined ? p.widgetCount + " widgets" : "") +
          (p.loadDurationMs !== undefined ? " in " + Math.round(p.loadDurationMs) + " ms" : "");
      case "download":
        return (p.format || "") + " of " + (p.title || p.target || "") +
          (p.rowCount !== undefined ? " (" + p.rowCount + " rows)" : "");
      case "drilldown":
        return (p.member || "") + " = " + (p.value === undefined ? "" : String(p.value));
      case "ai-query":
        return (p.status || "") + ": " + (p.query || "");
      case "error":
        return (p.fatal ? "fatal: " : "") + (p.message || "");
      case "renew-failed":
        return p.message || "";
      default:
        return "";
    }
  }

  // logTime formats the time of an event in the viewer's chosen language
  // and time zone (the settings form's selects), as the embeds show
  // theirs; without the form, or with a value the browser does not know,
  // it falls back to the browser's own.
  function logTime(date) {
    var loc = document.getElementById("locale-select");
    var tz = document.getElementById("timezone-select");
    var locale = loc && loc.value ? loc.value : undefined;
    var opts = { timeStyle: "medium" };
    if (tz && tz.value) opts.timeZone = tz.value;
    try {
      return new Intl.DateTimeFormat(locale, opts).format(date);
    } catch (e) {
      try {
        return new Intl.DateTimeFormat(locale, { timeStyle: "medium" }).format(date);
      } catch (e2) {
        return date.toLocaleTimeString();
      }
    }
  }

  function initEventLog(list) {
    LOGGED.forEach(function (name) {
      onEmbed(name, function (detail) {
        var li = document.createElement("li");
        li.className = "event-log-item";
        li.setAttribute("data-event", name);
        var when = document.createElement("time");
        var now = new Date();
        when.setAttribute("datetime", now.toISOString());
        when.textContent = logTime(now);
        var what = document.createElement("strong");
        what.textContent = name;
        li.appendChild(when);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(what);
        var text = summary(name, detail.payload);
        if (text) li.appendChild(document.createTextNode(" " + text));
        list.insertBefore(li, list.firstChild);
        while (list.children.length > MAX_LOG) list.removeChild(list.lastChild);
      });
    });
  }

  var eventLog = document.getElementById("event-log");
  if (eventLog) initEventLog(eventLog);

  // ---- header menus -------------------------------------------------------

  function openMenus() {
    return Array.prototype.slice.call(
      document.querySelectorAll("details.account-menu[open], details.nav-menu[open]"));
  }

  document.addEventListener("click", function (event) {
    openMenus().forEach(function (menu) {
      if (!menu.contains(event.target)) menu.removeAttribute("open");
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openMenus().forEach(function (menu) {
      menu.removeAttribute("open");
      var summary = menu.querySelector("summary");
      if (summary && menu.contains(document.activeElement)) summary.focus();
    });
  });

  // ---- start --------------------------------------------------------------

  function start() {
    var form = document.getElementById("settings");
    if (form) initSettings(form);
    var bar = document.getElementById("filter-bar");
    if (bar) initFilterBar(bar);
    var s = statusParts();
    if (s && s.el.dataset.state === "loading") {
      slowTimer = setTimeout(function () {
        if (s.el.dataset.state === "loading") {
          setEmbedStatus("slow", ["Still connecting…"]);
        }
      }, SLOW_AFTER_MS);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
