import type { Feature } from "../../app/feature";
import { SuppressionsPage } from "./SuppressionsPage";

export const suppressions: Feature = {
  nav: { label: "Suppressions", to: "/suppressions" },
  routes: [{ path: "suppressions", element: <SuppressionsPage /> }],
};
