import type { TriggerSignal } from "./claims";
import type { LedgerParts } from "./parts";
import type { SignalAnswer } from "./outcomes";
import type { MessageReached, SignalOutcome } from "./signals";

const NONE: SignalOutcome = { matched: 0, evaluating: 0 };

/**
 * A signal to a trigger of this shard. A large fan-out's waits live in its coordinator, which
 * decides there; a finished or cancelled trigger has nothing left to wake.
 */
export async function signal(parts: LedgerParts, environmentId: string, transactionId: string, s: TriggerSignal): Promise<SignalAnswer> {
  const row = parts.triggers.row(environmentId, transactionId);
  if (!row) return { status: "not_found" };
  if (row.state !== "accepted") return { status: "received", ...NONE };
  if (row.coordinated) return { status: "received", ...(await parts.store.coordinatorOf(environmentId, transactionId).signal(s)) };
  const now = Date.now();
  const { jobs, ...woken } = parts.delivery.wakes.signal(environmentId, transactionId, s, now);
  parts.outbox.addAll(jobs.map((job) => ({ tx: transactionId, job })));
  if (jobs.length) await parts.outbox.sendSoon(now);
  return { status: "received", ...woken };
}

/** Messages of a trigger of this shard that reached a status a wait may watch (the log's writer calls this). */
export async function messagesReached(
  parts: LedgerParts,
  environmentId: string,
  transactionId: string,
  reached: MessageReached[],
): Promise<boolean> {
  const row = parts.triggers.row(environmentId, transactionId);
  if (!row) return false;
  if (row.state !== "accepted") return true;
  if (row.coordinated) {
    await parts.store.coordinatorOf(environmentId, transactionId).messagesReached(reached);
    return true;
  }
  const now = Date.now();
  const jobs = parts.delivery.wakes.messages(environmentId, transactionId, reached, now);
  parts.outbox.addAll(jobs.map((job) => ({ tx: transactionId, job })));
  if (jobs.length) await parts.outbox.sendSoon(now);
  return true;
}
