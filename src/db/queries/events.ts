// Outbound events are rows written in the same D1 batch as the rows they describe: these build
// the statements; delivery/webhooks/dispatch.ts names written events to the webhook Queue (features reach both through features/events/record.ts).
import { and, asc, isNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { EventType } from "../../contract/event-types";
import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import { newId } from "../../lib/ids";
import { chunk, rowsPerStatement } from "../batch";
import type { Db } from "../client";
import { events } from "../schema";

export type EventRow = typeof events.$inferInsert & { id: string };

const EVENT_COLUMNS = 5;

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
 * `subscriber.created` or `subscriber.updated` for each upserted subscriber, decided by the row as
 * the upsert left it (created now, or before): one statement, run after the upserts in their batch.
 */
export function subscriberChangeEvents(
  db: Db,
  environmentId: string,
  subscriberIds: readonly string[],
  now: Date,
  reason: PreferenceChangeReason | null = null,
) {
  const pairs = subscriberIds.map((subscriberId) => [newId("evt"), subscriberId]);
  // Columns in the table's order: id, environment_id, type, data, created_at, dispatched_at.
  const statement = db.insert(events).select(sql`
    SELECT json_extract(p.value, '$[0]'), ${environmentId},
      CASE WHEN s.created_at = s.updated_at THEN 'subscriber.created' ELSE 'subscriber.updated' END,
      ${reason ? sql`json_object('subscriberId', s.subscriber_id, 'reason', ${reason})` : sql`json_object('subscriberId', s.subscriber_id)`},
      ${now.getTime()}, NULL
    FROM json_each(${JSON.stringify(pairs)}) AS p
    -- CROSS JOIN keeps the list as the outer loop: each key is one index lookup (test/subscribers/json-list-joins.test.ts)
    CROSS JOIN subscribers AS s ON s.environment_id = ${environmentId} AND s.subscriber_id = json_extract(p.value, '$[1]')`);
  return { statement, eventIds: pairs.map(([id]) => id!) };
}

/** Events written before `before` whose deliveries were never enqueued, oldest first. */
export const undispatchedEvents = (db: Db, before: Date, limit: number) =>
  db
    .select({ id: events.id, environmentId: events.environmentId })
    .from(events)
    .where(and(isNull(events.dispatchedAt), lt(events.createdAt, before)))
    .orderBy(asc(events.createdAt))
    .limit(limit);

/**
 * Deliveries that were queued but never settled: for each event dispatched before `before` (and
 * after `since`), each enabled endpoint unchanged since the dispatch (an endpoint enabled or
 * re-subscribed later was not sent the event, and gets it by replay) that takes its type and has no
 * attempt that succeeded, ended for good, or has its next try still ahead of `before`. What a lost
 * Queue message leaves.
 */
export const strandedDeliveries = (db: Db, since: Date, before: Date, limit: number) =>
  db.all<{ eventId: string; environmentId: string; endpointId: string }>(sql`
    SELECT e.id AS eventId, e.environment_id AS environmentId, w.id AS endpointId
    FROM events AS e
    JOIN webhook_endpoints AS w ON w.environment_id = e.environment_id AND w.enabled = 1 AND w.updated_at <= e.dispatched_at
      AND (w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) AS t WHERE t.value = e.type))
    WHERE e.created_at > ${since.getTime()} AND e.dispatched_at IS NOT NULL AND e.dispatched_at < ${before.getTime()}
      AND e.type NOT IN ('webhook.test', 'endpoint.disabled')
      AND NOT EXISTS (SELECT 1 FROM webhook_attempts AS a WHERE a.event_id = e.id AND a.endpoint_id = w.id
        AND (a.status = 'succeeded' OR a.next_attempt_at IS NULL OR a.next_attempt_at >= ${before.getTime()}))
    ORDER BY e.created_at
    LIMIT ${limit}`);
