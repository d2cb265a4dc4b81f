// A layout's or a partial's history: versions, one of them, and the revert. Both keep versions as
// workflows do; the query keys sit under their area's key, so a write's refresh reaches them.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type ContentKind = "layouts" | "partials";
export type ContentVersion = components["schemas"]["LayoutVersion"] | components["schemas"]["PartialVersion"];
type VersionPage = { data: ContentVersion[]; nextCursor: string | null };

/** The `If-Match` value for content read at `version` (the API's ETag is the version, quoted). */
export const etagOf = (version: number) => `"${version}"`;

export const contentHistoryKey = (kind: ContentKind, key: string) => [kind, "history", key] as const;

export const contentVersionsQuery = (api: Api, kind: ContentKind, key: string) =>
  infiniteQueryOptions({
    queryKey: [...contentHistoryKey(kind, key), "versions"],
    queryFn: ({ pageParam }): Promise<VersionPage> => {
      const params = { path: { key }, query: { limit: 20, cursor: pageParam } };
      return kind === "layouts"
        ? unwrap(api.GET("/v1/layouts/{key}/versions", { params }))
        : unwrap(api.GET("/v1/partials/{key}/versions", { params }));
    },
    ...CURSOR_PAGES,
  });

/** A version never changes once written. */
export const contentVersionQuery = (api: Api, kind: ContentKind, key: string, n: number) =>
  queryOptions({
    queryKey: [...contentHistoryKey(kind, key), "version", n],
    queryFn: (): Promise<ContentVersion> => {
      const params = { path: { key, n } };
      return kind === "layouts"
        ? unwrap(api.GET("/v1/layouts/{key}/versions/{n}", { params }))
        : unwrap(api.GET("/v1/partials/{key}/versions/{n}", { params }));
    },
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The API's RFC 6902 patch between two versions, and the fields it touches. */
export const contentDiffQuery = (api: Api, kind: ContentKind, key: string, from: number, to: number) =>
  queryOptions({
    queryKey: [...contentHistoryKey(kind, key), "diff", from, to],
    queryFn: (): Promise<components["schemas"]["ContentDiff"]> => {
      const params = { path: { key }, query: { from, to } };
      return kind === "layouts"
        ? unwrap(api.GET("/v1/layouts/{key}/diff", { params }))
        : unwrap(api.GET("/v1/partials/{key}/diff", { params }));
    },
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Restores `version` as a new one, only if the content is still at `current` (else 409 `…_version_conflict`). */
export function revertContent(api: Api, kind: ContentKind, key: string, version: number, current: number): Promise<{ version: number }> {
  const params = { path: { key }, header: { "if-match": etagOf(current) } };
  return kind === "layouts"
    ? unwrap(api.POST("/v1/layouts/{key}/revert", { params, body: { version } }))
    : unwrap(api.POST("/v1/partials/{key}/revert", { params, body: { version } }));
}

/** A write refused because someone else saved since this page read it. */
export const CONFLICT_CODES = ["layout_changed", "layout_version_conflict", "partial_changed", "partial_version_conflict"] as const;
