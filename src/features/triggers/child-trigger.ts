// The accept path of `POST /v1/trigger`, for the workflows `trigger_workflow` steps start: the
// consumer reaches it through src/index.ts (delivery may not import features).
import type { ChildTrigger, ChildTriggerOutcome } from "../../delivery/child-triggers";
import type { Bindings } from "../../env";
import { ApiError } from "../../lib/errors";
import { dataOf } from "../data";
import { acceptBulk } from "./service";

/** The body a client would send to `POST /v1/trigger` for this child. */
const requestOf = (child: ChildTrigger) => ({
  workflow: child.workflow,
  to: child.subscriberId,
  payload: child.payload,
  transactionId: child.transactionId,
  ...(child.actor !== null ? { actor: child.actor } : {}),
  ...(child.tenant !== undefined ? { tenant: child.tenant } : {}),
  ...(child.context !== undefined ? { context: child.context } : {}),
});

/** The problem in words, with the fields it names: what the parent's run view shows. */
const described = (error: ApiError) =>
  error.errors?.length ? `${error.detail} ${error.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` : error.detail;

/**
 * Accepts the children as `POST /v1/trigger/bulk` accepts events, each checked on its own (its
 * workflow's gate, its payload schema, its tenant) and made durable with its Queue job. A retry or
 * a re-run of the parent's step replays a child (same transactionId, same body) and starts
 * nothing; a transactionId already taken by another body (a payload that rendered differently in
 * a re-run) also means the child was started once, so it is not started again.
 */
export async function startChildTriggers(
  env: Bindings,
  environmentId: string,
  children: readonly ChildTrigger[],
): Promise<ChildTriggerOutcome[]> {
  const results = await acceptBulk(
    dataOf(env, environmentId),
    env,
    children.map(requestOf),
    undefined,
    children.map((c) => ({ depth: c.depth, parentTransactionId: c.parentTransactionId })),
  );
  return results.map((result, i): ChildTriggerOutcome => {
    const transactionId = children[i]!.transactionId;
    if (!(result instanceof ApiError)) return { status: "accepted", transactionId: result.transactionId };
    if (result.code === "transaction_conflict") return { status: "accepted", transactionId };
    return { status: "refused", code: result.code, message: described(result) };
  });
}
