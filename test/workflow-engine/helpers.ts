import { runInDurableObject } from "cloudflare:test";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { ledgerOf } from "../ledger";

/** A sandbox environment with one workflow of these steps, under a fresh key starting with `prefix`. */
export async function workflowWith(steps: unknown[], prefix = "wf") {
  const env = await createSandboxEnvironment();
  const workflow = unique(prefix).toLowerCase();
  await createWorkflow(env.key, { key: workflow, steps });
  return { ...env, workflow };
}

/** A recorded control-step outcome as the trigger's home keeps it: the subscriber, the step, the outcome (raw and parsed). */
export interface RecordedOutcome {
  subscriberId: string;
  step: string;
  raw: string;
  outcome: Record<string, unknown> & { status: string; detail?: Record<string, unknown> };
}

/** What a trigger's ledger shard recorded of its control steps (`run_steps`), in the order recorded. */
export const recordedOutcomes = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) =>
    state.storage.sql
      .exec<{ s: string; step: string; outcome: string }>(
        "SELECT subscriber_id AS s, step_id AS step, outcome FROM run_steps WHERE tx = ? ORDER BY at, rowid",
        transactionId,
      )
      .toArray()
      .map(
        (r): RecordedOutcome => ({
          subscriberId: r.s,
          step: r.step,
          raw: r.outcome,
          outcome: JSON.parse(r.outcome) as RecordedOutcome["outcome"],
        }),
      ),
  );
