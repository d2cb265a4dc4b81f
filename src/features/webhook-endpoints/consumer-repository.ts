// The webhook queue consumer's reads and writes. Work without a request: every query is scoped by
// the environmentId each job carries, and a batch of jobs is read in one D1 batch across them.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { environments, events, webhookEndpoints } from "../../db/schema";

/** The named events of one environment, and its enabled endpoints. */
export async function dispatchReads(db: Db, environmentId: string, eventIds: string[]) {
  const [rows, endpoints] = await db.batch([
    db
      .select({ id: events.id, type: events.type })
      .from(events)
      .where(and(eq(events.environmentId, environmentId), inArray(events.id, eventIds))),
    db
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
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

/**
 * The events, endpoints and environment slugs a batch of `deliver` jobs names, in one D1 batch.
 * Each row is read, and keyed, by its (environment, id) pair: a job never sees another environment's row.
 */
export async function deliveryReads(db: Db, jobs: DeliverJob[]) {
  const ids = (pick: (job: DeliverJob) => string) => [...new Set(jobs.map(pick))];
  // One JSON parameter however many jobs (D1 binds at most 100).
  const pairs = (pick: (job: DeliverJob) => string) =>
    JSON.stringify([...new Map(jobs.map((j) => [`${j.environmentId}:${pick(j)}`, [j.environmentId, pick(j)]])).values()]);
  const inPairs = (environmentId: AnySQLiteColumn, id: AnySQLiteColumn, list: string) =>
    sql`(${environmentId}, ${id}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${list}))`;
  const [eventRows, endpointRows, environmentRows] = await db.batch([
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
  ]);
  return {
    eventOf: new Map(eventRows.map((r) => [`${r.environmentId}:${r.id}`, r])),
    endpointOf: new Map(endpointRows.map((r) => [`${r.environmentId}:${r.id}`, r])),
    slugOf: new Map(environmentRows.map((r) => [r.id, r.slug])),
  };
}
