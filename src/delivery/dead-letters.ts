import type { Bindings } from "../env";
import { recordTriggers } from "./writes/trigger-writes";
import { retryDelaySeconds } from "./backoff";
import { failRecipients } from "./recipients/close-recipients";
import { DeliveryContext } from "./context";
import { DeadLetter, DeliveryJob } from "../jobs/job";
import { MessageWrites } from "./writes/message-writes";
import { PackedJobs } from "../jobs/pack";

/**
 * Jobs that exhausted their retries land here, either as the original job (the Queue moved
 * it) or as a DeadLetter with a reason (the engine gave up on a message). Each leaves a
 * terminal, queryable trace: a failed trigger record, failed messages, or a `failed` event
 * carrying the reason on the message.
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const ctx = new DeliveryContext(env);
  for (const message of batch.messages) {
    // A pack whose message itself ran out of retries: each of its jobs is a dead letter.
    const pack = PackedJobs.safeParse(message.body);
    const bodies = pack.success ? pack.data.jobs : [message.body];
    try {
      for (const body of bodies) await deadLetter(ctx, body, message.timestamp);
      message.ack();
    } catch {
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
  await ctx.flushEvents();
}

/** `at` is the Queue message's timestamp: kept across retries, so a retried letter writes the same event id. */
async function deadLetter(ctx: DeliveryContext, body: unknown, at: Date): Promise<void> {
  const letter = DeadLetter.safeParse(body);
  const job = letter.success ? letter.data.job : DeliveryJob.safeParse(body).data;
  const reason = letter.success ? letter.data.reason : "retries_exhausted";
  if (!job) return;
  if (job.type === "erase-environment") {
    // Its shards keep the environment's rows until retention removes them; nothing else reads them (no key reaches them).
    console.log(JSON.stringify({ level: "error", event: "dead_letter", environmentId: job.environmentId, shards: job.shards, reason }));
    return;
  }
  const stored = await ctx.snapshot(job);
  if (letter.success && letter.data.messageId) {
    const writes = new MessageWrites(ctx.db, at);
    writes.event(job.environmentId, letter.data.messageId, { status: "failed", detail: { deadLettered: true, reason } });
    await ctx.writeMessages(writes);
  } else if (job.type === "trigger" && stored) {
    const { state: _state, ledger, coordinated: _c, ...record } = stored;
    await recordTriggers(ctx.logs, [{ record, status: "failed" }]);
    await ctx.store.finish(ledger, [{ environmentId: job.environmentId, transactionId: job.transactionId, state: "failed" }]);
  } else if (job.type === "recipients" && stored) {
    await failRecipients(ctx, job, stored, reason);
    if (await ctx.home(stored).recipientsDone(job.chunk, job.subscriberIds))
      await ctx.finish(job.environmentId, job.transactionId, "completed");
  }
  console.log(JSON.stringify({ level: "error", event: "dead_letter", transactionId: job.transactionId, reason }));
}
