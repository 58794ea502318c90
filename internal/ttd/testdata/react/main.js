// The React page of BenchmarkTimeToDashboard: one <EmbedkitFrame> from
// the npm package's React entry, configured from the kit's settings that
// the page renders into <div id="app" data-settings="{...}">. Bundled with
// React's production build by internal/reactbuild when the benchmark
// starts.

import { createElement as h } from "react";
import { createRoot } from "react-dom/client";
import { configure } from "@embedkit/host";
import { EmbedkitFrame } from "@embedkit/host/react";

const root = document.getElementById("app");
configure(JSON.parse(root.dataset.settings));
createRoot(root).render(h(EmbedkitFrame, { target: "sales", title: "Sales overview" }));
