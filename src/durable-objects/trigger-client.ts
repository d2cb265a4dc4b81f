import type { Bindings } from "../env";
import { TriggerObject, type AcceptOutcome, type CancelOutcome, type TriggerRecord, type TriggerState } from "./trigger-object";

export type TriggerSnapshot = TriggerRecord & { state: TriggerState };

/**
 * The typed face of a trigger's Durable Object. RPC stubs wrap return types in their own
 * proxies; callers here get the plain shapes back.
 */
export function triggerObject(env: Bindings, environmentId: string, transactionId: string) {
  const stub = env.TRIGGERS.get(env.TRIGGERS.idFromName(TriggerObject.nameFor(environmentId, transactionId)));
  return {
    accept: (record: TriggerRecord, fingerprint: string) => stub.accept(record, fingerprint) as Promise<AcceptOutcome>,
    markEnqueued: () => stub.markEnqueued(),
    read: () => stub.read() as Promise<TriggerSnapshot | null>,
    cancel: () => stub.cancel() as Promise<CancelOutcome>,
    expectChunks: (chunks: number) => stub.expectChunks(chunks),
    chunkDone: (chunk: number) => stub.chunkDone(chunk) as Promise<boolean>,
  };
}
