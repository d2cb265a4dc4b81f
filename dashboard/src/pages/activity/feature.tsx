import type { Feature } from "../../app/feature";
import { ActivityPage } from "./ActivityPage";
import { MessagePage } from "./MessagePage";
import { TriggerPage } from "./TriggerPage";

export const activity: Feature = {
  nav: { label: "Activity", to: "/activity" },
  routes: [
    { path: "activity", element: <ActivityPage /> },
    { path: "activity/triggers/:transactionId", element: <TriggerPage /> },
    { path: "activity/messages/:id", element: <MessagePage /> },
  ],
};
