import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const SubscriberPage = lazyPage(() => import("./SubscriberPage"), "SubscriberPage");
const NewSubscriberPage = lazyPage(() => import("./NewSubscriberPage"), "NewSubscriberPage");
const SubscribersPage = lazyPage(() => import("./SubscribersPage"), "SubscribersPage");

export const subscribers: Feature = {
  nav: { label: "Subscribers", to: "/subscribers" },
  routes: [
    { path: "subscribers", element: <SubscribersPage /> },
    { path: "subscribers/new", element: <NewSubscriberPage /> },
    { path: "subscribers/:id", element: <SubscriberPage /> },
  ],
};
