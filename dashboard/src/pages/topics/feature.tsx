import type { Feature } from "../../app/feature";
import { TopicPage } from "./TopicPage";
import { TopicsPage } from "./TopicsPage";

export const topics: Feature = {
  nav: { label: "Topics", to: "/topics" },
  routes: [
    { path: "topics", element: <TopicsPage /> },
    { path: "topics/:key", element: <TopicPage /> },
  ],
};
