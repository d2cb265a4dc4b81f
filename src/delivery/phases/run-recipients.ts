import { type ChannelStep, isChannelStep } from "../../engine/steps";
import { onPath, placeSteps } from "../../engine/workflow-tree";
import { watchedSteps } from "../control/wait";
import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import { adoptRecorded, type ControlRun, isControlStep, runControlStep, usesRunState } from "../control/control-steps";
import { runActionStep } from "../actions/action-steps";
import { cancelRecipients } from "../recipients/close-recipients";
import type { DeliveryContext } from "../context";
import type { RecipientsJob } from "../../jobs/job";
import { runOutcome, waitEntries } from "./park";
import { planChannelStep } from "./plan";
import { recordClaims } from "./record";
import { reportResults } from "./report";
import { claimKey, type StepScope } from "./scope";
import { sendAll } from "./send";
import type { MessageWrites } from "../writes/message-writes";
import { transition } from "../recipients/recipient-transitions";
import { load, type Loaded, type Recipient } from "../recipients/recipients-state";
import type { TriggerSnapshot } from "../../jobs/trigger-record";

export interface RecipientsResult {
  /** Subscribers whose delivery must continue later, and when. */
  retry: { subscriberIds: string[]; delaySeconds: number } | null;
  /** Messages that failed for good after every provider's attempts: reasons for the dead-letter queue. */
  exhausted: { messageId?: string; reason: string }[];
  /** Whether this job finished the trigger's last recipient. */
  completed: boolean;
  /** The trigger's workflow is gone (a tombstone purged too early): the trigger fails rather than completes. */
  workflowGone?: boolean;
}

/** Another consumer holds a claim: look again after this long (its deadline, if it died). */
const CLAIM_RETRY_SECONDS = 30;

/**
 * Runs a workflow's steps for one chunk of a trigger's recipients. Each channel step runs in
 * phases for all of them: plan (no I/O), claim (one call to the trigger's home object), record
 * (what the log needs before the send, if anything), send (the providers, in parallel), report
 * (the object first, then the log: new messages are written there once, with their results).
 * Delay, throttle and digest steps run as action steps. At the end, waiting recipients are
 * parked on the home object and the finished ones counted there.
 */
export async function runRecipients(
  ctx: DeliveryContext,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  /** Whether the chunk's run span is traced (sampled): its sends get spans of their own only then. */
  traced = true,
): Promise<RecipientsResult> {
  const loaded = await load(ctx, job, trigger);
  const home = ctx.home(trigger);
  if (!loaded.workflow) {
    // A deleted workflow stays as a tombstone for its triggers; with even that gone its steps are unknown, so
    // nothing can be recorded per step: the trigger ends `failed` and the dead-letter queue keeps the reason.
    const completed = await home.recipientsDone(job.chunk, job.subscriberIds);
    return {
      retry: null,
      exhausted: [{ reason: `workflow_deleted: "${trigger.workflowKey}" no longer exists` }],
      completed,
      workflowGone: true,
    };
  }
  await resumeFromJob(ctx, job, loaded);

  const recipients = [...loaded.recipients.values()];
  const exhausted: RecipientsResult["exhausted"] = [];
  let retryDelay = Number.POSITIVE_INFINITY;
  const halt = (recipient: Recipient, seconds: number) => {
    transition(recipient, { type: "halt" });
    retryDelay = Math.min(retryDelay, seconds);
  };

  const program = placeSteps(loaded.workflow.steps);
  const watched = watchedSteps(program);
  if (usesRunState(program)) await adoptRecorded(home, loaded.recipients);
  for (const [index, { step, guard }] of program.entries()) {
    // Only recipients whose branches led here: a step on a path not taken is not theirs, and leaves no message.
    const onWay = guard.length ? recipients.filter((r) => onPath(guard, (branch) => r.steps[branch]?.path)) : recipients;
    const running = onWay.filter((r) => r.state === "active");
    if (isControlStep(step)) {
      const run: ControlRun = { ctx, job, trigger, home, loaded, index, now: new Date() };
      await runControlStep(
        run,
        step,
        running.filter((r) => !r.stop),
      );
      continue;
    }
    if (!isChannelStep(step)) {
      if (index >= (job.fromStep ?? 0))
        await runActionStep(
          ctx.store,
          job,
          trigger,
          step,
          index,
          program[index + 1]?.step,
          running.filter((r) => !r.stop),
          home,
        );
      continue;
    }
    await runChannelStep(ctx, { job, trigger, loaded, home, index, watched: watched.has(step.id), traced }, step, running, {
      halt,
      exhausted,
    });
  }

  const entries = waitEntries(job, recipients);
  if (entries.length && (await home.wait(entries)) === "cancelled") {
    // Cancelled while they were on their way to wait: record their remaining steps now.
    await cancelRecipients(ctx, { ...job, subscriberIds: entries.flatMap((e) => e.job.subscriberIds) }, trigger);
    for (const r of recipients) transition(r, { type: "end" });
  }
  const { finished, halted } = runOutcome(recipients);
  const completed = finished.length ? await home.recipientsDone(job.chunk, finished) : false;
  return { retry: halted.length ? { subscriberIds: halted, delaySeconds: retryDelay } : null, exhausted, completed };
}

interface ChannelRun {
  job: RecipientsJob;
  trigger: TriggerSnapshot;
  loaded: Loaded;
  home: TriggerHome;
  index: number;
  /** A wait step watches this step's messages. */
  watched: boolean;
  traced: boolean;
}

/** One channel step for the recipients running: plan, claim, record, send, report (see runRecipients). */
async function runChannelStep(
  ctx: DeliveryContext,
  { job, trigger, loaded, home, index, watched, traced }: ChannelRun,
  step: ChannelStep,
  running: Recipient[],
  out: { halt: (r: Recipient, seconds: number) => void; exhausted: RecipientsResult["exhausted"] },
) {
  const startedAt = new Date();
  const scope: StepScope = {
    db: ctx.db,
    job,
    trigger,
    step,
    existing: loaded.existing,
    suppressed: loaded.suppressed,
    secrets: loaded.secrets,
    workflowTags: loaded.workflow?.tags ?? [],
    watched,
    traced,
  };
  const plan = planChannelStep(step, index, running, loaded, trigger, startedAt);
  if (plan.sends.length === 0 && plan.finals.length === 0) return;
  // On its way to a write from here: the group commit of the chunks' writes waits for it (write-quorum.ts).
  let way = ctx.quorum.enter();
  try {
    const claims = await home.claim(
      plan.sends.map((s) => claimKey(scope, s.recipient)),
      plan.finals.map((f) => claimKey(scope, f.recipient)),
    );
    // Held from the grant until the object hears the report, however long the sends take (claim-lease.ts).
    const release = ctx.leases.hold(home, claims.granted);
    let writes: MessageWrites;
    try {
      const recorded = recordClaims(plan, claims, scope, startedAt);
      for (const r of recorded.busy) out.halt(r, CLAIM_RETRY_SECONDS);
      // Only what must be in the log before the send (skips, cancellations, repairs, in-app
      // notifications, rows of earlier attempts): a new message is written once, with its result.
      if (!recorded.writes.empty) {
        ctx.quorum.arrived(way);
        await ctx.writeMessages(recorded.writes);
        way = ctx.quorum.enter();
      }
      const chain = loaded.integrations.get(step.type) ?? [];
      const delivered = await sendAll(ctx.env, scope, recorded.toSend, chain);
      const reported = reportResults(delivered, chain, scope, startedAt, new Date());
      for (const { recipient, delaySeconds } of reported.retries) out.halt(recipient, delaySeconds);
      out.exhausted.push(...reported.exhausted);
      if (reported.reports.length) await home.report(reported.reports);
      writes = reported.writes;
    } finally {
      release();
    }
    ctx.quorum.arrived(way);
    await ctx.writeMessages(writes);
  } finally {
    // A step that failed before its write holds no group either.
    ctx.quorum.arrived(way);
  }
}

/** A resumed job carries what happened before it: a note for the next message, a closed digest, or a digest that took this trigger's events. */
async function resumeFromJob(ctx: DeliveryContext, job: RecipientsJob, loaded: Loaded) {
  const recipients = [...loaded.recipients.values()];
  if (job.note) for (const r of recipients) transition(r, { type: "note", note: job.note });
  if (job.digestedInto) {
    const stop = { status: "skipped" as const, code: "digested", message: `Collected into the digest sent by ${job.digestedInto}.` };
    for (const r of recipients) transition(r, { type: "stop", stop });
  }
  if (job.digest) {
    const collected = await ctx.store.digest(job.digest.name).collected(job.transactionId);
    const outcome = { status: "sent", events: collected?.events ?? [], count: collected?.count ?? 0 };
    for (const r of recipients) transition(r, { type: "step", stepId: job.digest.stepId, outcome });
  }
}
