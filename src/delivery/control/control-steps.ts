import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import { evaluateCondition } from "../../engine/conditions";
import type { Step } from "../../engine/steps";
import type { PlacedStep } from "../../engine/workflow-tree";
import { transition } from "../recipients/recipient-transitions";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import { branchRunner } from "./branch";
import { httpRunner } from "./http";
import { triggerWorkflowRunner } from "./trigger-workflow";
import { updateSubscriberRunner } from "./update-subscriber";
import { waitRunner, watchOf } from "./wait";
import { CONTROL_STEP_TYPES, type ControlRun, type ControlRunner, type ControlStep } from "./runner";

export type { ControlRun, ControlStep } from "./runner";

export const isControlStep = (step: Step): step is ControlStep => (CONTROL_STEP_TYPES as readonly string[]).includes(step.type);

/** Whether a run of this program must read its recorded outcomes first. */
export const usesRunState = (program: readonly PlacedStep[]) => program.some((p) => isControlStep(p.step));

/** Outcomes a later run of the step decides again: a wait still waiting, a fetch between retries. */
const isOpen = (outcome: StepOutcomeView | undefined) => outcome?.status === "waiting" || outcome?.status === "retrying";

const RUNNERS: { [T in ControlStep["type"]]: ControlRunner<Extract<ControlStep, { type: T }>> } = {
  branch: branchRunner,
  http: httpRunner,
  wait: waitRunner,
  trigger_workflow: triggerWorkflowRunner,
  update_subscriber: updateSubscriberRunner,
};

/** Reads back what earlier runs recorded for these recipients: later steps see it as `steps.<id>`. */
export async function adoptRecorded(home: TriggerHome, recipients: Map<string, Recipient>): Promise<void> {
  for (const row of await home.outcomes([...recipients.keys()])) {
    const recipient = recipients.get(row.subscriberId);
    if (recipient) transition(recipient, { type: "step", stepId: row.stepId, outcome: row.outcome });
  }
}

/**
 * Runs a control step for the recipients on its path that are still running. A step whose `if`
 * is false is recorded skipped. Outcomes are recorded before anything follows from them, and
 * what is stored wins: a run that lost a race (or re-runs after a crash) follows the first.
 */
export async function runControlStep(run: ControlRun, step: ControlStep, running: Recipient[]): Promise<void> {
  const runner = RUNNERS[step.type] as ControlRunner<ControlStep>;
  const pending = running.filter((r) => r.steps[step.id] === undefined || isOpen(r.steps[step.id]));
  const skipped = step.if ? pending.filter((r) => !evaluateCondition(step.if!, contextFor(r, step), run.now)) : [];
  const deciding = skipped.length ? pending.filter((r) => !skipped.includes(r)) : pending;
  const rows: RunStepRow[] = [
    ...skipped.map((r) => ({ subscriberId: r.profile.subscriberId, stepId: step.id, outcome: { status: "skipped", reason: "condition" } })),
    ...(deciding.length ? await runner.run(run, step, deciding) : []),
  ];
  for (const row of await run.home.record(rows)) {
    const r = run.loaded.recipients.get(row.subscriberId);
    if (r) transition(r, { type: "step", stepId: row.stepId, outcome: row.outcome });
  }
  for (const r of running) follow(run, step, runner, r);
}

/** What a recipient's outcome of the step means for its run: it waits, it stops, or it goes on. */
function follow(run: ControlRun, step: ControlStep, runner: ControlRunner<ControlStep>, r: Recipient) {
  const outcome = r.steps[step.id];
  if (!outcome) return;
  if (isOpen(outcome) && outcome.until) {
    transition(r, {
      type: "wait",
      fireAt: Date.parse(outcome.until),
      fromStep: run.index,
      // A wait's hold says what it watches, so its object can match events without the workflow.
      hold: { kind: outcome.status === "waiting" ? "wait" : "retry", stepId: step.id, ...watchOf(outcome) },
      note: {},
    });
    return;
  }
  const stop = runner.stopFor?.(step, outcome);
  if (stop && !r.stop) transition(r, { type: "stop", stop });
}
