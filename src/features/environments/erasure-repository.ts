import { asc, eq, lte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { environmentErasures } from "../../db/schema";
import type { LogStore } from "../../durable-objects/client/log-store";

/** A pending erasure younger than this is its request's to enqueue: the cron leaves it alone. */
export const ERASURE_PENDING_GRACE_MS = 60_000;

/** Pending erasures the cron enqueues per run: each is a few dozen Queue messages at most. */
const ERASURES_PER_RUN = 20;

/** The row that says the environment's log erasure is owed, for the deletion's batch. */
export const owedErasure = (db: Db, environmentId: string, now: Date) =>
  db.insert(environmentErasures).values({ environmentId, deletedAt: now });

/**
 * Enqueues the environment's log erasure (LogStore.queueEnvironmentErasure), then forgets that
 * it was owed. Answers false if the Queue refused: the row stays for the cron, and the deletion
 * itself, already done, still stands. Enqueueing twice is harmless: an erasure pass can repeat.
 */
export async function enqueueOwedErasure(db: Db, logs: LogStore, environmentId: string): Promise<boolean> {
  try {
    await logs.queueEnvironmentErasure(environmentId);
  } catch (error) {
    console.log(JSON.stringify({ level: "warn", event: "environment_erasure_enqueue_failed", environmentId, error: String(error) }));
    return false;
  }
  // Enqueued: a row that outlives a failed delete only has the cron enqueue it once more, which is harmless.
  await db
    .delete(environmentErasures)
    .where(eq(environmentErasures.environmentId, environmentId))
    .catch((error: unknown) => {
      console.log(JSON.stringify({ level: "warn", event: "environment_erasure_forget_failed", environmentId, error: String(error) }));
    });
  return true;
}

/** The cron's part: enqueues the erasures whose request could not, oldest first. Answers how many it enqueued. */
export async function enqueueOwedErasures(db: Db, logs: LogStore, now: Date): Promise<number> {
  const owed = await db
    .select({ environmentId: environmentErasures.environmentId })
    .from(environmentErasures)
    .where(lte(environmentErasures.deletedAt, new Date(now.getTime() - ERASURE_PENDING_GRACE_MS)))
    .orderBy(asc(environmentErasures.deletedAt))
    .limit(ERASURES_PER_RUN);
  let enqueued = 0;
  for (const { environmentId } of owed) if (await enqueueOwedErasure(db, logs, environmentId)) enqueued++;
  return enqueued;
}
