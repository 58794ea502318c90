// A host page that imports the npm package @embedkit/host, type-checked
// with tsc --strict by TestHostScriptTypesCheck (tsconfig.json maps the
// package name to hostpage/index.d.ts). The @ts-expect-error lines must
// stay errors: they prove the module declarations are strict enough.
import { configure, frame, frames, setLocale, version, type Frame, type FrameEvent, type Settings } from "@embedkit/host";

const settings: Settings = { platformOrigin: "https://acme.example.com", framePrefix: "/embed/frame/" };
configure(settings);
const v: string = version;

const sales: Frame = frame("#sales");
sales.on("drilldown", (e: FrameEvent<"drilldown">) => console.log(e.payload.member, e.payload.value, v));
sales.on("version-mismatch", (e) => console.log(e.payload.packageVersion, e.payload.kitVersion));
const all: Frame[] = frames();
setLocale("de-DE");
const el = document.querySelector("embedkit-frame");
if (el) el.setTheme({ primaryColor: "#0b5fff" });
document.addEventListener("embedkit:ready", (e) => console.log(e.detail.payload.surface, all.length));

// @ts-expect-error: platformOrigin is required
configure({ sessionURL: "/embed/session" });
// @ts-expect-error: not an event
sales.on("content-height", () => {});
// @ts-expect-error: the module has no global embedkit of its own
embedkit.frame("#sales");
