// Emission: an event is a row written in the same D1 batch as the row it describes, then named
// in one Queue message per batch of events (see delivery/webhooks/job.ts).
import type { BatchItem } from "drizzle-orm/batch";
import { chunk, rowsPerStatement } from "../../db/batch";
import type { Db } from "../../db/client";
import { events } from "../../db/schema";
import type { EventType } from "../../contract/event-types";
import type { Bindings } from "../../env";
import { newId } from "../../lib/ids";
import { EVENTS_PER_DISPATCH, type WebhookJob } from "../../delivery/webhooks/job";

export type EventRow = typeof events.$inferInsert & { id: string };

const EVENT_COLUMNS = 6;

/** One event, not yet written. Its id is fixed here, so a retried write of the same row keeps it. */
export const eventRow = (environmentId: string, type: EventType, data: Record<string, unknown>, now = new Date()): EventRow => ({
  id: newId("evt"),
  environmentId,
  type,
  data,
  createdAt: now,
});

/** The statements that write `rows`, to add to the batch that writes what they describe. */
export const eventStatements = (db: Db, rows: readonly EventRow[]): BatchItem<"sqlite">[] =>
  chunk(rows, rowsPerStatement(EVENT_COLUMNS)).map((part) => db.insert(events).values(part).onConflictDoNothing());

/**
 * Names written events to the webhook Queue, one message per 50. Run after the batch commits
 * (in `waitUntil` on a request path): a dispatch lost to a crash is sent again by the sweep.
 */
export async function dispatchEvents(env: Pick<Bindings, "WEBHOOK_QUEUE">, environmentId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const jobs = chunk(ids, EVENTS_PER_DISPATCH).map((eventIds) => ({
    body: { type: "dispatch", environmentId, eventIds } satisfies WebhookJob,
  }));
  await env.WEBHOOK_QUEUE.sendBatch(jobs);
}
