import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { AUDIT_ACTIONS, AUDIT_RESOURCES } from "../../contract/audit";
import { json } from "./columns";

export type { AuditAction, AuditResource } from "../../contract/audit";

/**
 * Every change to configuration, appended in the same batch as the change and never updated.
 * It outlives its environment (a deleted environment's entries say who deleted it), so it keeps
 * the slug too; only the retention job (AUDIT_RETENTION_DAYS) removes entries.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    environmentId: text("environment_id").notNull(),
    environmentSlug: text("environment_slug").notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    actorType: text("actor_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    actorId: text("actor_id"),
    actorName: text("actor_name").notNull(),
    resource: text("resource", { enum: AUDIT_RESOURCES }).notNull(),
    resourceId: text("resource_id").notNull(),
    action: text("action", { enum: AUDIT_ACTIONS }).notNull(),
    /** The resource before and after, with every secret masked; null when it did not exist. */
    before: json<unknown>("before"),
    after: json<unknown>("after"),
    /** Clarion's id of the request that made the change. */
    requestId: text("request_id"),
    /** The id the caller sent as `X-Request-Id`, if any: its own, never trusted as Clarion's. */
    clientRequestId: text("client_request_id"),
    /** The proposal whose apply made the change (proposals/), if one did. */
    proposalId: text("proposal_id"),
  },
  (t) => [index("audit_log_env_id_idx").on(t.environmentId, t.id), index("audit_log_at_idx").on(t.at)],
);
