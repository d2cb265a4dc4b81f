import { infiniteQueryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { auditQuery, type Filters } from "./filters";

type AuditList = components["schemas"]["AuditList"];

/** The routes answer NDJSON text too (their export); a page, asked without `format`, is the JSON list. */
async function listOf(call: Promise<string | AuditList>): Promise<AuditList> {
  const data = await call;
  if (typeof data === "string") throw new Error("The audit log answered NDJSON to a request for a page.");
  return data;
}

/** Across environments only for the admin credential, and only when asked (`scope=all`). */
export const acrossEnvironments = (filters: Filters, admin: boolean) => admin && filters.scope === "all";

export const auditLogQuery = (api: Api, filters: Filters, admin: boolean) =>
  infiniteQueryOptions({
    queryKey: ["audit-log", filters, admin],
    queryFn: ({ pageParam }) =>
      acrossEnvironments(filters, admin)
        ? listOf(
            unwrap(
              api.GET("/v1/admin/audit-log", {
                params: { query: { ...auditQuery(filters), environment: filters.environment || undefined, cursor: pageParam, limit: 50 } },
              }),
            ),
          )
        : listOf(unwrap(api.GET("/v1/audit-log", { params: { query: { ...auditQuery(filters), cursor: pageParam, limit: 50 } } }))),
    ...CURSOR_PAGES,
  });

/** Every entry the filters match, as the API exports them: one JSON object per line. */
export async function exportNdjson(api: Api, filters: Filters, admin: boolean): Promise<Blob> {
  const query = { ...auditQuery(filters), format: "ndjson" as const };
  return acrossEnvironments(filters, admin)
    ? unwrap(
        api.GET("/v1/admin/audit-log", {
          params: { query: { ...query, environment: filters.environment || undefined } },
          parseAs: "blob",
        }),
      )
    : unwrap(api.GET("/v1/audit-log", { params: { query }, parseAs: "blob" }));
}
