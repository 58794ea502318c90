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

/**
 * `cube:event:session-expiring`: the frame's token nears its end. It
 * comes from a best-effort timer in the embedded page: it may arrive late
 * or after `session-expired`. The kit renews the frame's session in place
 * (`cube:action:set-session`, which the kit sends itself; no method sends
 * it). The docs name no payload fields: rely on none.
 */
export interface SessionExpiringPayload {
  // No documented fields.
}

/**
 * `cube:event:session-expired`: the embedded page no longer trusts its
 * token (about 23 h after the exchange). The kit renews in place, as for
 * `session-expiring`; both events for one token make one renewal. The
 * docs name no payload fields: rely on none.
 */
export interface SessionExpiredPayload {
  // No documented fields.
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
  "session-expiring": SessionExpiringPayload;
  "session-expired": SessionExpiredPayload;
}

// ---- the kit's own events (embedkit:*) ------------------------------------

/**
 * The frame has a new session. In place (inPlace: true): the kit posted
 * `cube:action:set-session` and the frame reported no error within 5 s
 * (no event confirms it); the frame kept its document, its state and the
 * settings made through the script. By reload (inPlace: false): the frame
 * is ready again after the kit loaded it with a new session, and the
 * settings were sent again.
 */
export interface SessionRenewedPayload {
  /**
   * expiring: `session-expiring`, the tab becoming visible near the
   * token's end, or the fallback timer; expired: `session-expired`;
   * error: after a fatal error event; reload: reload(); missed-ready: the
   * frame held the platform's page before the script listened and
   * reported no ready within 10 s (the platform sends ready once, at
   * mount), so the kit loaded it again to hear one.
   */
  reason: "expiring" | "expired" | "error" | "reload" | "missed-ready";
  /** Whether the frame kept its document (set-session) or loaded again. */
  inPlace: boolean;
}

/**
 * The viewer is signed out. Either this tab's frame or session endpoint
 * answered 401 (`status`), or the viewer logged out in this tab or another
 * tab of the same origin (`reason: "logout"`: a form marked
 * data-embedkit-logout was submitted, or a page called signedOut()); then
 * the frame's page has been replaced by about:blank.
 */
export interface SessionEndedPayload {
  /** Set when an endpoint answered 401 to this tab. */
  status?: 401;
  /** Set when a logout in this or another tab ended the frame. */
  reason?: "logout";
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

/**
 * The frame's first load did not report ready in time (30 s, or
 * data-embedkit-ready-timeout): the reason comes from a HEAD probe of the
 * frame endpoint. Also warned on the console.
 */
export interface LoadFailedPayload {
  /**
   * signed-out: 401 (the frame's state is ended, and session-ended fires
   * too); refused-origin: 403; unavailable: 5xx, 408, 429 or no answer;
   * rejected: another 4xx; never-ready: the endpoint answers, so the
   * embed itself was blocked (a Content-Security-Policy or
   * X-Frame-Options) or failed.
   */
  reason: LoadFailure;
  status?: number;
  message: string;
}

/** The kit's own events. */
export interface KitEvents {
  "session-renewed": SessionRenewedPayload;
  "session-ended": SessionEndedPayload;
  "renew-failed": RenewFailedPayload;
  "load-failed": LoadFailedPayload;
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
  /**
   * A frozen copy with null-prototype objects: no listener can change what
   * the kit decides on or what another listener sees. Its text comes from
   * the embedded page: treat it as untrusted (never as HTML).
   */
  readonly payload: Readonly<Events[N]>;
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

/** A member such as "sales.region". */
export type Member = `${string}.${string}`;
export type FilterScalar = string | number | boolean;
/** A value, a non-empty list of values (equals any), or null to clear the filter. */
export type FilterValue = FilterScalar | readonly FilterScalar[] | null;

/**
 * The documented actions that a frame and the page as a whole take. An
 * action sent before the frame is ready waits in a queue and is sent once
 * it is. Each returns a promise: the protocol has no acknowledgement, so a
 * setting's promise resolves when the message is posted to a ready frame;
 * refresh's when the next `dashboard-loaded` arrives. A frame that ends or
 * fails rejects what is pending with a {@link FrameError}. Page-wide, the
 * promise settles when every frame's has.
 */
export interface Actions {
  /** `cube:action:set-locale` {locale}, e.g. "de-DE". */
  setLocale(locale: string): Promise<void>;
  /**
   * `cube:action:set-timezone` {timezone}, an IANA name. The platform's
   * docs reference this action without cataloguing it: an extra only.
   */
  setTimezone(timeZone: string): Promise<void>;
  /** `cube:action:set-theme`, the theme object as the payload. */
  setTheme(theme: Theme): Promise<void>;
  /** `cube:action:set-color-scheme` {scheme}. */
  setColorScheme(scheme: ColorScheme): Promise<void>;
  /**
   * `cube:action:set-filter` {filterUrlParameter: `f_<member>=<percent-encoded {"value": value}>`}.
   * A viewer-side control, not security.
   */
  setFilter(member: Member, value: FilterValue): Promise<void>;
  /** `cube:action:refresh`. Resolves with the next `dashboard-loaded` event. */
  refresh(): Promise<FrameEvent<"dashboard-loaded">>;
}

/** A frame's state: also its iframe's `data-embedkit-state` (and `aria-busy="true"` while loading or renewing). */
export type FrameState = "loading" | "ready" | "renewing" | "ended" | "failed";

/** The settings the host made through the script: `frame.settings()`. */
export interface HostSettings {
  readonly locale?: string;
  readonly timezone?: string;
  readonly theme?: Theme;
  readonly colorScheme?: ColorScheme;
}

/** What a frame handle and an `<embedkit-frame>` element offer. */
export interface FrameMethods extends Actions {
  /**
   * Adds a listener (once per name and function); returns a function that
   * removes it. A `ready` listener added once the frame is ready gets the
   * last ready event at once (in a microtask).
   */
  on<N extends EventName>(name: N, listener: Listener<N>): () => void;
  on(name: "*", listener: AnyListener): () => void;
  off<N extends EventName>(name: N, listener: Listener<N>): void;
  off(name: "*", listener: AnyListener): void;
  /**
   * `cube:action:navigate` {path}: one of the platform's embed path forms,
   * such as "/embed/dashboard/sales" (no query, fragment, encoded slash or
   * dot segment). Resolves with the `view` or `navigate` event of that path.
   */
  navigate(path: `/embed/${string}`): Promise<FrameEvent<"view"> | FrameEvent<"navigate">>;
  /**
   * The filters the host set through the script, by member (cleared ones
   * left out). The host's view only: the platform sends no event when the
   * viewer changes a filter inside the embed.
   */
  filters(): Readonly<Record<string, FilterScalar | readonly FilterScalar[]>>;
  /** The locale, time zone, theme and colour scheme the host set through the script. */
  settings(): HostSettings;
  /**
   * Loads the frame again with a new session. A renewal already under way
   * (in place, after `session-expiring` or `session-expired`) takes the
   * call over instead: one new session for all. Resolves with the ready
   * event (the frame's current one, after a renewal in place); rejects
   * with a ReloadError on sign-out or when renewal gives up.
   */
  reload(): Promise<FrameEvent<"ready">>;
  /**
   * Switches the frame to another target (a registered target name or a
   * frame path such as "dashboard/ops"). In place, with
   * `cube:action:navigate` and no new session, when the frame is ready
   * and the kit's settings (`Kit.HostSettings().Targets`, computed by the
   * server) list both targets with equal grant and pinned tags; the old
   * target's filters are then cleared and the new one's presets sent as
   * `set-filter` once the embed reports the move, and `ready` does not
   * fire again. Otherwise, or when the move fails (an error event, or no
   * `dashboard-loaded` within the ready timeout; once), a new frame: its
   * src becomes the kit's frame endpoint for the target, which mints.
   * Resolves with the new dashboard's `dashboard-loaded` event (with the
   * last one at once when the frame shows the target already); rejects
   * with a {@link FrameError}: "superseded" by a later switch, "refused"
   * when the new frame's embed reports a fatal error instead, or as a
   * failed load does.
   */
  show(target: string): Promise<FrameEvent<"dashboard-loaded"> | null>;
}

/** What a frame's state tells, read from the handle or the `<embedkit-frame>`. */
export interface FrameStatus {
  /** The frame's state now. */
  readonly state: FrameState;
  /**
   * A promise of the current ready event: resolved once the frame is
   * ready, replaced by a new one when the frame reloads, rejected with a
   * {@link FrameError} when it ends or fails.
   */
  readonly ready: Promise<FrameEvent<"ready">>;
  /** The last `view` payload, or null. */
  readonly view: Readonly<ViewPayload> | null;
}

/** What a frame handle tells of the target it shows. */
export interface FrameTarget {
  /** The target the frame shows (its `data-embedkit-target`), or null. */
  readonly target: string | null;
}

/** The handle of one managed frame: `embedkit.frame(el)`. */
export interface Frame extends FrameMethods, FrameStatus, FrameTarget {
  readonly element: HTMLIFrameElement;
}

/** How reload() fails. */
export interface ReloadError extends Error {
  name: "EmbedkitReloadError";
  reason: "session-ended" | "renew-failed" | "released" | "superseded";
  status?: number;
}

/** Why a frame's first load failed: the `load-failed` event's reason. */
export type LoadFailure = "signed-out" | "refused-origin" | "unavailable" | "rejected" | "never-ready";

/** How pending actions and `frame.ready` fail when the frame ends or fails. */
export interface FrameError extends Error {
  name: "EmbedkitFrameError";
  reason: "session-ended" | "renew-failed" | LoadFailure | "released" | "superseded" | "refused";
  status?: number;
}

/** The page-wide API (window.embedkit for the served script). Its actions reach every managed frame, and frames added later. */
export interface Api extends Actions {
  /** The handle of an `<iframe data-embedkit>` or `<embedkit-frame>`, or of the one a selector names. */
  frame(element: Element | string): Frame;
  frames(): Frame[];
  release(frame: Frame | Element | string): boolean;
  debug(on: boolean): void;
  signedOut(): void;
  readonly version: string;
}

/**
 * `<embedkit-frame target="sales" [src] [title] [fit] [min-height] [max-height]
 * [renew-after] [ready-timeout] [debug] [loading] [allow] ...>`. src, when
 * given, must be a same-origin path under the kit's frame endpoint.
 * renew-after (data-embedkit-renew-after on an iframe) is for the fallback
 * renewal only, on a platform that does not renew sessions in place: the
 * ms after the frame's load started (the earliest its session can have
 * been exchanged) at which the kit loads it again with a new session;
 * default 23 h minus 5 min, at least 5 min. Where the platform sends
 * `session-expiring` or `session-expired`, the kit renews in place on
 * them and the frame keeps its document. A new target attribute (or
 * show(target), which sets it) switches the frame as {@link FrameMethods.show}
 * does: in place where the kit's settings allow it.
 */
export interface FrameElement extends HTMLElement, FrameMethods, FrameStatus {
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
  "embedkit:session-expiring": CustomEvent<FrameEvent<"session-expiring">>;
  "embedkit:session-expired": CustomEvent<FrameEvent<"session-expired">>;
  "embedkit:session-renewed": CustomEvent<FrameEvent<"session-renewed">>;
  "embedkit:session-ended": CustomEvent<FrameEvent<"session-ended">>;
  "embedkit:renew-failed": CustomEvent<FrameEvent<"renew-failed">>;
  "embedkit:load-failed": CustomEvent<FrameEvent<"load-failed">>;
  "embedkit:version-mismatch": CustomEvent<FrameEvent<"version-mismatch">>;
}
// ---- the API ----------------------------------------------------------------

/** This package's version; the kit's host script version is the same for a matching pair. */
export const version: string;

/** The handle of an `<iframe data-embedkit>` or `<embedkit-frame>`, or of the one a selector names; the same object each time. */
export function frame(element: Element | string): Frame;
/** The handles of every managed frame of the page. */
export function frames(): Frame[];
/**
 * Stops managing a frame that the page or a component removes: its timers
 * stop, its probe is aborted, its listeners are dropped, what waits on it
 * is rejected (reason "released") and its handle stops working. Reports
 * whether there was a frame to release. A frame still in the page with
 * data-embedkit is managed again, as new, at the next scan.
 */
export function release(frame: Frame | Element | string): boolean;
/**
 * Debug mode for the page: every message from a frame is logged to the
 * console as accepted or dropped, with the reason (wrong origin, wrong
 * source, wrong direction, unknown type, unmanaged frame); type and origin
 * only, never the payload. `data-embedkit-debug` on an iframe (`debug` on
 * `<embedkit-frame>`) does it for that frame.
 */
export function debug(on: boolean): void;
/**
 * Tells every tab of this origin that the viewer has logged out, for a
 * page that does not submit a form marked `data-embedkit-logout` (a
 * single-page app that logs out by fetch). The frames of this tab and of
 * the others end at once: state `ended`, `session-ended` with
 * `{reason: "logout"}`, the frame's page replaced by about:blank, no
 * request or timer left. The message, on a BroadcastChannel named
 * "embedkit" (and a localStorage fallback), carries no session id or
 * subject, and never reaches another origin. Call it when logout starts:
 * if the logout request then fails, the frames stay ended (fail closed)
 * until the page is reloaded. Works before configure(); does nothing
 * without a DOM.
 */
export function signedOut(): void;
/** `cube:action:set-locale` to every managed frame, and to frames added later. */
export function setLocale(locale: string): Promise<void>;
/** `cube:action:set-timezone` (an optional extra) to every managed frame, and to frames added later. */
export function setTimezone(timeZone: string): Promise<void>;
/** `cube:action:set-theme` to every managed frame, and to frames added later. */
export function setTheme(theme: Theme): Promise<void>;
/** `cube:action:set-color-scheme` to every managed frame, and to frames added later. */
export function setColorScheme(scheme: ColorScheme): Promise<void>;
/** `cube:action:set-filter` to every managed frame, and to frames added later. */
export function setFilter(member: Member, value: FilterValue): Promise<void>;
/** `cube:action:refresh` to every managed frame; resolves once each has sent `dashboard-loaded`. */
export function refresh(): Promise<void>;

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
  /**
   * HostSettings.Targets: the registered targets whose frames may move
   * between one another in place, by name and by frame path. Render them
   * from the server; the script only compares the tags it is given.
   */
  targets?: Readonly<Record<string, TargetInfo>>;
}

/** One entry of {@link Settings.targets} (middleware.HostTarget). */
export interface TargetInfo {
  /** The embed path navigate takes, "/embed/dashboard/{publicId}" or "/embed/d/{deploymentId}/dashboard/{publicId}". */
  path: string;
  /** Equal for two targets exactly when the kit mints them with one request. Opaque. */
  grant: string;
  /** Equal for two targets exactly when their URL-only parameters agree. Opaque. */
  pinned: string;
  /** The target's preset filters as set-filter parameters, f_<member>=<percent-encoded JSON>. */
  filters?: readonly string[];
}

/**
 * Sets the kit's settings and starts managing the page's frames. Without
 * it, the module reads `<meta name="embedkit" content="<JSON of Kit.HostSettings()>">`.
 * Throws a TypeError naming a bad setting; throws when called again with
 * other settings.
 */
export function configure(settings: Settings): void;

/** The settings the page's frames are managed with, every field filled in. */
export interface ConfiguredSettings {
  readonly platformOrigin: string;
  readonly sessionURL: string;
  readonly framePrefix: string;
  readonly version: string | null;
}

/**
 * The settings configure() (or the page's `<meta name="embedkit">`) gave,
 * as a frozen copy, or null before either; never throws, and touches
 * nothing without a DOM.
 */
export function configured(): ConfiguredSettings | null;
// </module-only>

declare global {
  interface HTMLElementTagNameMap {
    "embedkit-frame": FrameElement;
  }

  interface HTMLElementEventMap extends DomEvents {}
  interface DocumentEventMap extends DomEvents {}
  interface WindowEventMap extends DomEvents {}
}
