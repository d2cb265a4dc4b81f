import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";
import { PendingCount } from "../proposals/PendingCount";

const EditorPage = lazyPage(() => import("./EditorPage"), "EditorPage");
const WorkflowsPage = lazyPage(() => import("./WorkflowsPage"), "WorkflowsPage");

export const workflows: Feature = {
  // Proposals change workflows' content: their pending count rides on this link, so the navigation stays one line at 1280 px.
  nav: { label: "Workflows", to: "/workflows", extra: <PendingCount /> },
  routes: [
    { path: "workflows", element: <WorkflowsPage /> },
    { path: "workflows/new", element: <EditorPage /> },
    { path: "workflows/:key", element: <EditorPage /> },
  ],
};
