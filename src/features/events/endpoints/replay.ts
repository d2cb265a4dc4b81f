import { chunk } from "../../../db/batch";
import type { WebhookJob } from "../../../jobs/webhook-job";
import type { Bindings } from "../../../env";
import type { Data } from "../../data";

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

/**
 * Delivers these (event, endpoint) pairs again, as replay and resend do, and cancels the retries
 * still pending for them. Queued first, then only the retries of attempts made before are
 * cancelled: if queueing fails those retries still run (at least once beats at most once;
 * receivers drop a repeated `webhook-id`), and a retry that comes due in between is at worst one
 * repeat.
 */
export async function redeliver(
  data: Data,
  env: Pick<Bindings, "WEBHOOK_QUEUE">,
  pairs: readonly { eventId: string; endpointId: string }[],
): Promise<number> {
  const before = new Date();
  const queued = await enqueueDeliveries(env, data.environmentId, pairs);
  await data.replay.cancelPendingRetries(pairs, before);
  return queued;
}
