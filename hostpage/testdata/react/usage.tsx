// A React app that imports @embedkit/host/react, type-checked with tsc
// --strict by TestReactTypesCheck. The @ts-expect-error lines must stay
// errors: they prove the declarations are strict enough.
import { useRef } from "react";
import type { Frame } from "@embedkit/host";
import { EmbedkitFrame, useEmbedkitFrame, type EmbedkitFrameProps, type Filters } from "@embedkit/host/react";

const filters: Filters = { "orders.status": ["completed", "shipped"], "orders.region": null };

export function Report() {
  const ref = useRef<HTMLIFrameElement>(null);
  const frame: Frame | null = useEmbedkitFrame(ref);
  const props: EmbedkitFrameProps = { target: "sales", loading: "lazy", style: { height: 600 } };
  return (
    <div>
      <EmbedkitFrame {...props} />
      <EmbedkitFrame
        ref={ref}
        target="dashboard/sales-overview"
        framePrefix="/analytics/frame/"
        filters={filters}
        theme={{ primaryColor: "#0b5fff" }}
        colorScheme="dark"
        timezone="Europe/Berlin"
        renewAfter={3_600_000}
        onView={function (e) { console.log(this.element, e.payload.path); }}
        onRenewFailed={(e) => console.log(e.payload.retryInMs)}
        onEvent={(e) => { if (e.name === "download") console.log(e.payload.format); }}
        onError={(e) => console.log(e.payload.fatal)}
      />
      <button onClick={() => frame?.navigate("/embed/dashboard/other")}>Other</button>
      {/* @ts-expect-error: target is required */}
      <EmbedkitFrame title="no target" />
      {/* @ts-expect-error: the src is the kit's frame endpoint, not a prop */}
      <EmbedkitFrame target="sales" src="https://evil.example.com/" />
      {/* @ts-expect-error: not a colour scheme */}
      <EmbedkitFrame target="sales" colorScheme="sepia" />
      {/* @ts-expect-error: a filter is keyed by a member, "view.dimension" */}
      <EmbedkitFrame target="sales" filters={{ status: "completed" }} />
      {/* @ts-expect-error: onDrilldown gets a drilldown event, which has no path */}
      <EmbedkitFrame target="sales" onDrilldown={(e) => console.log(e.payload.path)} />
    </div>
  );
}
