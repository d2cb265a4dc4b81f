import type { Feature } from "../../app/feature";
import { EditorPage } from "./EditorPage";
import { WorkflowsPage } from "./WorkflowsPage";

export const workflows: Feature = {
  nav: { label: "Workflows", to: "/workflows" },
  routes: [
    { path: "workflows", element: <WorkflowsPage /> },
    { path: "workflows/new", element: <EditorPage /> },
    { path: "workflows/:key", element: <EditorPage /> },
  ],
};
