import { chunk } from "../../db/batch";
import type { WrittenEvent } from "../../db/queries/fact-events";
import type { Bindings } from "../../env";
import { sendInBatches } from "../../jobs/pack";
import { EVENTS_PER_DISPATCH, type WebhookJob } from "../../jobs/webhook-job";

export type EventQueue = Pick<Bindings, "WEBHOOK_QUEUE">;

/**
 * Names written events to the webhook Queue, one message per 50. Run after the batch commits
 * (in `waitUntil` on a request path): a dispatch lost to a crash is sent again by the sweep.
 */
export async function dispatchEvents(env: EventQueue, environmentId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const jobs = chunk(ids, EVENTS_PER_DISPATCH).map((eventIds) => ({ type: "dispatch", environmentId, eventIds }) satisfies WebhookJob);
  await sendInBatches(env.WEBHOOK_QUEUE, jobs);
}

/** `dispatchEvents` for what a batch wrote, whatever environments the events belong to; nothing written sends nothing. */
export async function dispatchWritten(env: EventQueue, written: readonly WrittenEvent[]): Promise<void> {
  await Promise.all(
    [...Map.groupBy(written, (row) => row.environmentId)].map(([environmentId, rows]) =>
      dispatchEvents(
        env,
        environmentId,
        rows.map((row) => row.id),
      ),
    ),
  );
}
