import type { Bindings } from "../env";
import type { Json, JsonObject } from "../contract/json";

/** A workflow started by a `trigger_workflow` step, for one recipient of the parent's run. */
export interface ChildTrigger {
  /** Derived from the parent's (see control/trigger-workflow.ts): the same step for the same recipient always names the same child. */
  transactionId: string;
  workflow: string;
  subscriberId: string;
  payload: JsonObject;
  actor: Json;
  tenant?: string;
  context?: Record<string, string>;
  parentTransactionId: string;
  depth: number;
}

/** What accepting a child came to: started (or replayed: started before), or refused with the code `POST /v1/trigger` would answer. */
export type ChildTriggerOutcome = { status: "accepted"; transactionId: string } | { status: "refused"; code: string; message: string };

/**
 * Accepts child triggers of one environment through the accept path of `POST /v1/trigger` (as
 * `/v1/trigger/bulk` does: one gate read, one call per ledger shard), an outcome per child in
 * order. Features own that path and delivery may not import them, so the Worker's entry
 * (src/index.ts) hands it to the consumer.
 */
export type StartChildTriggers = (
  env: Bindings,
  environmentId: string,
  children: readonly ChildTrigger[],
) => Promise<ChildTriggerOutcome[]>;

/** What the consumer is given from above it. */
export interface DeliveryServices {
  startChildren: StartChildTriggers;
}
