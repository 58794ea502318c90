// TypeScript declarations of @embedkit/host/react, the host page as a
// React component and hook (React 18 or later, an optional peer
// dependency):
//
//   import { EmbedkitFrame, useEmbedkitFrame } from "@embedkit/host/react";
//   <EmbedkitFrame target="sales" filters={{ "sales.region": "EMEA" }}
//     onDrilldown={(e) => show(e.payload.member, e.payload.value)} />
import type { ForwardRefExoticComponent, IframeHTMLAttributes, RefAttributes, RefObject } from "react";
import type {
  AnyFrameEvent, ColorScheme, EventName, FilterValue, Frame, FrameEvent, Member, Theme
} from "./index.js";

/** The filters of a frame, by member: a value, a non-empty list, or null to clear. */
export type Filters = { readonly [member: Member]: FilterValue | undefined };

/**
 * A listener prop: the frame's event, with the frame handle as `this`.
 * `onReady` added once the frame is ready gets its last ready event.
 */
export type EventProp<N extends EventName> = (this: Frame, event: FrameEvent<N>) => void;

/** The on<Event> props, one per event of the frame handle. */
export interface EventProps {
  onReady?: EventProp<"ready">;
  onView?: EventProp<"view">;
  onNavigate?: EventProp<"navigate">;
  onDashboardLoaded?: EventProp<"dashboard-loaded">;
  onDownload?: EventProp<"download">;
  onDrilldown?: EventProp<"drilldown">;
  onAiQuery?: EventProp<"ai-query">;
  /** The platform's `cube:event:error` (not the iframe's DOM error event). */
  onError?: EventProp<"error">;
  onSessionRenewed?: EventProp<"session-renewed">;
  onSessionEnded?: EventProp<"session-ended">;
  onRenewFailed?: EventProp<"renew-failed">;
  /** The first load failed, with its reason (signed-out, refused-origin, unavailable, rejected, never-ready). */
  onLoadFailed?: EventProp<"load-failed">;
  onVersionMismatch?: EventProp<"version-mismatch">;
  /** Every event, after its own on<Event> prop. */
  onEvent?: (this: Frame, event: AnyFrameEvent) => void;
}

/** The props of `<EmbedkitFrame>`; every other iframe attribute goes to the iframe. */
export interface EmbedkitFrameProps
  extends EventProps, Omit<IframeHTMLAttributes<HTMLIFrameElement>, "src" | "onError" | "children"> {
  /**
   * The kit's target, e.g. "sales" or "dashboard/sales-overview": the
   * iframe's first src is the frame endpoint for it. Changing it switches
   * the frame (`Frame.show`): in place, with the platform's navigate action
   * and no new session, where the kit's settings say both targets share a
   * session and a URL; else a new frame (a new document and session) in
   * the same iframe element. Every other prop changes the live frame; the
   * filters prop is applied afresh to the new target.
   */
  target: string;
  /**
   * The kit's frame prefix (Config.Paths.Frame). Without it, the one the
   * page is configured with (configure() or its `<meta name="embedkit">`,
   * see configured()), else the default "/embed/frame/".
   */
  framePrefix?: string;
  /** `cube:action:set-filter` per member, at mount and for each member that changes; a member left out is cleared. */
  filters?: Filters;
  /**
   * e.g. "de-DE": in the first load's URL (the frame endpoint's
   * `?locale=`), so the frame opens in it; `cube:action:set-locale` on change.
   */
  locale?: string;
  /**
   * An IANA name: in the first load's URL (`?timezone=`); on change
   * `cube:action:set-timezone`, an optional extra the platform's docs
   * reference without cataloguing.
   */
  timezone?: string;
  /** `cube:action:set-theme`. */
  theme?: Theme;
  /** `cube:action:set-color-scheme`. */
  colorScheme?: ColorScheme;
  /** data-embedkit-fit: "container" fills the parent, "viewport" the rest of the window. */
  fit?: "container" | "viewport";
  /** data-embedkit-min-height, in px (default 320 when fit is set). */
  minHeight?: number;
  /** data-embedkit-max-height, in px. */
  maxHeight?: number;
  /**
   * data-embedkit-renew-after, in ms: the fallback renewal only, for a
   * platform that does not renew sessions in place: when, after the
   * frame's load started, the kit loads it again with a new session
   * (default 23 h minus 5 min). Renewal in place needs no prop.
   */
  renewAfter?: number;
  /** data-embedkit-ready-timeout, in ms: how long the first load may take before load-failed. */
  readyTimeout?: number;
  /** data-embedkit-debug: log every message of this frame accepted or dropped, with the reason. */
  debug?: boolean;
}

/**
 * An embedded dashboard, chat or app of the kit: one
 * `<iframe data-embedkit data-embedkit-target>` per mount, whose ref is
 * the iframe element. Unmounting releases the frame (its timers,
 * requests and listeners); StrictMode's simulated unmount and a hidden
 * `<Activity>` keep it.
 */
export const EmbedkitFrame: ForwardRefExoticComponent<EmbedkitFrameProps & RefAttributes<HTMLIFrameElement>>;

/**
 * The Frame handle of the `<iframe data-embedkit>` or `<embedkit-frame>`
 * that ref points to (e.g. an `<EmbedkitFrame>`'s ref), or null until it
 * is mounted. When an `<EmbedkitFrame>` unmounts its
 * frame is released: that handle's methods throw, and what waited on it
 * is rejected with reason "released".
 */
export function useEmbedkitFrame(ref: RefObject<Element | null>): Frame | null;
