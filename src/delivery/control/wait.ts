import type { z } from "@hono/zod-openapi";
import type { WaitWatch } from "../../durable-objects/ledger/claims";
import type { RunStepRow, StepOutcomeView, TemplateContext } from "../../engine/content";
import { evaluateCondition } from "../../engine/conditions";
import { addDuration } from "../../engine/durations";
import type { WaitStep } from "../../engine/steps";
import type { PlacedStep } from "../../engine/workflow-tree";
import { reaches } from "../../engine/wait-statuses";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import type { ControlRun, ControlRunner } from "./runner";

type Wait = z.infer<typeof WaitStep>;
type WaitWatchedMessage = Extract<WaitWatch, { message: unknown }>["message"];

const row = (r: Recipient, step: Wait, outcome: StepOutcomeView): RunStepRow => ({
  subscriberId: r.profile.subscriberId,
  stepId: step.id,
  outcome,
});

/**
 * A wait for an event. On reaching it, a recipient whose watched message already reached the
 * status is `matched` at once; otherwise the open outcome `waiting` (until now + timeout, with
 * what it watches in `detail.watch`) parks the recipient: one wait row and the object's alarm.
 * The object that keeps the row ends it early (signals.ts) by recording `matched` and sending
 * the recipient back here, where the recorded outcome lets the run go on.
 *
 * Coming back with the outcome still `waiting`: the job the timeout released (it resumes at this
 * step and carries no signal) or a clock past `until` ends it `timed_out`; a job carrying a
 * signal is this wait's `if` to read against it; anything else came back early and waits on.
 */
export const waitRunner: ControlRunner<Wait> = {
  async run(run, step, pending): Promise<RunStepRow[]> {
    const fresh = pending.filter((r) => r.steps[step.id] === undefined);
    const back = pending.filter((r) => r.steps[step.id]?.status === "waiting");
    const rows: RunStepRow[] = [...(await reach(run, step, fresh)), ...back.map((r) => decideAgain(run, step, r))];
    if ("message" in step.until) return settleByMessages(run, step.until.message, rows);
    return rows;
  },
};

/** First arrival at the wait: the open outcome, recorded before anything is read (see settleByMessages). */
async function reach(run: ControlRun, step: Wait, fresh: Recipient[]): Promise<RunStepRow[]> {
  if (fresh.length === 0) return [];
  const until = addDuration(run.now, step.timeout) ?? run.now;
  const watch: WaitWatch =
    "message" in step.until
      ? { message: step.until.message }
      : { signal: step.until.signal, conditional: step.until.if !== undefined, since: run.now.getTime() };
  return fresh.map((r) => row(r, step, waiting(until.toISOString(), watch)));
}

const waiting = (until: string, watch: WaitWatch): StepOutcomeView => ({ status: "waiting", until, detail: { watch } });

function decideAgain(run: ControlRun, step: Wait, r: Recipient): RunStepRow {
  const open = r.steps[step.id]!;
  const watch = open.detail?.watch as WaitWatch | undefined;
  const signal = run.job.signal;
  if (signal && "signal" in step.until && signal.name === step.until.signal) {
    const context: TemplateContext = { ...contextFor(r, step), signal: { name: signal.name, data: signal.data ?? null } };
    if (!step.until.if || evaluateCondition(step.until.if, context, run.now)) {
      return row(r, step, { status: "ran", outcome: "matched", detail: { signal: { name: signal.name, data: signal.data ?? null } } });
    }
    // Not this signal: wait on for a later one (the park reads those after `after`).
    if (watch && "signal" in watch)
      return row(r, step, pastTimeout(run, open) ?? { ...open, detail: { watch: { ...watch, after: signal.seq } } });
  }
  const timedOut = (run.job.fromStep === run.index && !signal) || Date.parse(open.until ?? "") <= run.now.getTime();
  return row(r, step, timedOut ? { status: "ran", outcome: "timed_out" } : open);
}

const pastTimeout = (run: ControlRun, open: StepOutcomeView): StepOutcomeView | null =>
  Date.parse(open.until ?? "") <= run.now.getTime() ? { status: "ran", outcome: "timed_out" } : null;

/**
 * A message wait whose message already reached the status is matched now. The open outcomes are
 * recorded first and the log read after: a status written after that record finds the open
 * outcome in the trigger's home and matches it there (signals.ts `messages`), one written before
 * is in what is read here, so none falls between the two. What is stored wins either way.
 */
async function settleByMessages(run: ControlRun, watched: WaitWatchedMessage, rows: RunStepRow[]) {
  const open = rows.filter((r) => r.outcome.status === "waiting");
  if (open.length === 0) return rows;
  const stored = await run.home.record(open);
  const stillOpen = stored.filter((r) => r.outcome.status === "waiting");
  if (stillOpen.length === 0) return rows;
  const reached = await reachedStatuses(
    run,
    watched.step,
    stillOpen.map((r) => r.subscriberId),
  );
  return rows.map((r) => {
    const statuses = reached.get(r.subscriberId);
    const hit = statuses && [...statuses].find((s) => reaches(s, watched.status));
    return r.outcome.status === "waiting" && hit
      ? { ...r, outcome: { status: "ran", outcome: "matched" as const, detail: { message: { step: watched.step, status: hit } } } }
      : r;
  });
}

/** Every status in the timelines of the watched step's messages, by recipient. */
async function reachedStatuses(run: ControlRun, stepId: string, subscriberIds: string[]): Promise<Map<string, Set<string>>> {
  const { environmentId, transactionId } = run.job;
  const messages = (
    await run.ctx.logs.ofRecipients(
      environmentId,
      subscriberIds.map((s) => [transactionId, s]),
      run.trigger.acceptedAt,
    )
  ).filter((m) => m.stepId === stepId);
  const found = messages.length
    ? await run.ctx.logs.find(
        environmentId,
        messages.map((m) => m.id),
      )
    : [];
  const reached = new Map<string, Set<string>>();
  for (const { message, events } of found) {
    reached.set(message.subscriberId, new Set([message.status, ...events.map((e) => e.status)]));
  }
  return reached;
}

/** The hold's `watch` of an open wait outcome (none for other open outcomes). */
export const watchOf = (outcome: StepOutcomeView): { watch?: WaitWatch } =>
  outcome.detail?.watch ? { watch: outcome.detail.watch as WaitWatch } : {};

/** The channel steps whose messages a wait step of the program watches. */
export const watchedSteps = (program: readonly PlacedStep[]): ReadonlySet<string> =>
  new Set(program.flatMap(({ step }) => (step.type === "wait" && "message" in step.until ? [step.until.message.step] : [])));
