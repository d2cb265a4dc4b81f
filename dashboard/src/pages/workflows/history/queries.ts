// A workflow's history: its versions, any one of them, the difference between two, and the
// revert; query keys start with the workflow's key so a save can refresh all of them at once.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../../api/client";
import type { components } from "../../../api/openapi";
import { CURSOR_PAGES } from "../../../api/cursor-pages";

export type WorkflowVersion = components["schemas"]["WorkflowVersion"];
export type WorkflowDefinition = components["schemas"]["WorkflowDefinition"];
export type WorkflowDiff = components["schemas"]["WorkflowDiff"];
export type VersionChange = components["schemas"]["VersionChange"];

/** The `If-Match` value for a workflow read at `version` (the API's ETag is the version, quoted). */
export const etagOf = (version: number) => `"${version}"`;

/** Every query of one workflow's history: invalidated after each write to that workflow. */
export const historyKey = (key: string) => ["workflow-history", key] as const;

export const versionsQuery = (api: Api, key: string) =>
  infiniteQueryOptions({
    queryKey: [...historyKey(key), "versions"],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/workflows/{key}/versions", { params: { path: { key }, query: { limit: 20, cursor: pageParam } } })),
    ...CURSOR_PAGES,
  });

/** A version never changes once written. */
export const versionQuery = (api: Api, key: string, n: number) =>
  queryOptions({
    queryKey: [...historyKey(key), "version", n],
    queryFn: () => unwrap(api.GET("/v1/workflows/{key}/versions/{n}", { params: { path: { key, n } } })),
    staleTime: Number.POSITIVE_INFINITY,
  });

export const diffQuery = (api: Api, key: string, from: number, to: number) =>
  queryOptions({
    queryKey: [...historyKey(key), "diff", from, to],
    queryFn: () => unwrap(api.GET("/v1/workflows/{key}/diff", { params: { path: { key }, query: { from, to } } })),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Restores version `version` as a new one, only if the workflow is still at `current` (else 409 `workflow_version_conflict`). */
export const revertTo = (api: Api, key: string, version: number, current: number) =>
  unwrap(
    api.POST("/v1/workflows/{key}/revert", {
      params: { path: { key }, header: { "if-match": etagOf(current) } },
      body: { version },
    }),
  );

/** The newest version: who changed the workflow last, and to what. */
export const latestVersionQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: [...historyKey(key), "latest"],
    queryFn: async () =>
      (await unwrap(api.GET("/v1/workflows/{key}/versions", { params: { path: { key }, query: { limit: 1 } } }))).data[0] ?? null,
  });
