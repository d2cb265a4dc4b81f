import { and, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog } from "../../db/schema";
import { idCursor } from "../../lib/cursor";
import { keysetPage } from "../../lib/pagination";
import type { AdminAuditQuery, AuditEntry } from "./schemas";
import { auditSummary } from "./summary";

type Row = typeof auditLog.$inferSelect;

const toEntry = (row: Row): AuditEntry => ({
  id: row.id,
  environment: row.environmentSlug,
  at: row.at.toISOString(),
  actor: { type: row.actorType, id: row.actorId, name: row.actorName },
  resource: row.resource,
  resourceId: row.resourceId,
  action: row.action,
  summary: auditSummary(row),
  before: row.before ?? null,
  after: row.after ?? null,
  requestId: row.requestId,
  clientRequestId: row.clientRequestId,
  proposalId: row.proposalId ?? null,
});

/** What reads of the log filter on; `environmentId` set: one environment's entries only. */
export type AuditFilter = Omit<AdminAuditQuery, "limit" | "cursor" | "format"> & { environmentId?: string };

/** Reads only: entries are written by `auditStatement` in each change's batch, and nothing updates or deletes them but retention. */
export function auditRepository(db: Db) {
  const where = (filter: AuditFilter, before?: string): SQL | undefined =>
    and(
      filter.environmentId === undefined ? undefined : eq(auditLog.environmentId, filter.environmentId),
      filter.environment === undefined ? undefined : eq(auditLog.environmentSlug, filter.environment),
      filter.resource === undefined ? undefined : eq(auditLog.resource, filter.resource),
      filter.resourceId === undefined ? undefined : eq(auditLog.resourceId, filter.resourceId),
      filter.action === undefined ? undefined : eq(auditLog.action, filter.action),
      filter.actor === undefined
        ? undefined
        : filter.actor === "admin"
          ? eq(auditLog.actorType, "admin")
          : or(eq(auditLog.actorId, filter.actor), eq(auditLog.actorName, filter.actor)),
      filter.after === undefined ? undefined : gte(auditLog.at, new Date(filter.after)),
      filter.before === undefined ? undefined : lt(auditLog.at, new Date(filter.before)),
      // Ids are time-ordered: newest first is by id, and the cursor holds the last id seen.
      before === undefined ? undefined : lt(auditLog.id, before),
    );

  return {
    async page(filter: AuditFilter, limit: number, cursor?: string) {
      const rows = await db
        .select()
        .from(auditLog)
        .where(where(filter, idCursor.read(cursor)?.[0]))
        .orderBy(desc(auditLog.id))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => idCursor.encode([last.id]));
      return { data: page.rows.map(toEntry), nextCursor: page.nextCursor };
    },

    /** Every matching entry as NDJSON, a page at a time, so an export of any size streams in bounded memory. */
    ndjson(filter: AuditFilter, pageSize = 500): ReadableStream<Uint8Array> {
      const encoder = new TextEncoder();
      let cursor: string | undefined;
      let done = false;
      return new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          if (done) return controller.close();
          const page = await this.page(filter, pageSize, cursor);
          if (page.data.length > 0) controller.enqueue(encoder.encode(page.data.map((e) => `${JSON.stringify(e)}\n`).join("")));
          if (page.nextCursor === null) done = true;
          else cursor = page.nextCursor;
          if (done) controller.close();
        },
      });
    },
  };
}
