// Emission: an event is a row written in the same D1 batch as the row it describes
// (db/queries/events.ts), then named in one Queue message per batch of events.
export { eventRow, eventStatements } from "../../db/queries/events";
import { undispatchedEvents } from "../../db/queries/events";
import { createDb } from "../../db/client";
import type { Bindings } from "../../env";
import { dispatchEvents } from "../../delivery/webhooks/dispatch";
export { dispatchEvents, dispatchWritten } from "../../delivery/webhooks/dispatch";

/** An event not dispatched after this long lost its dispatch (a crash between the write and the send). */
export const REDISPATCH_AFTER_MS = 2 * 60_000;
const REDISPATCH_ROWS = 1_000;

/** Run by the cron: names again the events whose dispatch never ran, so none written is lost. */
export async function redispatchStale(env: Pick<Bindings, "DB" | "WEBHOOK_QUEUE">, now: Date): Promise<number> {
  const stale = await undispatchedEvents(createDb(env.DB), new Date(now.getTime() - REDISPATCH_AFTER_MS), REDISPATCH_ROWS);
  const byEnvironment = Map.groupBy(stale, (row) => row.environmentId);
  for (const [environmentId, rows] of byEnvironment)
    await dispatchEvents(
      env,
      environmentId,
      rows.map((row) => row.id),
    );
  return stale.length;
}
