// TypeScript declarations of @embedkit/host, the embedkit host page as an
// ES module:
//
//   import { configure, frame, type FrameEvent } from "@embedkit/host";
//   configure({ platformOrigin: "https://acme.example.com" });
//   frame("#sales").on("drilldown", (e: FrameEvent<"drilldown">) => show(e.payload.member));
//
// The global script the kit serves (Kit.HostScript) has the same API as
// window.embedkit; its declarations (Kit.HostScriptTypes) are generated
// from this file by internal/hostbuild: everything below the next line
// becomes the namespace `embedkit`, except what is marked module-only.
// Event payloads follow the platform's documented postMessage catalog
// (testdata/embed-protocol.json); the kit's tests keep the two in step.
// ---- declarations ----
/** The embedded surface an event comes from. */
export type Surface = "dashboard" | "app" | "chat";

// ---- the platform's documented events (cube:event:*) -----------------------

/** `cube:event:ready`: once per session, when the embed has mounted. */
export interface ReadyPayload {
  embedTenant: string | null;
  deploymentId: number | null;
  mode: "signed" | "private";
  surface: Surface;
  publicId?: string;
}

/** `cube:event:view`: the embed shows a view (at mount and after each navigation). */
export interface ViewPayload {
  surface: Surface;
  path: string;
  publicId?: string;
  title?: string;
}

/** `cube:event:navigate`: an in-embed navigation. */
export interface NavigatePayload {
  path: string;
  previousPath?: string;
}

/** `cube:event:dashboard-loaded`: a dashboard's widgets have rendered. */
export interface DashboardLoadedPayload {
  publicId?: string;
  widgetCount?: number;
  loadDurationMs?: number;
}

/** `cube:event:download`: the viewer downloaded data; never the rows themselves. */
export interface DownloadPayload {
  format: "csv" | "xlsx" | "png" | "pdf";
  target: "widget" | "dashboard";
  widgetId?: string;
  title?: string;
  rowCount?: number;
}

/** `cube:event:drilldown`: the viewer drilled into a value. */
export interface DrilldownPayload {
  member: string;
  value?: unknown;
  widgetId?: string;
}

/** `cube:event:ai-query`: a question to the embedded chat. */
export interface AiQueryPayload {
  query: string;
  status: "submitted" | "completed" | "error";
  chatId?: string;
  agentId?: string;
}

/**
 * `cube:event:error`. A fatal error whose context is not "embed-render"
 * makes the kit load the frame with a new session.
 */
export interface ErrorPayload {
  message: string;
  name?: string;
  context?: string;
  fatal?: boolean;
}

/** The platform's documented events by the kit's name (the type without `cube:event:`). */
export interface PlatformEvents {
  "ready": ReadyPayload;
  "view": ViewPayload;
  "navigate": NavigatePayload;
  "dashboard-loaded": DashboardLoadedPayload;
  "download": DownloadPayload;
  "drilldown": DrilldownPayload;
  "ai-query": AiQueryPayload;
  "error": ErrorPayload;
}

// ---- the kit's own events (embedkit:*) ------------------------------------

/** The frame is ready again after the kit loaded it with a new session. */
export interface SessionRenewedPayload {
  /** expiring: the timed renewal; error: after a fatal error event; reload: reload(). */
  reason: "expiring" | "error" | "reload";
}

/** The frame endpoint or the session endpoint said the viewer is signed out. */
export interface SessionEndedPayload {
  status: 401;
}

/** One renewal attempt failed. */
export interface RenewFailedPayload {
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  message: string;
  /** The attempt's number within this renewal, from 1. */
  attempt: number;
  /** When the next attempt runs; null: the kit gave up. */
  retryInMs: number | null;
}

/**
 * The kit serving the page has another host script version than this
 * package (from the settings, or the frame endpoint's Embedkit-Version
 * header); also warned on the console, once.
 */
export interface VersionMismatchPayload {
  packageVersion: string;
  kitVersion: string;
}

/** The kit's own events. */
export interface KitEvents {
  "session-renewed": SessionRenewedPayload;
  "session-ended": SessionEndedPayload;
  "renew-failed": RenewFailedPayload;
  "version-mismatch": VersionMismatchPayload;
}

/** Every event a frame handle reports, by name. */
export interface Events extends PlatformEvents, KitEvents {}

export type PlatformEventName = keyof PlatformEvents;
export type KitEventName = keyof KitEvents;
export type EventName = keyof Events;

/** What a listener receives, and the `detail` of the DOM event. */
export interface FrameEvent<N extends EventName = EventName> {
  readonly name: N;
  /** The wire type: `cube:event:<name>`, or `embedkit:<name>` for the kit's own. */
  readonly type: N extends KitEventName ? `embedkit:${N}` : `cube:event:${N}`;
  readonly payload: Events[N];
  /** The event's surface; for the kit's own events the frame's last known one. */
  readonly surface: Surface | null;
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

/** Any event, narrowed by its `name`. */
export type AnyFrameEvent = { [N in EventName]: FrameEvent<N> }[EventName];

export type Listener<N extends EventName> = (this: Frame, event: FrameEvent<N>) => void;
export type AnyListener = (this: Frame, event: AnyFrameEvent) => void;

// ---- actions --------------------------------------------------------------

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The payload of `cube:action:set-theme` (the platform's EmbedTheme). */
export interface Theme {
  primaryColor?: string;
  font?: string;
  borderRadius?: string | number;
  [key: string]: Json | undefined;
}

export type ColorScheme = "light" | "dark" | "auto";

/** A member such as "orders.status". */
export type Member = `${string}.${string}`;
export type FilterScalar = string | number | boolean;
/** A value, a non-empty list of values (equals any), or null to clear the filter. */
export type FilterValue = FilterScalar | readonly FilterScalar[] | null;

/** The documented actions that a frame and the page as a whole take. */
export interface Actions {
  /** `cube:action:set-locale` {locale}, e.g. "de-DE". */
  setLocale(locale: string): void;
  /**
   * `cube:action:set-timezone` {timezone}, an IANA name. The platform's
   * docs reference this action without cataloguing it: an extra only.
   */
  setTimezone(timeZone: string): void;
  /** `cube:action:set-theme`, the theme object as the payload. */
  setTheme(theme: Theme): void;
  /** `cube:action:set-color-scheme` {scheme}. */
  setColorScheme(scheme: ColorScheme): void;
  /**
   * `cube:action:set-filter` {filterUrlParameter: `f_<member>=<percent-encoded {"value": value}>`}.
   * A viewer-side control, not security.
   */
  setFilter(member: Member, value: FilterValue): void;
  /** `cube:action:refresh`. */
  refresh(): void;
}

/** What a frame handle and an `<embedkit-frame>` element offer. */
export interface FrameMethods extends Actions {
  /** Adds a listener (once per name and function); returns a function that removes it. */
  on<N extends EventName>(name: N, listener: Listener<N>): () => void;
  on(name: "*", listener: AnyListener): () => void;
  off<N extends EventName>(name: N, listener: Listener<N>): void;
  off(name: "*", listener: AnyListener): void;
  /** `cube:action:navigate` {path}, an in-embed path such as "/embed/dashboard/sales". */
  navigate(path: `/${string}`): void;
  /**
   * Loads the frame again with a new session. Resolves with the ready
   * event; rejects with a ReloadError on sign-out or when renewal gives up.
   */
  reload(): Promise<FrameEvent<"ready">>;
}

/** The handle of one managed frame: `embedkit.frame(el)`. */
export interface Frame extends FrameMethods {
  readonly element: HTMLIFrameElement;
}

/** How reload() fails. */
export interface ReloadError extends Error {
  name: "EmbedkitReloadError";
  reason: "session-ended" | "renew-failed";
  status?: number;
}

/** The page-wide API (window.embedkit for the served script). Its actions reach every managed frame, and frames added later. */
export interface Api extends Actions {
  /** The handle of an `<iframe data-embedkit>` or `<embedkit-frame>`, or of the one a selector names. */
  frame(element: Element | string): Frame;
  frames(): Frame[];
  readonly version: string;
}

/** `<embedkit-frame target="sales" [src] [title] [fit] [min-height] [max-height] [renew-after]>`. */
export interface FrameElement extends HTMLElement, FrameMethods {
  readonly frame: Frame;
}

/** The `embedkit:<name>` DOM events, dispatched on the iframe; they bubble. */
export interface DomEvents {
  "embedkit:ready": CustomEvent<FrameEvent<"ready">>;
  "embedkit:view": CustomEvent<FrameEvent<"view">>;
  "embedkit:navigate": CustomEvent<FrameEvent<"navigate">>;
  "embedkit:dashboard-loaded": CustomEvent<FrameEvent<"dashboard-loaded">>;
  "embedkit:download": CustomEvent<FrameEvent<"download">>;
  "embedkit:drilldown": CustomEvent<FrameEvent<"drilldown">>;
  "embedkit:ai-query": CustomEvent<FrameEvent<"ai-query">>;
  "embedkit:error": CustomEvent<FrameEvent<"error">>;
  "embedkit:session-renewed": CustomEvent<FrameEvent<"session-renewed">>;
  "embedkit:session-ended": CustomEvent<FrameEvent<"session-ended">>;
  "embedkit:renew-failed": CustomEvent<FrameEvent<"renew-failed">>;
  "embedkit:version-mismatch": CustomEvent<FrameEvent<"version-mismatch">>;
}
// ---- the API ----------------------------------------------------------------

/** This package's version; the kit's host script version is the same for a matching pair. */
export const version: string;

/** The handle of an `<iframe data-embedkit>` or `<embedkit-frame>`, or of the one a selector names; the same object each time. */
export function frame(element: Element | string): Frame;
/** The handles of every managed frame of the page. */
export function frames(): Frame[];
/** `cube:action:set-locale` to every managed frame, and to frames added later. */
export function setLocale(locale: string): void;
/** `cube:action:set-timezone` (an optional extra) to every managed frame, and to frames added later. */
export function setTimezone(timeZone: string): void;
/** `cube:action:set-theme` to every managed frame, and to frames added later. */
export function setTheme(theme: Theme): void;
/** `cube:action:set-color-scheme` to every managed frame, and to frames added later. */
export function setColorScheme(scheme: ColorScheme): void;
/** `cube:action:set-filter` to every managed frame, and to frames added later. */
export function setFilter(member: Member, value: FilterValue): void;
/** `cube:action:refresh` to every managed frame. */
export function refresh(): void;

// <module-only>
/**
 * The kit's settings for the page, as Kit.HostSettings() returns them on
 * the server (the served script has them filled in).
 */
export interface Settings {
  /** The platform's origin, e.g. "https://acme.example.com": the only origin messages are accepted from and actions posted to. */
  platformOrigin: string;
  /** Config.Paths.Session, a same-origin path; default "/embed/session". */
  sessionURL?: string;
  /** Config.Paths.Frame, a same-origin path ending in "/"; default "/embed/frame/". */
  framePrefix?: string;
  /** The kit's host script version (middleware.HostScriptVersion), checked against this package's. */
  version?: string;
}

/**
 * Sets the kit's settings and starts managing the page's frames. Without
 * it, the module reads `<meta name="embedkit" content="<JSON of Kit.HostSettings()>">`.
 * Throws a TypeError naming a bad setting; throws when called again with
 * other settings.
 */
export function configure(settings: Settings): void;
// </module-only>

declare global {
  interface HTMLElementTagNameMap {
    "embedkit-frame": FrameElement;
  }

  interface HTMLElementEventMap extends DomEvents {}
  interface DocumentEventMap extends DomEvents {}
  interface WindowEventMap extends DomEvents {}
}
