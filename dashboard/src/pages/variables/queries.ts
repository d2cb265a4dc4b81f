// The Variables area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type Variable = components["schemas"]["Variable"];
export type VariableInput = components["schemas"]["VariableInput"];
export type VariableUpdate = components["schemas"]["VariableUpdate"];

/**
 * Every query of the area starts with this key; below it each kind has its own segment, so no
 * variable's key (`keys`, `list`, …) can land on another query's entry.
 */
export const VARIABLES = ["variables"] as const;

export const variablesQuery = (api: Api) =>
  infiniteQueryOptions({
    queryKey: [...VARIABLES, "list"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/variables", { params: { query: { cursor: pageParam, limit: 100 } } })),
    ...CURSOR_PAGES,
  });

/** The first hundred keys, which the workflow editor offers as `vars.<key>`. */
export const variableKeysQuery = (api: Api) =>
  queryOptions({
    queryKey: [...VARIABLES, "keys"],
    queryFn: async () => (await unwrap(api.GET("/v1/variables", { params: { query: { limit: 100 } } }))).data.map((v) => v.key),
  });

export const variableQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: [...VARIABLES, "one", key],
    queryFn: () => unwrap(api.GET("/v1/variables/{key}", { params: { path: { key } } })),
  });

export const createVariable = (api: Api, body: VariableInput) => unwrap(api.POST("/v1/variables", { body }));

export const updateVariable = (api: Api, key: string, body: VariableUpdate) =>
  unwrap(api.PUT("/v1/variables/{key}", { params: { path: { key } }, body }));

export const deleteVariable = (api: Api, key: string) => unwrap(api.DELETE("/v1/variables/{key}", { params: { path: { key } } }));

/** Creates a variable, or saves what changed of `variable` (nothing changed: no request); the area refreshes. */
export const saveVariableMutation = (api: Api, variable: Variable | undefined) =>
  mutationOptions({
    mutationFn: async ({ key, value, secret }: VariableInput) => {
      if (!variable) return createVariable(api, { key, value, secret });
      const body: VariableUpdate = {};
      if (variable.secret ? value !== "" : value !== variable.value) body.value = value;
      if (secret !== variable.secret) body.secret = secret;
      if (body.value === undefined && body.secret === undefined) return variable;
      return updateVariable(api, variable.key, body);
    },
    onSuccess: (_saved, _input, _result, { client }) => void client.invalidateQueries({ queryKey: VARIABLES }),
  });

export const deleteVariableMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (v: Variable) => deleteVariable(api, v.key),
    onSuccess: (_answer, _v, _result, { client }) => client.invalidateQueries({ queryKey: VARIABLES }),
  });
