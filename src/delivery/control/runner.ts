import type { TriggerHome } from "../../durable-objects/client/batched-homes";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import type { Step } from "../../engine/steps";
import type { RecipientsJob } from "../../jobs/job";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import type { DeliveryContext } from "../context";
import type { Loaded, Recipient, Stop } from "../recipients/recipients-state";

/** Steps that decide or act rather than deliver; each recipient's outcome is recorded in the run's home. */
export const CONTROL_STEP_TYPES = ["branch", "http", "wait", "trigger_workflow", "update_subscriber"] as const;
export type ControlStep = Extract<Step, { type: (typeof CONTROL_STEP_TYPES)[number] }>;

/** Everything a control step's runner may use. */
export interface ControlRun {
  ctx: DeliveryContext;
  job: RecipientsJob;
  trigger: TriggerSnapshot;
  home: TriggerHome;
  loaded: Loaded;
  /** The step's place in the run's program: where a parked recipient resumes. */
  index: number;
  now: Date;
}

/**
 * One kind of control step. `run` decides the outcome of the recipients that have none yet (or
 * an open one), doing its side effect at most once per recorded outcome; `stopFor` says when a
 * recorded outcome ends the recipient's run.
 */
export interface ControlRunner<S extends ControlStep> {
  run(run: ControlRun, step: S, pending: Recipient[]): Promise<RunStepRow[]>;
  stopFor?(step: S, outcome: StepOutcomeView): Stop | null;
}
