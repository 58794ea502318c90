// embedkit host script. Served by the kit (Kit.HostScript) with the
// platform origin and the session endpoint filled in; no dependencies.
//
// It looks after every <iframe data-embedkit> on the page: when an embed
// says its session is expiring it asks the kit's session endpoint for a new
// one (data-embedkit-target names the target, data-embedkit-session-url
// overrides the endpoint) and hands it to that embed. It dispatches
// "embedkit:ready" and "embedkit:session-ended" on the iframe element, and
// window.embedkit.setLocale/setTimezone/setColorScheme/setTheme send those
// settings to every embed.
(function () {
  "use strict";
  var config = /*EMBEDKIT_CONFIG*/ {};
  var ORIGIN = config.platformOrigin;
  var SOURCE = "platform-embed";
  var renewing = new WeakSet();

  function frames() {
    return Array.prototype.slice.call(document.querySelectorAll("iframe[data-embedkit]"));
  }

  function frameOf(win) {
    var list = frames();
    for (var i = 0; i < list.length; i++) {
      if (list[i].contentWindow === win) return list[i];
    }
    return null;
  }

  function post(frame, type, payload) {
    if (!frame.contentWindow) return;
    frame.contentWindow.postMessage({
      source: SOURCE,
      direction: "action",
      type: type,
      payload: payload || {},
      timestamp: Date.now()
    }, ORIGIN);
  }

  function broadcast(type, payload) {
    frames().forEach(function (frame) { post(frame, type, payload); });
  }

  function emit(frame, name, detail) {
    frame.dispatchEvent(new CustomEvent(name, { bubbles: true, detail: detail || {} }));
  }

  function renew(frame) {
    if (renewing.has(frame)) return;
    var target = frame.getAttribute("data-embedkit-target");
    var url = frame.getAttribute("data-embedkit-session-url") || config.sessionURL;
    if (!target) {
      emit(frame, "embedkit:session-ended", { reason: "no-target" });
      return;
    }
    renewing.add(frame);
    fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ target: target })
    }).then(function (res) {
      if (!res.ok) throw new Error("session endpoint answered " + res.status);
      return res.json();
    }).then(function (body) {
      post(frame, "platform:action:renew-session", { sessionId: body.sessionId });
    }).catch(function () {
      emit(frame, "embedkit:session-ended", { reason: "renew-failed" });
    }).then(function () {
      renewing.delete(frame);
    });
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== ORIGIN) return;
    var msg = event.data;
    if (!msg || typeof msg !== "object" || msg.source !== SOURCE) return;
    var frame = frameOf(event.source);
    if (!frame) return;
    switch (msg.type) {
      case "platform:event:ready":
        emit(frame, "embedkit:ready", msg.payload);
        break;
      case "platform:event:session-expiring":
        renew(frame);
        break;
      case "platform:event:session-expired":
      case "platform:event:session-ended":
        emit(frame, "embedkit:session-ended", { reason: "expired" });
        break;
    }
  });

  window.embedkit = {
    setLocale: function (locale) {
      broadcast("platform:action:set-locale", { locale: String(locale) });
    },
    setTimezone: function (timezone) {
      broadcast("platform:action:set-timezone", { timezone: String(timezone) });
    },
    setColorScheme: function (scheme) {
      broadcast("platform:action:set-color-scheme", { scheme: String(scheme) });
    },
    setTheme: function (theme) {
      broadcast("platform:action:set-theme", Object.assign({}, theme));
    }
  };
})();
