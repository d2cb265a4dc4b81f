import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const WebhooksPage = lazyPage(() => import("./WebhooksPage"), "WebhooksPage");
const WebhookEndpointPage = lazyPage(() => import("./WebhookEndpointPage"), "WebhookEndpointPage");

export const webhooks: Feature = {
  nav: { label: "Webhooks", to: "/webhooks" },
  routes: [
    { path: "webhooks", element: <WebhooksPage /> },
    { path: "webhooks/:id", element: <WebhookEndpointPage /> },
  ],
};
