// The webhook queue consumer's reads and writes. Work without a request: every query is scoped by
// the environmentId each job carries, and a batch of jobs is read in one D1 batch across them.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../../db/client";
import { environments, events, webhookAttempts, webhookEndpoints } from "../../../db/schema";

/** The named events of one environment, and its enabled endpoints. */
export async function dispatchReads(db: Db, environmentId: string, eventIds: string[]) {
  const [rows, endpoints] = await db.batch([
    db
      .select({ id: events.id, type: events.type, tenant: sql<string | null>`json_extract(${events.data}, '$.tenant')` })
      .from(events)
      .where(and(eq(events.environmentId, environmentId), inArray(events.id, eventIds))),
    db
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events, tenants: webhookEndpoints.tenants })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.environmentId, environmentId), eq(webhookEndpoints.enabled, true))),
  ]);
  return { rows, endpoints };
}

export async function markDispatched(db: Db, environmentId: string, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await db
    .update(events)
    .set({ dispatchedAt: new Date() })
    .where(and(eq(events.environmentId, environmentId), inArray(events.id, eventIds)));
}

type DeliverJob = { environmentId: string; eventId: string; endpointId: string };

/** The last attempt of each (event, endpoint) pair: whether it settled the delivery (success, or no next try). */
export type LastAttempt = { status: string; nextAttemptAt: Date | null };

/**
 * The events, endpoints and environment slugs a batch of `deliver` jobs names, in one D1 batch.
 * Each row is read, and keyed, by its (environment, id) pair: a job never sees another environment's row.
 */
export async function deliveryReads(db: Db, jobs: DeliverJob[], retries: DeliverJob[] = []) {
  const ids = (pick: (job: DeliverJob) => string) => [...new Set(jobs.map(pick))];
  // One JSON parameter however many jobs (D1 binds at most 100).
  const pairs = (pick: (job: DeliverJob) => string) =>
    JSON.stringify([...new Map(jobs.map((j) => [`${j.environmentId}:${pick(j)}`, [j.environmentId, pick(j)]])).values()]);
  const inPairs = (environmentId: AnySQLiteColumn, id: AnySQLiteColumn, list: string) =>
    sql`(${environmentId}, ${id}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${list}))`;
  // Only retries ask: a first try (a dispatch, a replay, a resend) is always made.
  const retryPairs = JSON.stringify(retries.map((j) => [j.environmentId, j.eventId, j.endpointId]));
  const [eventRows, endpointRows, environmentRows, attemptRows] = await db.batch([
    db
      .select()
      .from(events)
      .where(
        inPairs(
          events.environmentId,
          events.id,
          pairs((j) => j.eventId),
        ),
      ),
    db
      .select()
      .from(webhookEndpoints)
      .where(
        inPairs(
          webhookEndpoints.environmentId,
          webhookEndpoints.id,
          pairs((j) => j.endpointId),
        ),
      ),
    db
      .select({ id: environments.id, slug: environments.slug })
      .from(environments)
      .where(sql`${environments.id} IN (SELECT value FROM json_each(${JSON.stringify(ids((j) => j.environmentId))}))`),
    db
      .select({
        environmentId: webhookAttempts.environmentId,
        eventId: webhookAttempts.eventId,
        endpointId: webhookAttempts.endpointId,
        status: webhookAttempts.status,
        attempt: webhookAttempts.attempt,
        nextAttemptAt: webhookAttempts.nextAttemptAt,
        createdAt: webhookAttempts.createdAt,
      })
      .from(webhookAttempts)
      .where(
        sql`(${webhookAttempts.environmentId}, ${webhookAttempts.eventId}, ${webhookAttempts.endpointId}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(${retryPairs}))`,
      ),
  ]);
  const lastAttemptOf = new Map<string, LastAttempt & { createdAt: Date; attempt: number }>();
  for (const row of attemptRows) {
    const key = `${row.environmentId}:${row.eventId}:${row.endpointId}`;
    const kept = lastAttemptOf.get(key);
    const later =
      !kept || row.createdAt > kept.createdAt || (row.createdAt.getTime() === kept.createdAt.getTime() && row.attempt > kept.attempt);
    if (later) lastAttemptOf.set(key, row);
  }
  return {
    eventOf: new Map(eventRows.map((r) => [`${r.environmentId}:${r.id}`, r])),
    endpointOf: new Map(endpointRows.map((r) => [`${r.environmentId}:${r.id}`, r])),
    slugOf: new Map(environmentRows.map((r) => [r.id, r.slug])),
    lastAttemptOf: lastAttemptOf as ReadonlyMap<string, LastAttempt>,
  };
}
