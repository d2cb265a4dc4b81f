import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const TopicPage = lazyPage(() => import("./TopicPage"), "TopicPage");
const TopicsPage = lazyPage(() => import("./TopicsPage"), "TopicsPage");

export const topics: Feature = {
  nav: { label: "Topics", to: "/topics" },
  routes: [
    { path: "topics", element: <TopicsPage /> },
    { path: "topics/:key", element: <TopicPage /> },
  ],
};
