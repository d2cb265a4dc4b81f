import type { Feature } from "../../app/feature";
import { IntegrationPage } from "./IntegrationPage";
import { IntegrationsPage } from "./IntegrationsPage";
import { NewIntegrationPage } from "./NewIntegrationPage";

export const integrations: Feature = {
  nav: { label: "Integrations", to: "/integrations" },
  routes: [
    { path: "integrations", element: <IntegrationsPage /> },
    { path: "integrations/new", element: <NewIntegrationPage /> },
    { path: "integrations/:id", element: <IntegrationPage /> },
  ],
};
