import { and, eq, gte, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { events, webhookAttempts, type webhookEndpoints } from "../../../db/schema";
import type { ReplayInput } from "./schemas";

/** Events one replay call queues at most: the rest is one more call with a later `since`. */
export const REPLAY_LIMIT = 5_000;

type Endpoint = typeof webhookEndpoints.$inferSelect;

/**
 * The events of a time range that were meant for this endpoint (written since it was created, of a
 * type it takes now; a test only if it was this endpoint's) and, with `onlyFailed`, whose last attempt here
 * failed. An event with no attempt is not one that failed: it is on its way, or was not for this
 * endpoint when it was sent (the endpoint was off), and replaying it would deliver it twice.
 */
export async function eventsToReplay(db: Db, endpoint: Endpoint, input: ReplayInput, now = new Date()): Promise<string[]> {
  const since = new Date(Math.max(Date.parse(input.since), endpoint.createdAt.getTime()));
  const lastStatus = sql`(SELECT ${webhookAttempts.status} FROM ${webhookAttempts}
    WHERE ${webhookAttempts.eventId} = ${events.id} AND ${webhookAttempts.endpointId} = ${endpoint.id}
    ORDER BY ${webhookAttempts.createdAt} DESC, ${webhookAttempts.attempt} DESC LIMIT 1)`;
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(
      and(
        eq(events.environmentId, endpoint.environmentId),
        gte(events.createdAt, since),
        lte(events.createdAt, input.until ? new Date(input.until) : now),
        // A test was sent to one endpoint only (its id in the data).
        sql`(${events.type} <> 'webhook.test' OR json_extract(${events.data}, '$.endpointId') = ${endpoint.id})`,
        endpoint.events ? inArray(events.type, endpoint.events) : undefined,
        endpoint.tenants
          ? sql`json_extract(${events.data}, '$.tenant') IN (SELECT value FROM json_each(${JSON.stringify(endpoint.tenants)}))`
          : undefined,
        input.onlyFailed ? sql`${lastStatus} = 'failed'` : undefined,
      ),
    )
    .orderBy(events.id)
    .limit(REPLAY_LIMIT);
  return rows.map((row) => row.id);
}

/**
 * Cancels the retries the Queue holds for these (event, endpoint) pairs: their attempts no longer
 * say a next try is due, and the consumer drops a retry whose last attempt says none follows.
 * Called before the pairs are queued again, so that each is delivered once more, not twice.
 */
export async function cancelPendingRetries(
  db: Db,
  environmentId: string,
  pairs: readonly { eventId: string; endpointId: string }[],
  attemptedBefore: Date,
): Promise<void> {
  if (pairs.length === 0) return;
  // One JSON parameter however many pairs (D1 binds at most 100).
  const list = JSON.stringify(pairs.map((p) => [p.eventId, p.endpointId]));
  await db
    .update(webhookAttempts)
    .set({ nextAttemptAt: null })
    .where(
      and(
        eq(webhookAttempts.environmentId, environmentId),
        isNotNull(webhookAttempts.nextAttemptAt),
        // Only the chains that ran before the new deliveries were queued: one of those may have
        // failed already and scheduled its own retry, which must live.
        lte(webhookAttempts.createdAt, attemptedBefore),
        sql`(${webhookAttempts.eventId}, ${webhookAttempts.endpointId}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${list}))`,
      ),
    );
}
