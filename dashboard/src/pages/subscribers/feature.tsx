import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const SubscriberPage = lazyPage(() => import("./SubscriberPage"), "SubscriberPage");
const SubscribersPage = lazyPage(() => import("./SubscribersPage"), "SubscribersPage");

export const subscribers: Feature = {
  nav: { label: "Subscribers", to: "/subscribers" },
  routes: [
    { path: "subscribers", element: <SubscribersPage /> },
    { path: "subscribers/:id", element: <SubscriberPage /> },
  ],
};
