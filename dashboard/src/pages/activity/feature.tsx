import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const ActivityPage = lazyPage(() => import("./ActivityPage"), "ActivityPage");
const MessagePage = lazyPage(() => import("./MessagePage"), "MessagePage");
const NewTriggerPage = lazyPage(() => import("./NewTriggerPage"), "NewTriggerPage");
const TriggerPage = lazyPage(() => import("./TriggerPage"), "TriggerPage");

export const activity: Feature = {
  nav: { label: "Activity", to: "/activity" },
  routes: [
    { path: "activity", element: <ActivityPage /> },
    { path: "activity/new", element: <NewTriggerPage /> },
    { path: "activity/triggers/:transactionId", element: <TriggerPage /> },
    { path: "activity/messages/:id", element: <MessagePage /> },
  ],
};
