import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const WebhooksPage = lazyPage(() => import("./WebhooksPage"), "WebhooksPage");
const EventLogPage = lazyPage(() => import("./EventLogPage"), "EventLogPage");
const WebhookEndpointPage = lazyPage(() => import("./WebhookEndpointPage"), "WebhookEndpointPage");

export const webhooks: Feature = {
  nav: { label: "Webhooks", to: "/webhooks" },
  routes: [
    { path: "webhooks", element: <WebhooksPage /> },
    { path: "webhooks/events", element: <EventLogPage /> },
    { path: "webhooks/:id", element: <WebhookEndpointPage /> },
  ],
};
