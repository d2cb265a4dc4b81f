import type { RecordedStep } from "../../durable-objects/client/trigger-store";
import type { WaitingStep } from "../../durable-objects/ledger/claims";
import { isChannelStep } from "../../engine/steps";
import { onPath, type PlacedStep } from "../../engine/workflow-tree";
import type { RecipientRun, RunStep } from "./run-schemas";

/** What a run view needs of a message. */
export interface RunMessage {
  id: string;
  subscriberId: string;
  stepId: string;
  status: string;
  errorCode: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One recipient's records: their messages, their control steps' outcomes, their parked steps. */
export interface RecipientRecords {
  messages: RunMessage[];
  steps: RecordedStep[];
  waits: WaitingStep[];
}

/** Steps that hold a run without recording an outcome: their wait names the step after them. */
const HOLDING = new Set(["delay", "digest", "throttle"]);

/**
 * One recipient's run, from what its home recorded and its messages: the steps on its path in
 * run order (placeSteps), each with its outcome. A step inside a branch is shown only once the
 * branch chose its path, so a path not taken never shows as run. Control steps are read from
 * their recorded outcome whatever their type, so a new control step shows without a change here.
 */
export function recipientRun(program: readonly PlacedStep[], subscriberId: string, records: RecipientRecords): RecipientRun {
  const recorded = new Map(records.steps.map((s) => [s.stepId, s]));
  // The latest message of each step (a retried or resumed step may have written more than one).
  const messages = new Map<string, RunMessage>();
  for (const m of [...records.messages].sort((a, b) => a.createdAt - b.createdAt)) messages.set(m.stepId, m);
  const waits = new Map(records.waits.map((w) => [ownerOf(program, w), w]));
  const chosen = (branch: string) => recorded.get(branch)?.path;
  const path = program.flatMap(({ step, guard }) => {
    const branch = step.type === "branch" ? recorded.get(step.id) : undefined;
    return branch && onPath(guard, chosen) && branch.status !== "waiting" ? [{ branch: step.id, path: branch.path ?? null }] : [];
  });

  const onWay = program.filter(({ guard }) => onPath(guard, chosen));
  const views = onWay.map(({ step, depth }): RunStep => {
    const base = { stepId: step.id, type: step.type, depth };
    const wait = waits.get(step.id);
    if (wait) return { ...base, status: "waiting", kind: wait.kind, until: new Date(wait.until).toISOString() };
    if (isChannelStep(step)) {
      const m = messages.get(step.id);
      if (!m) return { ...base, status: "pending" };
      return {
        ...base,
        status: m.status,
        messageId: m.id,
        at: new Date(m.updatedAt).toISOString(),
        ...(m.errorCode ? { reason: m.errorCode } : {}),
      };
    }
    if (HOLDING.has(step.type)) return { ...base, status: "pending" };
    const r = recorded.get(step.id);
    if (!r) return { ...base, status: "pending" };
    const { subscriberId: _s, stepId: _id, path: taken, ...outcome } = r;
    return { ...base, ...outcome, ...(step.type === "branch" ? { path: taken ?? null } : {}) };
  });
  // A delay, digest or throttle the run went past: some step after it on the way has an outcome.
  let reachedLater = false;
  for (let i = views.length - 1; i >= 0; i--) {
    const view = views[i]!;
    if (HOLDING.has(view.type) && view.status === "pending" && reachedLater) views[i] = { ...view, status: "passed" };
    if (view.status !== "pending") reachedLater = true;
  }
  return { subscriberId, path, steps: views };
}

/**
 * The step a parked recipient waits at. A delay or digest parks the run at the step after it
 * (the one that runs when the wait ends; itself when it is the last), so its wait is shown on
 * it; quiet hours, a schedule, a wait step or a fetch's retry hold the step they name.
 */
function ownerOf(program: readonly PlacedStep[], wait: WaitingStep): string | null {
  if (wait.kind !== "delay" && wait.kind !== "digest") return wait.stepId;
  const at = program.findIndex((p) => p.step.id === wait.stepId);
  if (at < 0) return wait.stepId;
  if (program[at]!.step.type === wait.kind) return wait.stepId;
  return program[at - 1]?.step.id ?? wait.stepId;
}

/**
 * A recipient's run once its home forgot the trigger: only what its messages show, oldest first
 * (the path and control steps' outcomes went with the home).
 */
export function runFromMessages(subscriberId: string, messages: readonly RunMessage[], typeOf: (stepId: string) => string): RecipientRun {
  const steps = [...messages]
    .sort((a, b) => a.createdAt - b.createdAt)
    .map(
      (m): RunStep => ({
        stepId: m.stepId,
        type: typeOf(m.stepId),
        depth: 0,
        status: m.status,
        messageId: m.id,
        at: new Date(m.updatedAt).toISOString(),
        ...(m.errorCode ? { reason: m.errorCode } : {}),
      }),
    );
  return { subscriberId, path: null, steps };
}
