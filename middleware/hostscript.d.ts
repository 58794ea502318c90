// TypeScript declarations of the embedkit host script (served by
// Kit.HostScript, e.g. at /embed/host.js; these by Kit.HostScriptTypes,
// e.g. at /embed/host.d.ts). A global script: reference it and use the
// global `embedkit`, `<embedkit-frame>` and the `embedkit:*` DOM events.
//
//   /// <reference path="./host.d.ts" />
//   const sales = embedkit.frame("#sales");
//   sales.on("drilldown", (e) => show(e.payload.member, e.payload.value));
//   sales.setFilter("orders.status", "completed");
//
// Event payloads follow the platform's documented postMessage catalog
// (testdata/embed-protocol.json); the kit's tests keep the two in step.

declare namespace embedkit {
  /** The embedded surface an event comes from. */
  type Surface = "dashboard" | "app" | "chat";

  // ---- the platform's documented events (cube:event:*) -----------------------

  /** `cube:event:ready`: once per session, when the embed has mounted. */
  interface ReadyPayload {
    embedTenant: string | null;
    deploymentId: number | null;
    mode: "signed" | "private";
    surface: Surface;
    publicId?: string;
  }

  /** `cube:event:view`: the embed shows a view (at mount and after each navigation). */
  interface ViewPayload {
    surface: Surface;
    path: string;
    publicId?: string;
    title?: string;
  }

  /** `cube:event:navigate`: an in-embed navigation. */
  interface NavigatePayload {
    path: string;
    previousPath?: string;
  }

  /** `cube:event:dashboard-loaded`: a dashboard's widgets have rendered. */
  interface DashboardLoadedPayload {
    publicId?: string;
    widgetCount?: number;
    loadDurationMs?: number;
  }

  /** `cube:event:download`: the viewer downloaded data; never the rows themselves. */
  interface DownloadPayload {
    format: "csv" | "xlsx" | "png" | "pdf";
    target: "widget" | "dashboard";
    widgetId?: string;
    title?: string;
    rowCount?: number;
  }

  /** `cube:event:drilldown`: the viewer drilled into a value. */
  interface DrilldownPayload {
    member: string;
    value?: unknown;
    widgetId?: string;
  }

  /** `cube:event:ai-query`: a question to the embedded chat. */
  interface AiQueryPayload {
    query: string;
    status: "submitted" | "completed" | "error";
    chatId?: string;
    agentId?: string;
  }

  /**
   * `cube:event:error`. A fatal error whose context is not "embed-render"
   * makes the kit load the frame with a new session.
   */
  interface ErrorPayload {
    message: string;
    name?: string;
    context?: string;
    fatal?: boolean;
  }

  /** The platform's documented events by the kit's name (the type without `cube:event:`). */
  interface PlatformEvents {
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
  interface SessionRenewedPayload {
    /** expiring: the timed renewal; error: after a fatal error event; reload: reload(). */
    reason: "expiring" | "error" | "reload";
  }

  /** The frame endpoint or the session endpoint said the viewer is signed out. */
  interface SessionEndedPayload {
    status: 401;
  }

  /** One renewal attempt failed. */
  interface RenewFailedPayload {
    /** The HTTP status, when the endpoint answered. */
    status?: number;
    message: string;
    /** The attempt's number within this renewal, from 1. */
    attempt: number;
    /** When the next attempt runs; null: the kit gave up. */
    retryInMs: number | null;
  }

  /** The kit's own events. */
  interface KitEvents {
    "session-renewed": SessionRenewedPayload;
    "session-ended": SessionEndedPayload;
    "renew-failed": RenewFailedPayload;
  }

  /** Every event a frame handle reports, by name. */
  interface Events extends PlatformEvents, KitEvents {}

  type PlatformEventName = keyof PlatformEvents;
  type KitEventName = keyof KitEvents;
  type EventName = keyof Events;

  /** What a listener receives, and the `detail` of the DOM event. */
  interface FrameEvent<N extends EventName = EventName> {
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
  type AnyFrameEvent = { [N in EventName]: FrameEvent<N> }[EventName];

  type Listener<N extends EventName> = (this: Frame, event: FrameEvent<N>) => void;
  type AnyListener = (this: Frame, event: AnyFrameEvent) => void;

  // ---- actions --------------------------------------------------------------

  type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

  /** The payload of `cube:action:set-theme` (the platform's EmbedTheme). */
  interface Theme {
    primaryColor?: string;
    font?: string;
    borderRadius?: string | number;
    [key: string]: Json | undefined;
  }

  type ColorScheme = "light" | "dark" | "auto";

  /** A member such as "orders.status". */
  type Member = `${string}.${string}`;
  type FilterScalar = string | number | boolean;
  /** A value, a non-empty list of values (equals any), or null to clear the filter. */
  type FilterValue = FilterScalar | readonly FilterScalar[] | null;

  /** The documented actions that a frame and the page as a whole take. */
  interface Actions {
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
  interface FrameMethods extends Actions {
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
  interface Frame extends FrameMethods {
    readonly element: HTMLIFrameElement;
  }

  /** How reload() fails. */
  interface ReloadError extends Error {
    name: "EmbedkitReloadError";
    reason: "session-ended" | "renew-failed";
    status?: number;
  }

  /** window.embedkit. Its actions reach every managed frame, and frames added later. */
  interface Api extends Actions {
    /** The handle of an `<iframe data-embedkit>` or `<embedkit-frame>`, or of the one a selector names. */
    frame(element: Element | string): Frame;
    frames(): Frame[];
  }

  /** `<embedkit-frame target="sales" [src] [title] [fit] [min-height] [max-height] [renew-after]>`. */
  interface FrameElement extends HTMLElement, FrameMethods {
    readonly frame: Frame;
  }

  /** The `embedkit:<name>` DOM events, dispatched on the iframe; they bubble. */
  interface DomEvents {
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
  }
}

declare var embedkit: embedkit.Api;

interface Window {
  readonly embedkit: embedkit.Api;
}

interface HTMLElementTagNameMap {
  "embedkit-frame": embedkit.FrameElement;
}

interface HTMLElementEventMap extends embedkit.DomEvents {}
interface DocumentEventMap extends embedkit.DomEvents {}
interface WindowEventMap extends embedkit.DomEvents {}
