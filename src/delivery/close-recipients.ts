import { createDb } from "../db/client";
import { runBatch } from "../db/batch";
import type { TriggerSnapshot } from "../durable-objects/trigger-client";
import type { Bindings } from "../env";
import { isChannelStep } from "../features/workflows/steps";
import type { RecipientsJob } from "./job";
import { MessageWrites } from "./message-writes";
import { FINAL_OR_SENT, keyOf, load } from "./recipients-state";

/** Records every step not yet done for these recipients as cancelled: nothing more of the trigger is sent. */
export const cancelRecipients = (env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot) =>
  closeRecipients(env, job, trigger, "cancelled", { reason: "trigger_cancelled" });

/** A recipients job the Queue gave up on: whatever it left unfinished fails, with the reason. */
export const failRecipients = (env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot, reason: string) =>
  closeRecipients(env, job, trigger, "failed", { reason: "dead_lettered", message: reason });

async function closeRecipients(
  env: Bindings,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  status: "cancelled" | "failed",
  detail: { reason: string; message?: string },
): Promise<number> {
  const db = createDb(env.DB);
  const loaded = await load(db, env, job, trigger);
  const writes = new MessageWrites(db, new Date());
  const error = status === "failed" ? { errorCode: detail.reason, errorMessage: detail.message ?? null } : {};
  let closed = 0;
  for (const step of loaded.workflow?.steps ?? []) {
    if (!isChannelStep(step)) continue;
    for (const subscriberId of job.subscriberIds) {
      const existing = loaded.existing.get(keyOf(subscriberId, step.id));
      if (existing && FINAL_OR_SENT.has(existing.status)) continue;
      closed++;
      if (existing) writes.update(job.environmentId, existing.id, status, error, { status, detail });
      else {
        writes.insertFinal(
          { environmentId: job.environmentId, transactionId: job.transactionId, subscriberId, workflowKey: trigger.workflowKey, stepId: step.id, channel: step.type },
          status,
          error,
          [{ status, detail }],
        );
      }
    }
  }
  await runBatch(db, writes.all());
  return closed;
}

