import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { validationError } from "../../lib/errors";
import { unscopedDb } from "../../db/unscoped";
import type { AppEnv } from "../../env";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { adminSecurity } from "../environments/admin-routes";
import { type AuditFilter, auditRepository } from "./repository";
import { AdminAuditQuery, AuditList, AuditQuery } from "./schemas";

export const auditRoutes = createRouter();
export const adminAuditRoutes = createRouter();

const NDJSON = "application/x-ndjson";

const listing = {
  description: "Entries newest first",
  content: {
    ...json(AuditList),
    // A plain schema, not zod: one AuditEntry per line is not one JSON document (and lets the handler stream a Response).
    [NDJSON]: { schema: { type: "string" as const, description: "One `AuditEntry` per line: every match, no pages." } },
  },
};

const DESCRIPTION =
  "Every change to configuration: who made it (an API key by id and name, the admin credential, or a dashboard session), when, to what, and the resource before and after with every secret masked. Written in the same batch as the change; nothing changes or deletes an entry but retention (`AUDIT_RETENTION_DAYS`, default 365). `Accept: application/x-ndjson` or `?format=ndjson` exports every match as NDJSON.";

/**
 * The NDJSON export, answered before the documented route (whose typed handler answers JSON only),
 * with the same query schema: every match streamed, a page at a time.
 */
function ndjsonExport(exportOf: (c: Context<AppEnv>) => ReadableStream) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const format = c.req.query("format");
    if (format === "json" || (format !== "ndjson" && !(c.req.header("accept") ?? "").includes(NDJSON))) return next();
    return c.body(exportOf(c), 200, { "content-type": NDJSON });
  });
}

function parsed<T>(schema: z.ZodType<T>, c: Context<AppEnv>): T {
  const result = schema.safeParse(c.req.query());
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

/** The admin reads every environment's entries; an environment key reads its own only (`c.var.data.audit`, whatever its query). */
const everyEnvironment = (c: Context<AppEnv>) => auditRepository(unscopedDb(c.env));

/** The query's filters, without its paging. */
const filterOf = ({ limit: _limit, cursor: _cursor, format: _format, ...filter }: AdminAuditQuery): AuditFilter => filter;
auditRoutes.get(
  "/v1/audit-log",
  ndjsonExport((c) => c.var.data.audit.ndjson(filterOf(parsed(AuditQuery, c)))),
);
adminAuditRoutes.get(
  "/v1/admin/audit-log",
  ndjsonExport((c) => everyEnvironment(c).ndjson(filterOf(parsed(AdminAuditQuery, c)))),
);

auditRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/audit-log",
    tags: ["Audit log"],
    summary: "The environment's audit log",
    description: DESCRIPTION,
    security,
    request: { query: AuditQuery },
    responses: { 200: listing },
  }),
  async (c) => {
    const query = c.req.valid("query");
    return c.json(await c.var.data.audit.page(filterOf(query), query.limit, query.cursor), 200);
  },
);

adminAuditRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/admin/audit-log",
    tags: ["Admin"],
    summary: "The audit log of every environment",
    description: `${DESCRIPTION} Across environments, deleted ones included; \`environment\` narrows it to one slug.`,
    security: adminSecurity,
    request: { query: AdminAuditQuery },
    responses: { 200: listing },
  }),
  async (c) => {
    const query = c.req.valid("query");
    return c.json(await everyEnvironment(c).page(filterOf(query), query.limit, query.cursor), 200);
  },
);
