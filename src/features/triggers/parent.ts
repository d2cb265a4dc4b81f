import { TriggerStore } from "../../durable-objects/client/trigger-store";
import type { Bindings } from "../../env";

/**
 * The trigger whose `trigger_workflow` step started this one, as its ledger keeps the record; null
 * for a trigger from the API, or once the ledger has forgotten it (a retention window after it finished).
 */
export async function parentTransactionIdOf(env: Bindings, environmentId: string, transactionId: string): Promise<string | null> {
  const store = new TriggerStore(env);
  const [snapshot] = await store.snapshots(store.ledgerOf(environmentId, transactionId), [{ environmentId, transactionId }]);
  return snapshot?.parentTransactionId ?? null;
}
