import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const SuppressionsPage = lazyPage(() => import("./SuppressionsPage"), "SuppressionsPage");

export const suppressions: Feature = {
  nav: { label: "Suppressions", to: "/suppressions" },
  routes: [{ path: "suppressions", element: <SuppressionsPage /> }],
};
