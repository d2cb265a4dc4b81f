import type { Feature } from "../../app/feature";
import { EnvironmentKeysPage } from "./EnvironmentKeysPage";
import { EnvironmentsPage } from "./EnvironmentsPage";

export const environments: Feature = {
  nav: { label: "Environments", to: "/environments" },
  routes: [
    { path: "environments", element: <EnvironmentsPage /> },
    { path: "environments/:slug", element: <EnvironmentKeysPage /> },
  ],
  adminOnly: true,
};
