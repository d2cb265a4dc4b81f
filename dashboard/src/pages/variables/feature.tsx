import type { Feature } from "../../app/feature";
import { VariablePage } from "./VariablePage";
import { VariablesPage } from "./VariablesPage";

export const variables: Feature = {
  nav: { label: "Variables", to: "/variables" },
  routes: [
    { path: "variables", element: <VariablesPage /> },
    { path: "variables/new", element: <VariablePage /> },
    { path: "variables/:key", element: <VariablePage /> },
  ],
};
