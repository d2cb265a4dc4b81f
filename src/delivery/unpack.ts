import type { Bindings } from "../env";
import { deliveryQueueFor } from "../jobs/queues";
import { retryDelaySeconds } from "./backoff";
import { DeliveryJob } from "../jobs/job";
import { PackedJobs, sendPacked } from "../jobs/pack";

/** Deliveries a job gets before it is dead-lettered: 1 + `max_retries` of the delivery consumers in wrangler.toml. */
export const MAX_ATTEMPTS = 11;

/**
 * Recipients one invocation takes on from packs (a trigger job counts one): what 100 messages
 * of one 50-recipient chunk each came to before packing, inside CPU and subrequest limits. An
 * erasure job counts its log shards, one subrequest each: 5,000 is half an invocation's 10,000.
 * Jobs past it go back to the Queue untried.
 */
export const INVOCATION_BUDGET = 5_000;

/** A job's share of the budget: its recipients, or the log shards an erasure job calls (each a subrequest). */
const weight = (job: unknown) => {
  if (typeof job !== "object" || job === null) return 1;
  const { subscriberIds: ids, shards } = job as { subscriberIds?: unknown; shards?: { from?: unknown; to?: unknown } };
  if (Array.isArray(ids)) return ids.length;
  if (typeof shards?.from === "number" && typeof shards.to === "number") return Math.max(1, shards.to - shards.from);
  return 1;
};

/** One job of a pack, answering like a Queue message; its pack settles once every job answered. */
class PackedMessage implements Message<unknown> {
  outcome: { retry: boolean; delaySeconds: number } | null = null;

  constructor(
    readonly id: string,
    readonly timestamp: Date,
    readonly body: unknown,
    readonly attempts: number,
  ) {}

  ack(): void {
    this.outcome ??= { retry: false, delaySeconds: 0 };
  }

  /** A retry wins over an ack: a job is never acked on error. */
  retry(options?: QueueRetryOptions): void {
    this.outcome = { retry: true, delaySeconds: Math.max(options?.delaySeconds ?? 0, this.outcome?.delaySeconds ?? 0) };
  }
}

interface Pack {
  message: Message<unknown>;
  attempts: number;
  parts: PackedMessage[];
  deferred: unknown[];
}

/**
 * The batch's messages with every pack opened into one message per job, and `settle`, which
 * answers each pack's Queue message once its jobs have answered: acked when all are done;
 * otherwise only the jobs that asked for a retry (and those past the budget) go back to the
 * Queue in a new pack, so one failing trigger never makes the others run again.
 */
export function unpack(batch: MessageBatch<unknown>, env: Bindings): { messages: Message<unknown>[]; settle: () => Promise<void> } {
  const messages: Message<unknown>[] = [];
  const packs: Pack[] = [];
  let budget = INVOCATION_BUDGET;
  for (const message of batch.messages) {
    const parsed = PackedJobs.safeParse(message.body);
    if (!parsed.success) {
      messages.push(message);
      budget -= weight(message.body);
      continue;
    }
    const previous = parsed.data.attempts ?? 0;
    const pack: Pack = { message, attempts: previous, parts: [], deferred: [] };
    for (const [i, job] of parsed.data.jobs.entries()) {
      if (budget <= 0) {
        pack.deferred.push(job);
        continue;
      }
      pack.parts.push(new PackedMessage(`${message.id}/${i}`, message.timestamp, job, previous + message.attempts));
      budget -= weight(job);
    }
    messages.push(...pack.parts);
    packs.push(pack);
  }
  return { messages, settle: () => Promise.all(packs.map((pack) => settle(pack, env))).then(() => undefined) };
}

async function settle({ message, attempts, parts, deferred }: Pack, env: Bindings): Promise<void> {
  const failed = parts.filter((p) => p.outcome?.retry !== false);
  if (failed.length === 0 && deferred.length === 0) return message.ack();
  try {
    const exhausted = failed.filter((p) => p.attempts >= MAX_ATTEMPTS);
    const again = failed.filter((p) => p.attempts < MAX_ATTEMPTS);
    const queue = deliveryQueueFor(env, message.id);
    const letters = exhausted.flatMap((p) => {
      const job = DeliveryJob.safeParse(p.body);
      return job.success ? [{ body: { job: job.data, reason: "retries_exhausted" } }] : [];
    });
    if (letters.length) await env.DEAD_LETTER_QUEUE.sendBatch(letters);
    if (again.length) {
      const delaySeconds = Math.max(...again.map((p) => p.outcome?.delaySeconds ?? retryDelaySeconds(p.attempts)));
      await sendPacked(
        queue,
        again.map((p) => p.body),
        { delaySeconds, attempts: Math.max(...again.map((p) => p.attempts)) },
      );
    }
    if (deferred.length) await sendPacked(queue, deferred, { attempts });
    message.ack();
  } catch (error) {
    console.log(JSON.stringify({ level: "warn", event: "pack_settle_failed", id: message.id, error: String(error) }));
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
  }
}
