import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const VariablePage = lazyPage(() => import("./VariablePage"), "VariablePage");
const VariablesPage = lazyPage(() => import("./VariablesPage"), "VariablesPage");

export const variables: Feature = {
  nav: { label: "Variables", to: "/variables" },
  routes: [
    { path: "variables", element: <VariablesPage /> },
    { path: "variables/new", element: <VariablePage /> },
    { path: "variables/:key", element: <VariablePage /> },
  ],
};
