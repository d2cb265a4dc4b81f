import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { createRouter, problems, security } from "../../lib/openapi";
import { workflowsRepository } from "./repository";
import { Workflow, WorkflowInput, WorkflowKeyParam, WorkflowList } from "./schemas";

export const workflowsRoutes = createRouter();

/** drizzle wraps D1's error; the constraint message is on the cause. */
const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Error && (error.message.includes("UNIQUE constraint") || isUniqueViolation(error.cause));

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const notFound = (key: string) => new ApiError("workflow_not_found", `No workflow with key "${key}" in this environment.`);
const repo = (c: { env: { DB: D1Database }; get: (k: "environmentId") => string }) =>
  workflowsRepository(createDb(c.env.DB), c.get("environmentId"));

workflowsRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/workflows",
    tags: ["Workflows"],
    summary: "Create a workflow",
    security,
    request: { body: { required: true, content: json(WorkflowInput) } },
    responses: { 201: { description: "Created", content: json(Workflow) }, ...problems(400, 401, 409, 415, 422) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await repo(c).create(input);
    if (!created) throw new ApiError("workflow_exists", `A workflow with key "${input.key}" already exists.`);
    return c.json(created, 201);
  },
);

workflowsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/workflows",
    tags: ["Workflows"],
    summary: "List workflows",
    security,
    request: {
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().optional(),
      }),
    },
    responses: { 200: { description: "A page of workflows by key", content: json(WorkflowList) }, ...problems(401, 422) },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await repo(c).list(limit, cursor), 200);
  },
);

workflowsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Get a workflow",
    security,
    request: { params: WorkflowKeyParam },
    responses: { 200: { description: "The workflow", content: json(Workflow) }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const workflow = await repo(c).find(key);
    if (!workflow) throw notFound(key);
    return c.json(workflow, 200);
  },
);

workflowsRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Replace a workflow",
    security,
    request: { params: WorkflowKeyParam, body: { required: true, content: json(WorkflowInput) } },
    responses: { 200: { description: "Updated", content: json(Workflow) }, ...problems(400, 401, 404, 409, 415, 422) },
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
    if (!updated) throw notFound(key);
    return c.json(updated, 200);
  },
);

workflowsRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/workflows/{key}",
    tags: ["Workflows"],
    summary: "Delete a workflow",
    security,
    request: { params: WorkflowKeyParam },
    responses: { 204: { description: "Deleted" }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await repo(c).remove(key))) throw notFound(key);
    return c.body(null, 204);
  },
);
