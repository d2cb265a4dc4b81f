// The cron's sweep: what emission or delivery lost to a crash is sent again, so every event
// written reaches every endpoint that takes it at least once.
import { strandedDeliveries, undispatchedEvents } from "../../../db/queries/events";
import { unscopedDb } from "../../../db/unscoped";
import type { Bindings } from "../../../env";
import { dispatchEvents } from "../../../delivery/webhooks/dispatch";
import { enqueueDeliveries } from "./replay";

/** An event not dispatched after this long lost its dispatch (a crash between the write and the send). */
export const REDISPATCH_AFTER_MS = 2 * 60_000;
const REDISPATCH_ROWS = 1_000;

/** Run by the cron: names again the events whose dispatch never ran, so none written is lost. */
export async function redispatchStale(env: Pick<Bindings, "DB" | "WEBHOOK_QUEUE">, now: Date): Promise<number> {
  const stale = await undispatchedEvents(unscopedDb(env), new Date(now.getTime() - REDISPATCH_AFTER_MS), REDISPATCH_ROWS);
  const byEnvironment = Map.groupBy(stale, (row) => row.environmentId);
  for (const [environmentId, rows] of byEnvironment)
    await dispatchEvents(
      env,
      environmentId,
      rows.map((row) => row.id),
    );
  return stale.length;
}

/** Deliveries older than the Svix schedule's last retry (about 28 hours) are not looked for again. */
const STRANDED_HORIZON_MS = 3 * 24 * 3_600_000;
const STRANDED_ROWS = 1_000;

/**
 * A delivery queued this long ago with no attempt is taken as lost: well past what a backlogged
 * Queue holds a message, so one still waiting is not sent twice.
 */
export const STRANDED_AFTER_MS = 60 * 60_000;

/**
 * Run by the cron: queues again each delivery that was queued but never settled (its Queue
 * message lost, or its retry overdue by more than `STRANDED_AFTER_MS`), so every event reaches
 * every endpoint that took it at least once; receivers drop a rare duplicate by `webhook-id`.
 */
export async function redeliverStranded(env: Pick<Bindings, "DB" | "WEBHOOK_QUEUE">, now: Date): Promise<number> {
  const rows = await strandedDeliveries(
    unscopedDb(env),
    new Date(now.getTime() - STRANDED_HORIZON_MS),
    new Date(now.getTime() - STRANDED_AFTER_MS),
    STRANDED_ROWS,
  );
  for (const [environmentId, pairs] of Map.groupBy(rows, (r) => r.environmentId)) await enqueueDeliveries(env, environmentId, pairs);
  return rows.length;
}
