import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { createRouter, problems, security } from "../../lib/openapi";
import { variablesRepository } from "./repository";
import { Variable, VariableInput, VariableKeyParam, VariableList, VariableUpdate } from "./schemas";

export const variablesRoutes = createRouter();

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const notFound = (key: string) => new ApiError("variable_not_found", `No variable with key "${key}" in this environment.`);
const repo = (c: { env: { DB: D1Database; ENCRYPTION_KEY?: string }; get: (k: "environmentId") => string }) =>
  variablesRepository(createDb(c.env.DB), c.get("environmentId"), c.env.ENCRYPTION_KEY);

variablesRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/variables",
    tags: ["Variables"],
    summary: "Create a variable",
    description: "Variables are available as `vars.<key>` in templates and conditions. A secret's value is masked in every answer, this one included.",
    security,
    request: { body: { required: true, content: json(VariableInput) } },
    responses: { 201: { description: "Created", content: json(Variable) }, ...problems(400, 401, 409, 415, 422) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await repo(c).create(input);
    if (!created) throw new ApiError("variable_exists", `A variable with key "${input.key}" already exists.`);
    return c.json(created, 201);
  },
);

variablesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/variables",
    tags: ["Variables"],
    summary: "List variables",
    security,
    request: {
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().optional(),
      }),
    },
    responses: { 200: { description: "A page of variables by key", content: json(VariableList) }, ...problems(401, 422) },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await repo(c).list(limit, cursor), 200);
  },
);

variablesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Get a variable",
    security,
    request: { params: VariableKeyParam },
    responses: { 200: { description: "The variable", content: json(Variable) }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const variable = await repo(c).find(key);
    if (!variable) throw notFound(key);
    return c.json(variable, 200);
  },
);

variablesRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Change a variable's value or secrecy",
    security,
    request: { params: VariableKeyParam, body: { required: true, content: json(VariableUpdate) } },
    responses: { 200: { description: "Updated", content: json(Variable) }, ...problems(400, 401, 404, 415, 422) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await repo(c).update(key, c.req.valid("json"));
    switch (outcome.status) {
      case "updated":
        return c.json(outcome.variable, 200);
      case "not_found":
        throw notFound(key);
      case "would_reveal_secret":
        throw new ApiError("validation_failed", "A secret variable becomes plain only with a new value.", [
          { path: "value", message: "Required when `secret` turns false." },
        ]);
    }
  },
);

variablesRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Delete a variable",
    security,
    request: { params: VariableKeyParam },
    responses: { 204: { description: "Deleted" }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await repo(c).remove(key))) throw notFound(key);
    return c.body(null, 204);
  },
);
