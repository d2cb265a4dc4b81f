import type { RunStepRow } from "../../engine/content";
import type { z } from "@hono/zod-openapi";
import type { WaitStep } from "../../engine/steps";
import type { ControlRunner } from "./runner";

// Placeholder while the step is being built on its own branch: every recipient's run fails here, visibly.
export const waitRunner: ControlRunner<z.infer<typeof WaitStep>> = {
  async run(_run, step, pending): Promise<RunStepRow[]> {
    return pending.map((r) => ({
      subscriberId: r.profile.subscriberId,
      stepId: step.id,
      outcome: { status: "failed", reason: "not_built" },
    }));
  },
  stopFor: (step, outcome) =>
    outcome.reason === "not_built" ? { status: "failed", code: "not_built", message: `A ${step.type} step does not run yet.` } : null,
};
