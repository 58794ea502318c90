// Requests to the kit's own endpoints (the frame endpoint's HEAD probe,
// the JSON session endpoint): a fetch with a timeout, and what an answer
// means.



export var REQUEST_TIMEOUT_MS = 10000;

export function absolute(url) {
  try {
    return new URL(url, document.baseURI);
  } catch (e) {
    return null;
  }
}

// timedFetch fetches url with init and calls answered(res), or failed()
// on a network error, or late(cancel) when no answer came within
// REQUEST_TIMEOUT_MS. It returns cancel, which stops the timer and aborts
// the fetch.
export function timedFetch(url, init, answered, failed, late) {
  var ctl = typeof AbortController === "function" ? new AbortController() : null;
  if (ctl) init.signal = ctl.signal;
  var timer = setTimeout(function () { late(cancel); }, REQUEST_TIMEOUT_MS);
  function cancel() {
    clearTimeout(timer);
    if (ctl) ctl.abort();
  }
  var p;
  try {
    p = fetch(url, init);
  } catch (err) {
    p = Promise.reject(err);
  }
  p.then(function (res) {
    clearTimeout(timer);
    answered(res);
  }, function () {
    clearTimeout(timer);
    failed();
  });
  return cancel;
}

// headInit is the fetch init of a HEAD request to the frame endpoint,
// which checks the viewer without minting.
export function headInit() {
  return { method: "HEAD", credentials: "same-origin", redirect: "manual", cache: "no-store" };
}

// classify names what the frame or session endpoint's answer says:
// "signed-out" (401, or a redirect, which is the login page for browsers
// that send no fetch metadata), "refused-origin" (403), "unavailable"
// (5xx, 408 or 429: try again later), "rejected" (another 4xx), "ok"
// (2xx) or "unexpected" (anything else).
export function classify(res) {
  var status = res.status;
  if (res.type === "opaqueredirect" || status === 401) return "signed-out";
  if (status >= 200 && status < 300) return "ok";
  if (status === 403) return "refused-origin";
  if (status >= 500 || status === 408 || status === 429) return "unavailable";
  if (status >= 400) return "rejected";
  return "unexpected";
}

export function header(res, name) {
  return res.headers && typeof res.headers.get === "function" ? res.headers.get(name) : null;
}
