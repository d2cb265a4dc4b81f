import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const IntegrationPage = lazyPage(() => import("./IntegrationPage"), "IntegrationPage");
const IntegrationsPage = lazyPage(() => import("./IntegrationsPage"), "IntegrationsPage");
const NewIntegrationPage = lazyPage(() => import("./NewIntegrationPage"), "NewIntegrationPage");

export const integrations: Feature = {
  nav: { label: "Integrations", to: "/integrations" },
  routes: [
    { path: "integrations", element: <IntegrationsPage /> },
    { path: "integrations/new", element: <NewIntegrationPage /> },
    { path: "integrations/:id", element: <IntegrationPage /> },
  ],
};
