import type { z } from "@hono/zod-openapi";
// What a trigger route does once its body is parsed: shared by the native routes and the Novu
// compatibility layer (src/novu/), so both reach one implementation.
import { TriggerStore } from "../../durable-objects/client/trigger-store";
import { dispatchWritten } from "../../delivery/webhooks/dispatch";
import type { Bindings } from "../../env";
import type { TriggerRecord } from "../../jobs/trigger-record";
import type { Data } from "../data";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, fieldErrors } from "../../lib/errors";
import {
  type Accepted,
  type Background,
  loadTenantIds,
  loadTopicKeys,
  loadWorkflowGates,
  makeDurable,
  prepareBroadcast,
  prepareTrigger,
  withKeyTransactionId,
  workflowKeyOf,
} from "./accept";
import { type BroadcastRequest, type CancelResult, type SignalRequest, type SignalResult, TriggerRequest } from "./schemas";

/** Where a trigger started by a `trigger_workflow` step sits in its chain. */
type Chain = Pick<TriggerRecord, "depth" | "parentTransactionId">;

/** How an accept runs: `background` takes what may finish after the answer (a request's `waitUntil`). */
interface AcceptOptions {
  background?: Background;
}

/** Accepts one trigger (`draft`: even if its workflow is inactive, for a test send); throws the problem a client should see. */
export async function acceptTrigger(
  data: Data,
  env: Bindings,
  body: TriggerRequest,
  idempotencyKey?: string,
  { draft = false, background }: AcceptOptions & { draft?: boolean } = {},
): Promise<Accepted> {
  const request = await withKeyTransactionId(body, idempotencyKey);
  const [gates, knownTopics, tenants] = await Promise.all([
    loadWorkflowGates(data, [workflowKeyOf(request)]),
    loadTopicKeys(data, [request]),
    loadTenantIds(data, [request]),
  ]);
  const gate = gates.get(workflowKeyOf(request));
  const prepared = await prepareTrigger(
    data.environmentId,
    request,
    // A test send runs an inactive (draft) workflow too: only accepting is gated on `active`.
    draft && gate ? { ...gate, active: true } : gate,
    knownTopics,
    Date.now(),
    destinationOptions(env),
    tenants,
  );
  const [result] = await makeDurable(data, env, [prepared], background);
  if (!result || result instanceof ApiError) throw result ?? new Error("no accept result");
  return result;
}

/**
 * Accepts each event on its own, in request order: one bad event never fails the others.
 * `chains[i]`: event i was started by a `trigger_workflow` step, kept on its record.
 */
export async function acceptBulk(
  data: Data,
  env: Bindings,
  events: readonly unknown[],
  idempotencyKey?: string,
  chains?: readonly (Chain | undefined)[],
  { background }: AcceptOptions = {},
): Promise<(Accepted | ApiError)[]> {
  const now = Date.now();
  const parsed = await Promise.all(
    events.map(async (event, index) => {
      const p = TriggerRequest.safeParse(event);
      return p.success ? { ...p, data: await withKeyTransactionId(p.data, idempotencyKey, index) } : p;
    }),
  );
  const requests = parsed.flatMap((p) => (p.success ? [p.data] : []));
  const keys = requests.map(workflowKeyOf);
  const [gates, knownTopics, tenants] = await Promise.all([
    keys.length ? loadWorkflowGates(data, keys) : new Map(),
    loadTopicKeys(data, requests),
    loadTenantIds(data, requests),
  ]);

  const outcomes: (ApiError | { index: number })[] = [];
  const ready: Awaited<ReturnType<typeof prepareTrigger>>[] = [];
  for (const [i, p] of parsed.entries()) {
    if (!p.success) {
      outcomes.push(new ApiError("validation_failed", "The event does not match the expected schema.", fieldErrors(p.error.issues)));
      continue;
    }
    try {
      const prepared = await prepareTrigger(
        data.environmentId,
        p.data,
        gates.get(workflowKeyOf(p.data)),
        knownTopics,
        now,
        destinationOptions(env),
        tenants,
      );
      const chain = chains?.[i];
      // Not in the fingerprint: a child's transactionId already names its parent, so a replay matches.
      if (chain) prepared.record = { ...prepared.record, ...chain };
      ready.push(prepared);
      outcomes.push({ index: ready.length - 1 });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      outcomes.push(error);
    }
  }
  const accepted = await makeDurable(data, env, ready, background);
  return outcomes.map((o) => (o instanceof ApiError ? o : accepted[o.index]!));
}

/** Accepts a trigger to every subscriber of the environment. */
export async function acceptBroadcast(
  data: Data,
  env: Bindings,
  body: BroadcastRequest,
  idempotencyKey?: string,
  { background }: AcceptOptions = {},
): Promise<Accepted> {
  const request = await withKeyTransactionId(body, idempotencyKey);
  const [gates, tenants] = await Promise.all([loadWorkflowGates(data, [workflowKeyOf(request)]), loadTenantIds(data, [request])]);
  const prepared = await prepareBroadcast(data.environmentId, request, gates.get(workflowKeyOf(request)), Date.now(), tenants);
  const [result] = await makeDurable(data, env, [prepared], background);
  if (!result || result instanceof ApiError) throw result ?? new Error("no accept result");
  return result;
}

/** Cancels what of a trigger is not yet sent; `null` when the environment has no such trigger. */
export async function cancelByTransactionId(data: Data, env: Bindings, transactionId: string): Promise<CancelResult | null> {
  const { environmentId } = data;
  const store = new TriggerStore(env);
  const outcome = await store.cancel(environmentId, transactionId);
  if (outcome.status === "not_found") return null;
  if (outcome.status === "cancelled") {
    // Pending digest entries leave their digests; their jobs then record the messages cancelled.
    await Promise.all(outcome.digests.map((name) => store.digest(name).remove(transactionId)));
    const written = await data.recordCancellation(outcome.record, outcome.cancelledMessages, Date.now());
    // The cancellation is committed: a failed dispatch must not turn it into a 500 (the sweep sends the events again).
    await dispatchWritten(env, written).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      console.error(JSON.stringify({ level: "error", message: `webhook dispatch after cancel ${transactionId}: ${message}` }));
    });
  }
  return { transactionId, status: outcome.status, cancelledMessages: outcome.cancelledMessages, alreadySent: outcome.alreadySent };
}

/**
 * Sends a signal to a trigger's waits, in the trigger's home (its ledger shard, or the coordinator
 * of a large fan-out), where each matching wait ends once; null when the environment has no such trigger.
 */
export async function signalTrigger(
  data: Data,
  env: Bindings,
  transactionId: string,
  signal: z.infer<typeof SignalRequest>,
): Promise<SignalResult | null> {
  const answer = await new TriggerStore(env).signal(data.environmentId, transactionId, signal);
  if (answer.status === "not_found") return null;
  return { transactionId, name: signal.name, matched: answer.matched, evaluating: answer.evaluating };
}
