import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { Variable, VariableInput, VariableKeyParam, VariableList, VariablePageQuery, VariableUpdate } from "./schemas";

export const variablesRoutes = createRouter();

const missing = (key: string) => notFound("variable_not_found", `variable with key "${key}"`);

variablesRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/variables",
    tags: ["Variables"],
    summary: "Create a variable",
    description:
      "Variables are available as `vars.<key>` in templates and conditions. A secret's value is masked in every answer, this one included.",
    security,
    request: { body: { required: true, content: json(VariableInput) } },
    responses: { 201: { description: "Created", content: json(Variable) } },
    errors: ["variable_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await c.var.data.variables.create(input, auditContextOf(c));
    if (!created) throw new ApiError("variable_exists", `A variable with key "${input.key}" already exists.`);
    return c.json(created, 201);
  },
);

variablesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/variables",
    tags: ["Variables"],
    summary: "List variables",
    security,
    request: { query: VariablePageQuery },
    responses: { 200: { description: "A page of variables by key", content: json(VariableList) } },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await c.var.data.variables.list(limit, cursor), 200);
  },
);

variablesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Get a variable",
    security,
    request: { params: VariableKeyParam },
    responses: { 200: { description: "The variable", content: json(Variable) } },
    errors: ["variable_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const variable = await c.var.data.variables.find(key);
    if (!variable) throw missing(key);
    return c.json(variable, 200);
  },
);

variablesRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Change a variable's value or secrecy",
    security,
    request: { params: VariableKeyParam, body: { required: true, content: json(VariableUpdate) } },
    responses: { 200: { description: "Updated", content: json(Variable) } },
    errors: ["variable_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await c.var.data.variables.update(key, c.req.valid("json"), auditContextOf(c));
    switch (outcome.status) {
      case "updated":
        return c.json(outcome.variable, 200);
      case "not_found":
        throw missing(key);
      case "would_reveal_secret":
        throw new ApiError("validation_failed", "A secret variable becomes plain only with a new value.", [
          { path: "value", message: "Required when `secret` turns false." },
        ]);
    }
  },
);

variablesRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/variables/{key}",
    tags: ["Variables"],
    summary: "Delete a variable",
    security,
    request: { params: VariableKeyParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["variable_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await c.var.data.variables.remove(key, auditContextOf(c)))) throw missing(key);
    return c.body(null, 204);
  },
);
