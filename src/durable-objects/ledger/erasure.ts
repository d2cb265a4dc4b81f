import type { TriggerRecord } from "../../jobs/trigger-record";
import { digestCollectsFor } from "../client/naming";
import type { ShardErasure } from "./outcomes";
import type { LedgerParts } from "./parts";
import { recordOf } from "./triggers-table";

/**
 * Erasure of one subscriber (GDPR art. 17) in this shard: their parked steps leave the waits
 * and go back on the Queue marked `erased`, so the consumer records them cancelled with reason
 * `subscriber_deleted`; a trigger that names them inline keeps only their subscriberId.
 * Answers what the caller must still reach: the environment's live coordinators and the
 * digests that collect for the subscriber.
 */
export async function eraseSubscriber(parts: LedgerParts, environmentId: string, subscriberId: string): Promise<ShardErasure> {
  const sql = parts.storage.sql;
  const jobs = parts.delivery.eraseSubscriber({ env: environmentId }, subscriberId);
  parts.outbox.addAll(jobs.map((job) => ({ tx: job.transactionId, job })));
  const coordinated = sql
    .exec<{ tx: string }>("SELECT tx FROM triggers WHERE state = 'accepted' AND coordinated = 1 AND env = ?", environmentId)
    .toArray()
    .map((r) => r.tx);
  // Finished triggers' digests too: a digest keeps the payloads it collected after it closes.
  const digests = new Set<string>();
  for (const row of sql.exec<{ digests: string }>("SELECT digests FROM triggers WHERE env = ? AND digests IS NOT NULL", environmentId)) {
    for (const name of JSON.parse(row.digests) as string[]) {
      if (digestCollectsFor(name, environmentId, subscriberId)) digests.add(name);
    }
  }
  // Finished triggers too: their records are kept for the idempotency window, not only while live.
  const naming = sql
    .exec<{ tx: string; record: string }>(
      "SELECT tx, record FROM triggers WHERE env = ? AND instr(record, ?) > 0",
      environmentId,
      `"subscriberId":${JSON.stringify(subscriberId)}`,
    )
    .toArray();
  for (const row of naming) {
    const record = recordOf(row);
    const redacted = withoutProfile(record, subscriberId);
    if (redacted !== record)
      sql.exec("UPDATE triggers SET record = ? WHERE env = ? AND tx = ?", JSON.stringify(redacted), environmentId, row.tx);
  }
  if (jobs.length) await parts.outbox.sendSoon(Date.now());
  return { waitingSteps: jobs.length, coordinated, digests: [...digests] };
}

const isProfileOf = (value: unknown, subscriberId: string) =>
  typeof value === "object" && value !== null && (value as { subscriberId?: unknown }).subscriberId === subscriberId;

/** The record with the subscriber's inline profile (in `to` or `actor`) reduced to their subscriberId; the same object if it had none. */
function withoutProfile(record: TriggerRecord, subscriberId: string): TriggerRecord {
  const named = record.recipients.some((r) => isProfileOf(r, subscriberId)) || isProfileOf(record.actor, subscriberId);
  if (!named) return record;
  return {
    ...record,
    recipients: record.recipients.map((r) => (isProfileOf(r, subscriberId) ? subscriberId : r)),
    actor: isProfileOf(record.actor, subscriberId) ? subscriberId : record.actor,
  };
}
