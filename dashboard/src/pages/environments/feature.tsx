import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const EnvironmentKeysPage = lazyPage(() => import("./EnvironmentKeysPage"), "EnvironmentKeysPage");
const EnvironmentsPage = lazyPage(() => import("./EnvironmentsPage"), "EnvironmentsPage");

export const environments: Feature = {
  nav: { label: "Environments", to: "/environments" },
  routes: [
    { path: "environments", element: <EnvironmentsPage /> },
    { path: "environments/:slug", element: <EnvironmentKeysPage /> },
  ],
  adminOnly: true,
};
