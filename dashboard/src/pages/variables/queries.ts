// The Variables area's queries, and the writes beside the keys they refresh.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
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
