import { ApiError } from "../../lib/errors";
import { previewInputs } from "../translations/preview-inputs";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { previewDraft, previewWorkflow } from "./preview";
import { currentContent } from "./preview-content";
import { DraftPreviewRequest, PreviewRequest, PreviewResponse } from "./preview-schemas";
import { WorkflowKeyParam } from "./schemas";

export const previewRoutes = createRouter();
previewRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows/{key}/preview",
    tags: ["Workflows"],
    summary: "Preview a workflow",
    description:
      "Evaluates every step's condition and renders every channel step for a sample payload and subscriber, without sending anything. An email renders as it would be sent now: in its layout (the one it names, the environment's default when it names none, or none for `layout: null`) with the current partials.",
    security,
    request: { params: WorkflowKeyParam, body: { required: true, content: json(PreviewRequest) } },
    responses: { 200: { description: "Each step's condition and content", content: json(PreviewResponse) } },
    errors: ["workflow_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    // Secret variables are never decrypted here: each renders as `[secret:<key>]`, whatever filter follows.
    const [workflow, vars, content] = await Promise.all([
      c.var.data.workflows.find(key),
      c.var.data.previewVariables(),
      currentContent(c.var.data),
    ]);
    if (!workflow) throw new ApiError("workflow_not_found", `No workflow with key "${key}" in this environment.`);
    const extras = await previewInputs(c.var.data, workflow.steps, input.subscriber.locale, content);
    return c.json(previewWorkflow(workflow, input, vars, content, new Date(), extras), 200);
  },
);

previewRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows/preview",
    tags: ["Workflows"],
    summary: "Preview an unsaved workflow",
    description:
      "As the preview of a saved workflow, for steps given in the body: what an editor shows before anything is saved. A step that is not valid yet gets an `invalid_step` error on its own card instead of failing the request; an email naming a layout that does not exist gets a `template_error`. Nothing is stored or sent.",
    security,
    request: { body: { required: true, content: json(DraftPreviewRequest) } },
    responses: { 200: { description: "Each step's condition and content", content: json(PreviewResponse) } },
  }),
  async (c) => {
    const { workflow, ...input } = c.req.valid("json");
    const [vars, content] = await Promise.all([c.var.data.previewVariables(), currentContent(c.var.data)]);
    const extras = await previewInputs(c.var.data, workflow.steps, input.subscriber.locale, content);
    return c.json(previewDraft(workflow, input, vars, content, new Date(), extras), 200);
  },
);
