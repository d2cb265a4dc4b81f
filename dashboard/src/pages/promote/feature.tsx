import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const PromotePage = lazyPage(() => import("./PromotePage"), "PromotePage");

export const promote: Feature = {
  nav: { label: "Promote", to: "/promote" },
  routes: [{ path: "promote", element: <PromotePage /> }],
  adminOnly: true,
};
