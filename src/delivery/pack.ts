import { z } from "@hono/zod-openapi";
import { chunk } from "../db/batch";

/**
 * A Queue message's body may carry many jobs. A Queue takes about 5,000 messages a second, so
 * one message per trigger would make the Queue a deployment's ceiling; a pack carries every
 * job a ledger shard flushes in one tick, up to what fits in one message.
 */
export const PackedJobs = z.object({
  v: z.literal(1),
  type: z.literal("pack"),
  /** Parsed one by one by the consumer, so one malformed job never drops the others. */
  jobs: z.array(z.unknown()).min(1),
  /** Attempts the jobs already spent in earlier messages: a retried job leaves its pack in a new one. */
  attempts: z.number().int().min(0).optional(),
});
export type PackedJobs = z.infer<typeof PackedJobs>;

/** A Queue message holds at most 128 KB (Cloudflare's limit); the rest is headroom for the envelope. */
export const PACK_MAX_BYTES = 120_000;
/** sendBatch takes at most 100 messages and 256 KB in all (Cloudflare's limits). */
const BATCH_MAX_BYTES = 250_000;
export const BATCH_MAX_MESSAGES = 100;

const utf8 = new TextEncoder();
const size = (value: unknown) => utf8.encode(JSON.stringify(value)).length;

/** The jobs (DeliveryJob bodies) in as few packs as fit the limits, in order; a single first-attempt job goes alone, unwrapped. */
export function packJobs<T>(jobs: readonly T[], attempts = 0): (PackedJobs | T)[] {
  const packs: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const job of jobs) {
    const jobBytes = size(job) + 1;
    if (current.length && bytes + jobBytes > PACK_MAX_BYTES) {
      packs.push(current);
      current = [];
      bytes = 0;
    }
    current.push(job);
    bytes += jobBytes;
  }
  if (current.length) packs.push(current);
  return packs.map((part) =>
    part.length === 1 && attempts === 0
      ? part[0]!
      : { v: 1 as const, type: "pack" as const, jobs: part, ...(attempts ? { attempts } : {}) },
  );
}

/** Sends jobs packed, in as few sendBatch calls as the Queue's batch limits allow. */
export async function sendPacked<T>(
  queue: Queue<unknown>,
  jobs: readonly T[],
  options: { delaySeconds?: number; attempts?: number } = {},
): Promise<number> {
  const bodies = packJobs(jobs, options.attempts);
  const delay = options.delaySeconds ? { delaySeconds: options.delaySeconds } : {};
  let batch: MessageSendRequest<unknown>[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const bodyBytes = size(body);
    if (batch.length && (batch.length >= BATCH_MAX_MESSAGES || bytes + bodyBytes > BATCH_MAX_BYTES)) {
      await queue.sendBatch(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ body, ...delay });
    bytes += bodyBytes;
  }
  if (batch.length) await queue.sendBatch(batch);
  return bodies.length;
}

/** Sends small bodies (far below the byte limit) in sendBatch calls of at most 100 messages. */
export async function sendInBatches(queue: Pick<Queue<unknown>, "sendBatch">, bodies: readonly unknown[]): Promise<void> {
  for (const part of chunk(bodies, BATCH_MAX_MESSAGES)) await queue.sendBatch(part.map((body) => ({ body })));
}
