import { createDb } from "../db/client";
import type { Bindings } from "../env";
import { triggerObject } from "../durable-objects/trigger-client";
import { recordTriggers } from "../features/triggers/records";
import { DeadLetter, DeliveryJob } from "./job";

/**
 * Jobs that exhausted their retries land here (either as the original job or as a
 * DeadLetter with a reason): their triggers are recorded as failed so no trigger stays
 * without a terminal state.
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
      // A trigger job that never ran leaves its trigger without messages: record it as failed.
      // A recipients job's messages already carry their own terminal state and error.
      const stored = job.type === "trigger" ? await triggerObject(env, job.environmentId, job.transactionId).read() : null;
      if (stored) {
        const { state: _state, ...record } = stored;
        await recordTriggers(db, [{ record, status: "failed" }]);
      }
      console.log(JSON.stringify({ level: "error", event: "dead_letter", transactionId: job.transactionId, reason }));
      message.ack();
    } catch {
      message.retry();
    }
  }
}
