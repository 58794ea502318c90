// A host page written against hostscript.d.ts, type-checked with
// tsc --strict by TestHostScriptTypesCheck. The @ts-expect-error lines
// must stay errors: they prove the declarations are strict enough.
/// <reference path="../../hostscript.d.ts" />
export {}; // a module: its names stay its own

const sales: embedkit.Frame = embedkit.frame("#sales");
const iframe: HTMLIFrameElement = sales.element;

const stop = sales.on("dashboard-loaded", (e) => {
  const widgets: number | undefined = e.payload.widgetCount;
  const type: "cube:event:dashboard-loaded" = e.type;
  console.log(`${widgets ?? 0} widgets in ${e.payload.loadDurationMs ?? 0} ms`, type, e.surface, e.timestamp);
});
stop();

sales.on("drilldown", (e) => console.log(e.payload.member, e.payload.value, e.payload.widgetId));
sales.on("download", (e) => {
  const format: "csv" | "xlsx" | "png" | "pdf" = e.payload.format;
  console.log(format, e.payload.rowCount);
});
sales.on("ready", function (e) {
  const tenant: string | null = e.payload.embedTenant;
  const same: embedkit.Frame = this;
  console.log(tenant, e.payload.deploymentId, e.payload.mode, same.element.id);
});
sales.on("view", (e) => console.log(e.payload.path, e.payload.surface));
sales.on("navigate", (e) => console.log(e.payload.path, e.payload.previousPath));
sales.on("ai-query", (e) => console.log(e.payload.query, e.payload.status === "completed"));
sales.on("error", (e) => {
  if (e.payload.fatal && e.payload.context !== "embed-render") console.log("the kit renews this frame");
});
sales.on("session-ended", (e) => {
  const status: 401 | undefined = e.payload.status;
  const reason: "logout" | undefined = e.payload.reason;
  const type: "embedkit:session-ended" = e.type;
  console.log(status, reason, type);
  location.assign("/login");
});
sales.on("session-renewed", (e) => {
  const inPlace: boolean = e.payload.inPlace;
  const reason: "expiring" | "expired" | "error" | "reload" | "missed-ready" = e.payload.reason;
  console.log(reason, inPlace);
});
sales.on("session-expiring", (e) => console.log(e.type === "cube:event:session-expiring"));
sales.on("session-expired", (e) => console.log(e.type === "cube:event:session-expired"));
iframe.addEventListener("embedkit:session-expired", (e) => console.log(e.detail.name));
sales.on("renew-failed", (e) => {
  const retry: number | null = e.payload.retryInMs;
  console.log(e.payload.status, e.payload.message, e.payload.attempt, retry);
});

function logAll(e: embedkit.AnyFrameEvent): void {
  if (e.name === "drilldown") {
    console.log(e.payload.member);
  } else if (e.name === "renew-failed") {
    console.log(e.payload.attempt);
  }
}
sales.on("*", logAll);
sales.off("*", logAll);

sales.setFilter("orders.status", "completed");
sales.setFilter("orders.amount", 100);
sales.setFilter("orders.paid", true);
sales.setFilter("orders.status", ["completed", "shipped"]);
sales.setFilter("orders.status", null);
sales.setLocale("de-DE");
sales.setTimezone("Europe/Berlin");
sales.setTheme({ primaryColor: "#0b5fff", font: "Inter", borderRadius: 6 });
sales.setColorScheme("dark");
sales.navigate("/embed/dashboard/regional-performance");
sales.refresh().then((loaded) => {
  const widgets: number | undefined = loaded.payload.widgetCount;
  const name: "dashboard-loaded" = loaded.name;
  console.log(widgets, name);
});
sales
  .reload()
  .then((ready) => console.log(ready.payload.surface))
  .catch((err: embedkit.ReloadError) => console.log(err.reason, err.status));

embedkit.setLocale("fr-FR");
embedkit.setTimezone("UTC");
embedkit.setTheme({ primaryColor: "#123456" });
embedkit.setColorScheme("auto");
embedkit.setFilter("sales.region", "EMEA");
embedkit.refresh();
// A single-page app that logs out by fetch tells every tab.
const done: void = embedkit.signedOut();
console.log(done);
const all: embedkit.Frame[] = embedkit.frames();
console.log(all.length, iframe.src, window.embedkit === embedkit);

const el = document.createElement("embedkit-frame");
el.setAttribute("target", "sales");
document.body.appendChild(el);
el.on("ready", (e) => console.log(e.payload.publicId));
el.setFilter("sales.region", "APAC");
const handle: embedkit.Frame = el.frame;
console.log(handle === embedkit.frame(el));

iframe.addEventListener("embedkit:drilldown", (e) => console.log(e.detail.payload.member));
document.addEventListener("embedkit:renew-failed", (e) => console.log(e.detail.payload.retryInMs));
window.addEventListener("embedkit:session-ended", (e) => console.log(e.detail.payload.status));

// @ts-expect-error not an event name
sales.on("content-height", () => {});
// @ts-expect-error the session events name no payload fields
sales.on("session-expiring", (e) => console.log(e.payload.sessionId));
// @ts-expect-error refresh resolves with dashboard-loaded, not ready
sales.refresh().then((e) => console.log(e.payload.embedTenant));
// @ts-expect-error not a color scheme
sales.setColorScheme("blue");
// @ts-expect-error a member is view.member
sales.setFilter("status", "completed");
// @ts-expect-error filter values are scalars
sales.setFilter("orders.status", { value: "completed" });
// @ts-expect-error a filter needs its value (null clears)
sales.setFilter("orders.status");
// @ts-expect-error navigate takes an in-embed path
sales.navigate("embed/dashboard/x");
// @ts-expect-error navigate is a frame's own, not page-wide
embedkit.navigate("/embed/dashboard/x");
// @ts-expect-error drilldown has no widgetCount
sales.on("drilldown", (e) => console.log(e.payload.widgetCount));
// @ts-expect-error the element is read-only
sales.element = document.createElement("iframe");

// Switching a frame to another target: in place where the kit allows it.
sales.show("ops").then((e) => {
  if (e !== null) console.log(e.payload.publicId, e.type === "cube:event:dashboard-loaded");
}, (err: embedkit.FrameError) => console.log(err.reason === "superseded" || err.reason === "refused"));
const shown: string | null = sales.target;
console.log(shown);
// @ts-expect-error show takes a target name or path
sales.show(42);
void el.show("ops").then((e) => console.log(e?.payload.widgetCount));
