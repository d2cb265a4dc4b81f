import { env, runInDurableObject } from "cloudflare:test";
import type { TriggerSnapshot } from "../src/delivery/trigger-record";
import { coordinatorStub, ledgerNameFor, ledgerStub } from "../src/durable-objects/ledger/shards";
import type { TriggerLedger } from "../src/durable-objects/ledger/trigger-ledger";
import type { FanOutCoordinator } from "../src/durable-objects/fan-out-coordinator";

/** The ledger shard a trigger lives in. */
export const ledgerOf = (environmentId: string, transactionId: string) => ledgerStub(env, ledgerNameFor(env, environmentId, transactionId));

/** A trigger as its ledger holds it, or null: what the API's accept and cancel decided. */
export async function readTrigger(environmentId: string, transactionId: string): Promise<TriggerSnapshot | null> {
  const [snapshot] = (await ledgerOf(environmentId, transactionId).snapshots([
    { environmentId, transactionId },
  ])) as (TriggerSnapshot | null)[];
  return snapshot ?? null;
}

/**
 * Runs the ledger's alarm duties as if it were `now` (flush, release due waits, watchdog,
 * purge): the objects take their time as an argument, so tests move it instead of sleeping.
 */
export const tickLedger = (environmentId: string, transactionId: string, now: number) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.tick(now));

export const tickCoordinator = (environmentId: string, transactionId: string, now: number) =>
  runInDurableObject(coordinatorStub(env, environmentId, transactionId), (coordinator: FanOutCoordinator) => coordinator.tick(now));
