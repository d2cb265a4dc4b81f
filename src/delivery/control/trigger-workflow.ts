import type { z } from "@hono/zod-openapi";
import { parsedJsonObject } from "../../contract/json";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import { MAX_TRIGGER_CHAIN, type TriggerWorkflowStep } from "../../engine/steps";
import { renderValue } from "../../engine/templates";
import { sha256Hex } from "../../lib/crypto";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import type { ChildTrigger } from "../child-triggers";
import type { ControlRun, ControlRunner } from "./runner";

type Step = z.infer<typeof TriggerWorkflowStep>;

/** What `POST /v1/trigger` takes as a transactionId. */
const TRANSACTION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The child's transactionId: `<parent>:<stepId>:<subscriberId>`, so the same step for the same
 * recipient always names the same child and the accept path replays it. When that is not a valid
 * transactionId (longer than 128, or a subscriberId with other characters), the subscriberId is
 * replaced by `sha256.<24 hex of its SHA-256>`; when even that does not fit (a long parent id),
 * the whole id is `sha256.<48 hex of the SHA-256 of the plain form>`. Stable either way.
 */
export async function childTransactionId(parent: string, stepId: string, subscriberId: string): Promise<string> {
  const plain = `${parent}:${stepId}:${subscriberId}`;
  if (TRANSACTION_ID.test(plain)) return plain;
  const hashedRecipient = `${parent}:${stepId}:sha256.${(await sha256Hex(subscriberId)).slice(0, 24)}`;
  if (TRANSACTION_ID.test(hashedRecipient)) return hashedRecipient;
  return `sha256.${(await sha256Hex(plain)).slice(0, 48)}`;
}

const failed = (reason: string, detail: Record<string, unknown>): StepOutcomeView => ({ status: "failed", reason, detail });

/**
 * Starts the named workflow for this recipient only, through the accept path of `POST /v1/trigger`,
 * with the parent's tenant, context keys and actor. A refusal (an unknown or inactive workflow, a
 * payload its schema refuses, a chain too deep) fails the step and the run goes on: later steps
 * may read `steps.<id>.status`.
 */
export const triggerWorkflowRunner: ControlRunner<Step> = {
  async run(run, step, pending): Promise<RunStepRow[]> {
    const depth = (run.trigger.depth ?? 0) + 1;
    if (depth >= MAX_TRIGGER_CHAIN) {
      const outcome = failed("trigger_depth_exceeded", {
        message: `"${step.workflow}" was not started: a chain of trigger_workflow steps holds at most ${MAX_TRIGGER_CHAIN} workflows, and this run is the ${depth}th.`,
        workflow: step.workflow,
        depth,
      });
      return pending.map((r) => ({ subscriberId: r.profile.subscriberId, stepId: step.id, outcome }));
    }
    return Promise.all(
      pending.map(async (r) => ({ subscriberId: r.profile.subscriberId, stepId: step.id, outcome: await start(run, step, r, depth) })),
    );
  },
};

async function start(run: ControlRun, step: Step, r: Recipient, depth: number): Promise<StepOutcomeView> {
  const startChild = run.ctx.services?.startChild;
  // A consumer built without the accept path is a wiring mistake: the job retries rather than record a failure.
  if (!startChild) throw new Error("the consumer was built without startChild");
  const rendered = renderValue(step.payload ?? {}, contextFor(r, step));
  if (!rendered.ok)
    return failed("render_failed", { message: `The payload does not render: ${rendered.message}`, workflow: step.workflow });
  const transactionId = await childTransactionId(run.trigger.transactionId, step.id, r.profile.subscriberId);
  const outcome = await startChild(
    run.ctx.env,
    childOf(run.trigger, step, r, rendered.value as Record<string, unknown>, transactionId, depth),
  );
  if (outcome.status === "refused") return failed(outcome.code, { message: outcome.message, workflow: step.workflow, transactionId });
  return { status: "ran", detail: { transactionId: outcome.transactionId, workflow: step.workflow } };
}

function childOf(
  trigger: TriggerSnapshot,
  step: Step,
  r: Recipient,
  payload: Record<string, unknown>,
  transactionId: string,
  depth: number,
): ChildTrigger {
  return {
    environmentId: trigger.environmentId,
    transactionId,
    workflow: step.workflow,
    subscriberId: r.profile.subscriberId,
    payload: parsedJsonObject(payload),
    actor: trigger.actor ?? null,
    ...(trigger.tenant ? { tenant: trigger.tenant.id } : {}),
    ...(trigger.context ? { context: trigger.context } : {}),
    parentTransactionId: trigger.transactionId,
    depth,
  };
}
