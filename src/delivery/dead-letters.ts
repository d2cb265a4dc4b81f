import { runBatch } from "../db/batch";
import { ledgerStub } from "../durable-objects/ledger/shards";
import type { Bindings } from "../env";
import { finishTrigger, recordTriggers } from "./trigger-writes";
import { retryDelaySeconds } from "./backoff";
import { failRecipients } from "./close-recipients";
import { DeliveryContext } from "./context";
import { DeadLetter, DeliveryJob } from "./job";
import { MessageWrites } from "./message-writes";

/**
 * Jobs that exhausted their retries land here, either as the original job (the Queue moved
 * it) or as a DeadLetter with a reason (the engine gave up on a message). Each leaves a
 * terminal, queryable trace: a failed trigger record, failed messages, or a `failed` event
 * carrying the reason on the message.
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const ctx = new DeliveryContext(env);
  for (const message of batch.messages) {
    const letter = DeadLetter.safeParse(message.body);
    const job = letter.success ? letter.data.job : DeliveryJob.safeParse(message.body).data;
    const reason = letter.success ? letter.data.reason : "retries_exhausted";
    if (!job) {
      message.ack();
      continue;
    }
    try {
      const stored = await ctx.snapshot(job);
      if (letter.success && letter.data.messageId) {
        const writes = new MessageWrites(ctx.db, new Date());
        writes.event(job.environmentId, letter.data.messageId, { status: "failed", detail: { deadLettered: true, reason } });
        await runBatch(ctx.db, writes.all());
      } else if (job.type === "trigger" && stored) {
        const { state: _state, ledger, coordinated: _c, ...record } = stored;
        await recordTriggers(ctx.db, [{ record, status: "failed" }]);
        await ledgerStub(env, ledger).finish([{ environmentId: job.environmentId, transactionId: job.transactionId, state: "failed" }]);
      } else if (job.type === "recipients" && stored) {
        await failRecipients(ctx, job, stored, reason);
        if (await ctx.home(stored).recipientsDone(job.chunk, job.subscriberIds))
          await finishTrigger(ctx.db, job.environmentId, job.transactionId, "completed");
      }
      console.log(JSON.stringify({ level: "error", event: "dead_letter", transactionId: job.transactionId, reason }));
      message.ack();
    } catch {
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
