import type { z } from "@hono/zod-openapi";
import { parsedJsonObject } from "../../contract/json";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import { MAX_TRIGGER_CHAIN, type TriggerWorkflowStep } from "../../engine/steps";
import { renderValue } from "../../engine/templates";
import { sha256Hex } from "../../lib/crypto";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import type { ChildTrigger } from "../child-triggers";
import type { ControlRunner } from "./runner";

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
    const startChildren = run.ctx.services?.startChildren;
    // A consumer built without the accept path is a wiring mistake: the job retries rather than record a failure.
    if (!startChildren) throw new Error("the consumer was built without startChildren");
    const outcomes = new Map<string, StepOutcomeView>();
    const children: ChildTrigger[] = [];
    for (const r of pending) {
      const rendered = renderValue(step.payload ?? {}, contextFor(r, step));
      if (!rendered.ok) {
        const message = `The payload does not render: ${rendered.message}`;
        outcomes.set(r.profile.subscriberId, failed("render_failed", { message, workflow: step.workflow }));
        continue;
      }
      const transactionId = await childTransactionId(run.trigger.transactionId, step.id, r.profile.subscriberId);
      children.push(childOf(run.trigger, step, r, rendered.value as Record<string, unknown>, transactionId, depth));
    }
    // One accept for the chunk's children: one gate read and one call per ledger shard, as a bulk trigger.
    const started = children.length ? await startChildren(run.ctx.env, run.trigger.environmentId, children) : [];
    for (const [i, child] of children.entries()) {
      const outcome = started[i]!;
      outcomes.set(
        child.subscriberId,
        outcome.status === "refused"
          ? failed(outcome.code, { message: outcome.message, workflow: step.workflow, transactionId: child.transactionId })
          : { status: "ran", detail: { transactionId: outcome.transactionId, workflow: step.workflow } },
      );
    }
    return pending.map((r) => ({ subscriberId: r.profile.subscriberId, stepId: step.id, outcome: outcomes.get(r.profile.subscriberId)! }));
  },
};

function childOf(
  trigger: TriggerSnapshot,
  step: Step,
  r: Recipient,
  payload: Record<string, unknown>,
  transactionId: string,
  depth: number,
): ChildTrigger {
  return {
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
