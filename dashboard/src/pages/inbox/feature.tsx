import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

// Its own chunk: Novu's Inbox (SolidJS inside) loads only when this page is opened.
const InboxPage = lazyPage(() => import("./InboxPage"), "InboxPage");

export const inbox: Feature = {
  nav: { label: "Inbox", to: "/inbox" },
  routes: [{ path: "inbox", element: <InboxPage /> }],
};
