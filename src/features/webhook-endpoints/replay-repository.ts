import { and, eq, gte, inArray, lte, notExists } from "drizzle-orm";
import type { Db } from "../../db/client";
import { events, webhookAttempts, type webhookEndpoints } from "../../db/schema";
import type { ReplayInput } from "./schemas";

/** Events one replay call queues at most: the rest is one more call with a later `since`. */
export const REPLAY_LIMIT = 5_000;

type Endpoint = typeof webhookEndpoints.$inferSelect;

/** The events of a time range that this endpoint takes, and (onlyFailed) that never succeeded there. */
export async function eventsToReplay(db: Db, endpoint: Endpoint, input: ReplayInput, now = new Date()): Promise<string[]> {
  const succeeded = db
    .select({ one: webhookAttempts.id })
    .from(webhookAttempts)
    .where(
      and(eq(webhookAttempts.endpointId, endpoint.id), eq(webhookAttempts.eventId, events.id), eq(webhookAttempts.status, "succeeded")),
    );
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(
      and(
        eq(events.environmentId, endpoint.environmentId),
        gte(events.createdAt, new Date(input.since)),
        lte(events.createdAt, input.until ? new Date(input.until) : now),
        endpoint.events ? inArray(events.type, endpoint.events) : undefined,
        input.onlyFailed ? notExists(succeeded) : undefined,
      ),
    )
    .orderBy(events.id)
    .limit(REPLAY_LIMIT);
  return rows.map((row) => row.id);
}
