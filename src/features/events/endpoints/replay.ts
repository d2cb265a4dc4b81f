import { chunk } from "../../../db/batch";
import type { WebhookJob } from "../../../jobs/webhook-job";
import type { Bindings } from "../../../env";

/** Messages per Queue `sendBatch` call (the platform's limit). */
const SEND_BATCH = 100;

/** Queues one delivery per (event, endpoint): the events keep their ids, so receivers see the same `webhook-id`. */
export async function enqueueDeliveries(
  env: Pick<Bindings, "WEBHOOK_QUEUE">,
  environmentId: string,
  pairs: readonly { eventId: string; endpointId: string }[],
): Promise<number> {
  const jobs = pairs.map((pair) => ({ body: { type: "deliver", environmentId, ...pair } satisfies WebhookJob }));
  for (const part of chunk(jobs, SEND_BATCH)) await env.WEBHOOK_QUEUE.sendBatch(part);
  return jobs.length;
}
