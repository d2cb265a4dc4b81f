import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { scopedRepository } from "../../lib/scoped-repository";
import { workflowsRepository } from "./repository";
import { Workflow, WorkflowInput, WorkflowKeyParam, WorkflowList, WorkflowPageQuery } from "./schemas";

export const workflowsRoutes = createRouter();

/** drizzle wraps D1's error; the constraint message is on the cause. */
const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Error && (error.message.includes("UNIQUE constraint") || isUniqueViolation(error.cause));

const missing = (key: string) => notFound("workflow_not_found", `workflow with key "${key}"`);
const repo = scopedRepository(workflowsRepository);

workflowsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows",
    tags: ["Workflows"],
    summary: "Create a workflow",
    security,
    request: { body: { required: true, content: json(WorkflowInput) } },
    responses: { 201: { description: "Created", content: json(Workflow) } },
    errors: ["workflow_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await repo(c).create(input);
    if (!created) throw new ApiError("workflow_exists", `A workflow with key "${input.key}" already exists.`);
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
    return c.json(await repo(c).list(limit, cursor, { q, active }), 200);
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
    const workflow = await repo(c).find(key);
    if (!workflow) throw missing(key);
    return c.json(workflow, 200);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Replace a workflow",
    security,
    request: { params: WorkflowKeyParam, body: { required: true, content: json(WorkflowInput) } },
    responses: { 200: { description: "Updated", content: json(Workflow) } },
    errors: ["workflow_not_found", "workflow_exists"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    const updated = await repo(c)
      .update(key, input)
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new ApiError("workflow_exists", `A workflow with key "${input.key}" already exists.`);
        throw error;
      });
    if (!updated) throw missing(key);
    return c.json(updated, 200);
  },
);

workflowsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Delete a workflow",
    security,
    request: { params: WorkflowKeyParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["workflow_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await repo(c).remove(key))) throw missing(key);
    return c.body(null, 204);
  },
);
