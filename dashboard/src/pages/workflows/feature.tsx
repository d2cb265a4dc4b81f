import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const EditorPage = lazyPage(() => import("./EditorPage"), "EditorPage");
const WorkflowsPage = lazyPage(() => import("./WorkflowsPage"), "WorkflowsPage");

export const workflows: Feature = {
  nav: { label: "Workflows", to: "/workflows" },
  routes: [
    { path: "workflows", element: <WorkflowsPage /> },
    { path: "workflows/new", element: <EditorPage /> },
    { path: "workflows/:key", element: <EditorPage /> },
  ],
};
