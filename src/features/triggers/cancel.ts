import { ledgerNamesFor, ledgerStub } from "../../durable-objects/ledger/shards";
import type { CancelOutcome } from "../../durable-objects/ledger/trigger-ledger";
import type { Bindings } from "../../env";

/** Cancels a trigger in whichever ledger holds it (the previous shard layout too, after a change of count). */
export async function cancelTrigger(env: Bindings, environmentId: string, transactionId: string): Promise<CancelOutcome> {
  for (const name of ledgerNamesFor(env, environmentId, transactionId)) {
    const outcome = (await ledgerStub(env, name).cancel(environmentId, transactionId)) as CancelOutcome;
    if (outcome.status !== "not_found") return outcome;
  }
  return { status: "not_found" };
}
