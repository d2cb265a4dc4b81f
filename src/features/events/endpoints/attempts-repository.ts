import { and, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { webhookAttempts } from "../../../db/schema";
import { keysetPage } from "../../../lib/pagination";
import { idCursor } from "../../../lib/cursor";
import type { AttemptQuery, WebhookAttempt, WebhookAttemptList } from "./schemas";

type Row = typeof webhookAttempts.$inferSelect;

const toAttempt = (row: Row): WebhookAttempt => ({
  id: row.id,
  eventId: row.eventId,
  eventType: row.eventType,
  attempt: row.attempt,
  status: row.status,
  responseStatus: row.responseStatus,
  latencyMs: row.latencyMs,
  error: row.error,
  nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

/** The delivery log of one environment's endpoints, newest first. */
export function attemptsRepository(db: Db, environmentId: string) {
  return {
    async list(endpointId: string, query: AttemptQuery): Promise<WebhookAttemptList> {
      const [before] = idCursor.read(query.cursor) ?? [];
      const rows = await db
        .select()
        .from(webhookAttempts)
        .where(
          and(
            eq(webhookAttempts.environmentId, environmentId),
            eq(webhookAttempts.endpointId, endpointId),
            query.status ? eq(webhookAttempts.status, query.status) : undefined,
            query.eventType ? eq(webhookAttempts.eventType, query.eventType) : undefined,
            before ? lt(webhookAttempts.id, before) : undefined,
          ),
        )
        .orderBy(desc(webhookAttempts.id))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => idCursor.encode([last.id]));
      return { data: page.rows.map(toAttempt), nextCursor: page.nextCursor };
    },
  };
}
