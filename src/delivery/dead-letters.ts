import { createDb } from "../db/client";
import { runBatch } from "../db/batch";
import { triggerObject } from "../durable-objects/trigger-client";
import type { Bindings } from "../env";
import { finishTrigger, recordTriggers } from "../features/triggers/records";
import { retryDelaySeconds } from "./backoff";
import { DeadLetter, DeliveryJob } from "./job";
import { MessageWrites } from "./message-writes";
import { failRecipients } from "./close-recipients";

/**
 * Jobs that exhausted their retries land here, either as the original job (the Queue moved
 * it) or as a DeadLetter with a reason (the engine gave up on a message). Each leaves a
 * terminal, queryable trace: a failed trigger record, failed messages, or a `failed` event
 * carrying the reason on the message.
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const letter = DeadLetter.safeParse(message.body);
    const job = letter.success ? letter.data.job : DeliveryJob.safeParse(message.body).data;
    const reason = letter.success ? letter.data.reason : "retries_exhausted";
    if (!job) {
      message.ack();
      continue;
    }
    try {
      const object = triggerObject(env, job.environmentId, job.transactionId);
      const stored = await object.read();
      if (letter.success && letter.data.messageId) {
        const writes = new MessageWrites(db, new Date());
        writes.event(job.environmentId, letter.data.messageId, { status: "failed", detail: { deadLettered: true, reason } });
        await runBatch(db, writes.all());
      } else if (job.type === "trigger" && stored) {
        const { state: _state, ...record } = stored;
        await recordTriggers(db, [{ record, status: "failed" }]);
      } else if (job.type === "recipients" && stored) {
        await failRecipients(env, job, stored, reason);
        if (await object.recipientsDone(job.chunk, job.subscriberIds)) await finishTrigger(db, job.environmentId, job.transactionId, "completed");
      }
      console.log(JSON.stringify({ level: "error", event: "dead_letter", transactionId: job.transactionId, reason }));
      message.ack();
    } catch {
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
