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
/** A job's size in a pack: its JSON and the comma after it. */
export const jobBytes = (json: string) => utf8.encode(json).length + 1;
/** What a pack adds around its jobs: `{"v":1,"type":"pack","jobs":[…],"attempts":N}`. */
const ENVELOPE_BYTES = 64;

interface Body<T> {
  body: PackedJobs | T;
  bytes: number;
}

/** Packs with their sizes: each job is measured once (`sizes`, when the caller already has its JSON), never the pack again. */
function packed<T>(jobs: readonly T[], attempts: number, sizes?: readonly number[]): Body<T>[] {
  const packs: { jobs: T[]; bytes: number }[] = [];
  let current: T[] = [];
  let bytes = 0;
  jobs.forEach((job, i) => {
    const size = sizes?.[i] ?? jobBytes(JSON.stringify(job));
    if (current.length && bytes + size > PACK_MAX_BYTES) {
      packs.push({ jobs: current, bytes });
      current = [];
      bytes = 0;
    }
    current.push(job);
    bytes += size;
  });
  if (current.length) packs.push({ jobs: current, bytes });
  return packs.map((part) =>
    part.jobs.length === 1 && attempts === 0
      ? { body: part.jobs[0]!, bytes: part.bytes }
      : {
          body: { v: 1 as const, type: "pack" as const, jobs: part.jobs, ...(attempts ? { attempts } : {}) },
          bytes: part.bytes + ENVELOPE_BYTES,
        },
  );
}

/** The jobs (DeliveryJob bodies) in as few packs as fit the limits, in order; a single first-attempt job goes alone, unwrapped. */
export function packJobs<T>(jobs: readonly T[], attempts = 0): (PackedJobs | T)[] {
  return packed(jobs, attempts).map((p) => p.body);
}

/**
 * Sends jobs packed, in as few sendBatch calls as the Queue's batch limits allow. `sizes` are the
 * jobs' sizes (`jobBytes` of their JSON) when the caller has them.
 */
export async function sendPacked<T>(
  queue: Queue<unknown>,
  jobs: readonly T[],
  options: { delaySeconds?: number; attempts?: number; sizes?: readonly number[] } = {},
): Promise<number> {
  const bodies = packed(jobs, options.attempts ?? 0, options.sizes);
  const delay = options.delaySeconds ? { delaySeconds: options.delaySeconds } : {};
  let batch: MessageSendRequest<unknown>[] = [];
  let bytes = 0;
  for (const { body, bytes: bodyBytes } of bodies) {
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
