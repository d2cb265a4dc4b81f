import type { Feature } from "../../app/feature";
import { SubscriberPage } from "./SubscriberPage";
import { SubscribersPage } from "./SubscribersPage";

export const subscribers: Feature = {
  nav: { label: "Subscribers", to: "/subscribers" },
  routes: [
    { path: "subscribers", element: <SubscribersPage /> },
    { path: "subscribers/:id", element: <SubscriberPage /> },
  ],
};
