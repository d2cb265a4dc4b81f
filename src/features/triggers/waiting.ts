import { TriggerStore } from "../../durable-objects/client/trigger-store";
import type { WaitingStep } from "../../durable-objects/ledger/claims";
import type { Bindings } from "../../env";

/** How many waiting steps a status lists; `waitingTotal` still counts every one. */
export const MAX_WAITING_LISTED = 100;

/**
 * What a trigger waits on: the delays and quiet hours parked in its ledger shard (or its
 * coordinator) and the digests it joined, each recipient's step with the time it ends. Nothing
 * when the ledger has forgotten the trigger (it finished a retention window ago).
 */
export async function waitingSteps(
  env: Bindings,
  environmentId: string,
  transactionId: string,
): Promise<{ steps: WaitingStep[]; total: number }> {
  const store = new TriggerStore(env);
  const parked = await store.waits(environmentId, transactionId, MAX_WAITING_LISTED);
  if (!parked) return { steps: [], total: 0 };
  const digested = await Promise.all(parked.digests.map((name) => store.digest(name).pending(transactionId)));
  const inDigests = digested.flatMap((d) =>
    d ? d.subscriberIds.map((subscriberId): WaitingStep => ({ stepId: d.stepId, subscriberId, kind: "digest", until: d.until })) : [],
  );
  const steps = [...parked.steps, ...inDigests].sort((a, b) => a.until - b.until).slice(0, MAX_WAITING_LISTED);
  return { steps, total: parked.total + inDigests.length };
}
