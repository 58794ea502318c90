// Ledgerly page script. No dependencies and no build step; the pages work
// without it. It:
//   - applies display settings to the embedded dashboards as soon as they
//     change (through window.embedkit, defined by the kit's host script)
//     and saves them in the background;
//   - shows the embed's state in #embed-status from the "embedkit:ready"
//     and "embedkit:session-ended" events the host script dispatches on
//     the iframe;
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

  document.addEventListener("embedkit:ready", function (event) {
    if (!isEmbed(event.target)) return;
    clearTimeout(slowTimer);
    setEmbedStatus("live", ["Live"]);
  });

  document.addEventListener("embedkit:session-ended", function (event) {
    if (!isEmbed(event.target)) return;
    clearTimeout(slowTimer);
    setEmbedStatus("ended", ["Session ended — ", signInLink()]);
  });

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
