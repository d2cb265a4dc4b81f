// The accept path of `POST /v1/trigger`, for a workflow a `trigger_workflow` step starts: the
// consumer reaches it through src/index.ts (delivery may not import features).
import type { ChildTrigger, ChildTriggerOutcome } from "../../delivery/child-triggers";
import type { Bindings } from "../../env";
import { ApiError } from "../../lib/errors";
import { dataOf } from "../data";
import { TriggerRequest } from "./schemas";
import { acceptTrigger } from "./service";

/**
 * Accepts the child as `POST /v1/trigger` would a request with its transactionId: a retry or a
 * re-run of the parent's step replays it (same transactionId, same body) and starts nothing. A
 * transactionId already taken by a different body (a payload that rendered differently in a
 * re-run) also means the child was started once: it is not started again.
 */
export async function startChildTrigger(env: Bindings, child: ChildTrigger): Promise<ChildTriggerOutcome> {
  const parsed = TriggerRequest.safeParse({
    workflow: child.workflow,
    to: child.subscriberId,
    payload: child.payload,
    transactionId: child.transactionId,
    ...(child.actor !== null ? { actor: child.actor } : {}),
    ...(child.tenant !== undefined ? { tenant: child.tenant } : {}),
    ...(child.context !== undefined ? { context: child.context } : {}),
  });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ");
    return { status: "refused", code: "validation_failed", message: `The child trigger is not valid: ${issues}` };
  }
  try {
    const accepted = await acceptTrigger(dataOf(env, child.environmentId), env, parsed.data, undefined, {
      chain: { depth: child.depth, parentTransactionId: child.parentTransactionId },
    });
    return { status: "accepted", transactionId: accepted.transactionId };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "transaction_conflict") return { status: "accepted", transactionId: child.transactionId };
    return { status: "refused", code: error.code, message: error.message };
  }
}
