import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

// Its own chunk: the charting library loads only when the page is opened.
const AnalyticsPage = lazyPage(() => import("./AnalyticsPage"), "AnalyticsPage");

export const analytics: Feature = {
  nav: { label: "Analytics", to: "/analytics" },
  routes: [{ path: "analytics", element: <AnalyticsPage /> }],
};
