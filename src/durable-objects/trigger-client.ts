import type { Bindings } from "../env";
import type { RecipientsJob } from "../delivery/job";
import {
  TriggerObject,
  type AcceptOutcome,
  type CancelOutcome,
  type ClaimReport,
  type ClaimResult,
  type TriggerRecord,
  type TriggerState,
} from "./trigger-object";

export type TriggerSnapshot = TriggerRecord & { state: TriggerState };

/**
 * The typed face of a trigger's Durable Object. RPC stubs wrap return types in their own
 * proxies; callers here get the plain shapes back.
 */
export function triggerObject(env: Bindings, environmentId: string, transactionId: string) {
  const stub = env.TRIGGERS.get(env.TRIGGERS.idFromName(TriggerObject.nameFor(environmentId, transactionId)));
  return {
    accept: (record: TriggerRecord, fingerprint: string) => stub.accept(record, fingerprint) as Promise<AcceptOutcome>,
    read: () => stub.read() as Promise<TriggerSnapshot | null>,
    cancel: () => stub.cancel() as Promise<CancelOutcome>,
    expectChunks: (chunkSizes: number[]) => stub.expectChunks(chunkSizes) as Promise<boolean>,
    recipientsDone: (chunk: number, subscriberIds: string[]) => stub.recipientsDone(chunk, subscriberIds) as Promise<boolean>,
    claim: (send: string[], final: string[]) => stub.claim(send, final) as Promise<ClaimResult>,
    report: (reports: ClaimReport[]) => stub.report(reports),
    wait: (entries: { fireAt: number; job: RecipientsJob }[]) => stub.wait(entries) as Promise<"waiting" | "cancelled">,
    joinedDigest: (name: string) => stub.joinedDigest(name),
  };
}
