import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import { digestName, throttleName } from "../../durable-objects/client/naming";
import type { TriggerStore } from "../../durable-objects/client/trigger-store";
import { evaluateCondition } from "../../engine/conditions";
import type { ChannelStep, Step } from "../../engine/steps";
import { NEGLIGIBLE_DELAY_MS, planDelay, stepKey, windowMs } from "./action-step-plans";
import type { RecipientsJob } from "../../jobs/job";
import { transition } from "../recipients/recipient-transitions";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import type { TriggerSnapshot } from "../../jobs/trigger-record";

/**
 * Runs a delay, throttle or digest step for the recipients still running: a delay parks them
 * (their job comes back from the trigger object's alarm), a throttle may stop them, a digest
 * hands them to the digest object. `next` is the step that waits for a delay or digest to end.
 */
export async function runActionStep(
  store: TriggerStore,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  step: Exclude<Step, ChannelStep>,
  index: number,
  next: Step | undefined,
  recipients: Recipient[],
  coordinator: TriggerHome,
) {
  const now = new Date();
  const passes = recipients.filter((r) => !step.if || evaluateCondition(step.if, contextFor(r, step), now));
  switch (step.type) {
    case "delay":
      for (const r of passes) runDelay(step, index, next, r, now);
      return;
    case "throttle":
      await Promise.all(passes.map((r) => runThrottle(store, job, trigger, step, r)));
      return;
    case "digest":
      await Promise.all(passes.map((r) => runDigest({ store, job, trigger, step, index, next, coordinator }, r, now)));
      return;
  }
}

type ActionStep<T extends Exclude<Step, ChannelStep>["type"]> = Extract<Step, { type: T }>;

/** A recipient's delay: failed when it cannot be planned, passed at once when negligible, else parked until it ends. */
function runDelay(step: ActionStep<"delay">, index: number, next: Step | undefined, r: Recipient, now: Date): void {
  const plan = planDelay(step, contextFor(r, step), r.timezone, now);
  if (!plan.ok) {
    transition(r, { type: "stop", stop: { status: "failed", code: "invalid_delay", message: plan.message } });
    return;
  }
  transition(r, { type: "step", stepId: step.id, outcome: { status: "sent" } });
  if (plan.fireAt.getTime() - now.getTime() < NEGLIGIBLE_DELAY_MS) {
    if (plan.past)
      transition(r, {
        type: "note",
        note: { delay: step.id, until: plan.fireAt.toISOString(), note: "delay.until was in the past: sent at once" },
      });
    return;
  }
  transition(r, {
    type: "wait",
    fireAt: plan.fireAt.getTime(),
    fromStep: index + 1,
    hold: { kind: "delay", stepId: (next ?? step).id },
    note: { delay: step.id, delayedUntil: plan.fireAt.toISOString() },
  });
}

/** A recipient's throttle: passed, or stopped as skipped once the window's limit is reached. */
async function runThrottle(store: TriggerStore, job: RecipientsJob, trigger: TriggerSnapshot, step: ActionStep<"throttle">, r: Recipient) {
  const key = stepKey(step.key, contextFor(r, step));
  const name = throttleName(job.environmentId, trigger.workflowKey, r.profile.subscriberId, key);
  const passed = await store.takeThrottle(name, job.transactionId, windowMs(step.window), step.limit);
  transition(r, { type: "step", stepId: step.id, outcome: { status: passed ? "sent" : "skipped" } });
  if (!passed)
    transition(r, {
      type: "stop",
      stop: { status: "skipped", code: "throttled", message: `More than ${step.limit} runs in ${step.window}.` },
    });
}

interface DigestRun {
  store: TriggerStore;
  job: RecipientsJob;
  trigger: TriggerSnapshot;
  step: ActionStep<"digest">;
  index: number;
  next: Step | undefined;
  coordinator: TriggerHome;
}

/** A recipient's digest: the trigger's home holds until the window closes; the digest object says whether this run goes on. */
async function runDigest({ store, job, trigger, step, index, next, coordinator }: DigestRun, r: Recipient, now: Date) {
  const key = stepKey(step.key, contextFor(r, step));
  const name = digestName(job.environmentId, trigger.workflowKey, r.profile.subscriberId, key);
  const digest = store.digest(name);
  const resume: RecipientsJob = {
    ...job,
    subscriberIds: [r.profile.subscriberId],
    fromStep: index + 1,
    digest: undefined,
    digestedInto: undefined,
  };
  await coordinator.hold(now.getTime() + windowMs(step.window), name);
  const decision = await digest.add(
    { transactionId: job.transactionId, payload: trigger.payload, job: resume, waitingStepId: (next ?? step).id },
    step.id,
    windowMs(step.window),
    step.mode,
  );
  if (decision === "continue")
    transition(r, { type: "step", stepId: step.id, outcome: { status: "sent", events: [trigger.payload], count: 1 } });
  else transition(r, { type: "digest" });
}
