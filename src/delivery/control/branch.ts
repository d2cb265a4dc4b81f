import type { RunStepRow } from "../../engine/content";
import { evaluateCondition } from "../../engine/conditions";
import type { BranchStep } from "../../engine/steps";
import { DEFAULT_PATH } from "../../engine/workflow-tree";
import { contextFor } from "../recipients/recipients-state";
import type { ControlRunner } from "./runner";

/** A branch: the first path whose condition holds, else the default, else none (the steps after the branch still run). */
export const branchRunner: ControlRunner<BranchStep> = {
  async run(run, step, pending): Promise<RunStepRow[]> {
    return pending.map((r) => {
      const context = contextFor(r, step);
      const taken = step.paths.find((p) => evaluateCondition(p.if, context, run.now))?.id ?? (step.default ? DEFAULT_PATH : undefined);
      return {
        subscriberId: r.profile.subscriberId,
        stepId: step.id,
        outcome: taken ? { status: "ran", path: taken } : { status: "ran", reason: "no_path" },
      };
    });
  },
};
