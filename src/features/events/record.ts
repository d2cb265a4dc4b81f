// Emission: an event is a row written in the same D1 batch as the row it describes
// (db/queries/events.ts), then named in one Queue message per batch of events.
export { eventRow, eventStatements } from "../../db/queries/events";
import { chunk } from "../../db/batch";
import type { Bindings } from "../../env";
import { EVENTS_PER_DISPATCH, type WebhookJob } from "../../delivery/webhooks/job";

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
