import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { destinationOptions } from "../../lib/destinations";
import { checkFetchDestinations } from "./destination-checks";
import { checkWorkflowTemplates } from "./template-checks";
import { Workflow, WorkflowInput, WorkflowKeyParam, WorkflowList, WorkflowPageQuery } from "./schemas";
import { etagOf, IfMatchHeader, ifMatchVersions, ImportHeader, staleWrite } from "./versions/if-match";

export const workflowsRoutes = createRouter();

/** A write from a file import is audited as `imported`. */
const importRecord = (headers: { "clarion-import"?: "true" }) => (headers["clarion-import"] ? { auditAction: "imported" as const } : {});

const missing = (key: string) => notFound("workflow_not_found", `workflow with key "${key}"`);

/**
 * A renamed workflow would answer 404 to every caller of the old key, and the opt-outs stored under
 * the old key would stop applying: so a key never changes, and a new key is a new workflow.
 */
const keyImmutable = (key: string, wanted: string) =>
  new ApiError(
    "workflow_key_immutable",
    `A workflow's key cannot change: triggers and subscribers' preferences name "${key}". To use "${wanted}", create a workflow with that key (POST /v1/workflows with this body, or Duplicate in the dashboard), move your triggers to it, then delete "${key}".`,
    [{ path: "key", message: `Must be "${key}", the key in the path.` }],
  );

workflowsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows",
    tags: ["Workflows"],
    summary: "Create a workflow",
    security,
    request: { headers: ImportHeader, body: { required: true, content: json(WorkflowInput) } },
    responses: { 201: { description: "Created", content: json(Workflow) } },
    errors: ["workflow_exists", "translation_key_missing", "destination_not_allowed"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    checkFetchDestinations(input.steps, destinationOptions(c.env));
    await checkWorkflowTemplates(c.var.data, input.steps);
    const created = await c.var.data.workflows.create(input, auditContextOf(c), importRecord(c.req.valid("header")));
    if (!created) throw new ApiError("workflow_exists", `A workflow with key "${input.key}" already exists.`);
    c.header("etag", etagOf(created.version));
    return c.json(created, 201);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/workflows",
    tags: ["Workflows"],
    summary: "List workflows",
    security,
    request: { query: WorkflowPageQuery },
    responses: { 200: { description: "A page of workflows by key, with when each was last triggered", content: json(WorkflowList) } },
  }),
  async (c) => {
    const { limit, cursor, q, active } = c.req.valid("query");
    return c.json(await c.var.data.workflows.list(limit, cursor, { q, active }), 200);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Get a workflow",
    security,
    request: { params: WorkflowKeyParam },
    responses: { 200: { description: "The workflow", content: json(Workflow) } },
    errors: ["workflow_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const workflow = await c.var.data.workflows.find(key);
    if (!workflow) throw missing(key);
    c.header("etag", etagOf(workflow.version));
    return c.json(workflow, 200);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Replace a workflow",
    description:
      "Replaces everything but the key: `key` in the body must be the key in the path. Triggers and subscribers' preferences name a workflow by its key, so a new key is a new workflow (create it, then delete this one).",
    security,
    request: {
      params: WorkflowKeyParam,
      headers: IfMatchHeader.extend(ImportHeader.shape),
      body: { required: true, content: json(WorkflowInput) },
    },
    responses: { 200: { description: "Updated (a new version, unless nothing changed)", content: json(Workflow) } },
    errors: ["workflow_not_found", "workflow_key_immutable", "workflow_changed", "translation_key_missing", "destination_not_allowed"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    if (input.key !== key) throw keyImmutable(key, input.key);
    checkFetchDestinations(input.steps, destinationOptions(c.env));
    await checkWorkflowTemplates(c.var.data, input.steps);
    const outcome = await c.var.data.workflows.update(key, input, auditContextOf(c), {
      ifMatch: ifMatchVersions(c.req.header("if-match")),
      ...importRecord(c.req.valid("header")),
    });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw staleWrite(key, outcome.current);
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Delete a workflow",
    security,
    request: { params: WorkflowKeyParam, headers: IfMatchHeader },
    responses: { 204: { description: "Deleted" } },
    errors: ["workflow_not_found", "workflow_changed"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await c.var.data.workflows.remove(key, auditContextOf(c), ifMatchVersions(c.req.header("if-match")));
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw staleWrite(key, outcome.current);
    return c.body(null, 204);
  },
);
