import type { WaitingStep } from "../../durable-objects/ledger/claims";
import { ledgerNamesFor, ledgerStub } from "../../durable-objects/ledger/shards";
import type { Bindings } from "../../env";

/** How many waiting steps a status lists; `waitingTotal` still counts every one. */
export const MAX_WAITING_LISTED = 100;

type Parked = { steps: WaitingStep[]; total: number; digests: string[] };

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
  let parked: Parked | null = null;
  for (const name of ledgerNamesFor(env, environmentId, transactionId)) {
    parked = (await ledgerStub(env, name).waitingSteps(environmentId, transactionId, MAX_WAITING_LISTED)) as Parked | null;
    if (parked) break;
  }
  if (!parked) return { steps: [], total: 0 };
  const digested = await Promise.all(parked.digests.map((name) => env.DIGESTS.get(env.DIGESTS.idFromName(name)).pending(transactionId)));
  const inDigests = digested.flatMap((d) =>
    d ? d.subscriberIds.map((subscriberId): WaitingStep => ({ stepId: d.stepId, subscriberId, kind: "digest", until: d.until })) : [],
  );
  const steps = [...parked.steps, ...inDigests].sort((a, b) => a.until - b.until).slice(0, MAX_WAITING_LISTED);
  return { steps, total: parked.total + inDigests.length };
}
