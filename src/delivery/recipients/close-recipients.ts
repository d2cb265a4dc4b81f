import type { DeliveryContext } from "../context";
import { isChannelStep } from "../../engine/steps";
import type { RecipientsJob } from "../../jobs/job";
import { MessageWrites } from "../writes/message-writes";
import { FINAL_OR_SENT, keyOf, load } from "./recipients-state";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import { onPath, placeSteps } from "../../engine/workflow-tree";
import { adoptRecorded, usesRunState } from "../control/control-steps";

/** Records every step not yet done for these recipients as cancelled: nothing more of the trigger is sent. */
export const cancelRecipients = (ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerSnapshot) =>
  closeRecipients(ctx, job, trigger, "cancelled", { reason: "trigger_cancelled" });

/** The subscribers were erased while their steps waited (`DELETE /v1/subscribers/{id}`): nothing more of theirs is sent. */
export const eraseRecipients = (ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerSnapshot) =>
  closeRecipients(ctx, job, trigger, "cancelled", { reason: "subscriber_deleted" });

/** A recipients job the Queue gave up on: whatever it left unfinished fails, with the reason. */
export const failRecipients = (ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerSnapshot, reason: string) =>
  closeRecipients(ctx, job, trigger, "failed", { reason: "dead_lettered", message: reason });

async function closeRecipients(
  ctx: DeliveryContext,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  status: "cancelled" | "failed",
  detail: { reason: string; message?: string },
): Promise<number> {
  const loaded = await load(ctx, job, trigger);
  const writes = new MessageWrites(ctx.db, new Date());
  const error = status === "failed" ? { errorCode: detail.reason, errorMessage: detail.message ?? null } : {};
  let closed = 0;
  const program = placeSteps(loaded.workflow?.steps ?? []);
  // A step on a path the recipient did not take (or has not reached a branch for) is not closed: it was never theirs.
  if (usesRunState(program)) await adoptRecorded(ctx.home(trigger), loaded.recipients);
  for (const { step, guard } of program) {
    if (!isChannelStep(step)) continue;
    for (const subscriberId of job.subscriberIds) {
      const taken = loaded.recipients.get(subscriberId)?.steps ?? {};
      if (!onPath(guard, (branch) => taken[branch]?.path)) continue;
      const existing = loaded.existing.get(keyOf(subscriberId, step.id));
      if (existing && FINAL_OR_SENT.has(existing.status)) continue;
      closed++;
      if (existing) writes.update(existing, status, error, { status, detail });
      else {
        writes.insertFinal(
          {
            environmentId: job.environmentId,
            transactionId: job.transactionId,
            subscriberId,
            workflowKey: trigger.workflowKey,
            stepId: step.id,
            channel: step.type,
            workflowVersion: trigger.workflowVersion || null,
          },
          status,
          error,
          [{ status, detail }],
        );
      }
    }
  }
  await ctx.writeMessages(writes);
  return closed;
}
