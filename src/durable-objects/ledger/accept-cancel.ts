import { triggerJob } from "../../jobs/job";
import type { AcceptEntry, AcceptOutcome, CancelOutcome } from "./outcomes";
import type { LedgerParts } from "./parts";
import { chunksOf, digestsOf, namedRecipients, recordOf } from "./triggers-table";

/** One accept call's answers, or why it failed: the calls written together fail apart. */
export type AcceptAnswer = { outcomes: AcceptOutcome[] } | { error: unknown };

/** Stores one call's triggers with their jobs (the caller holds the transaction). */
function store(parts: LedgerParts, name: string, items: AcceptEntry[], now: number): AcceptOutcome[] {
  const { triggers, outbox, storage } = parts;
  return items.map(({ record, fingerprint }): AcceptOutcome => {
    // One statement for a new trigger (the common case); a known one is read only when it is there.
    const { rowsWritten } = storage.sql.exec(
      "INSERT INTO triggers (env, tx, fingerprint, state, record, accepted_at, check_at) VALUES (?, ?, ?, 'accepted', ?, ?, ?) ON CONFLICT (env, tx) DO NOTHING",
      record.environmentId,
      record.transactionId,
      fingerprint,
      JSON.stringify(record),
      now,
      now + parts.timings.stallMs,
    );
    if (rowsWritten === 0) {
      const existing = triggers.row(record.environmentId, record.transactionId);
      return existing?.fingerprint === fingerprint ? "replayed" : "conflict";
    }
    outbox.add(record.transactionId, { ...triggerJob(record.environmentId, record.transactionId), ledger: name });
    return "accepted";
  });
}

/**
 * Stores new triggers with their jobs; a seen transactionId replays with the same body and
 * conflicts with another. The calls that arrived together are written in one storage commit,
 * each in its own nested transaction: a call that fails leaves nothing behind and fails alone.
 * Nothing is answered before it is durable (the object's output gate holds the answers).
 */
export async function acceptCalls(parts: LedgerParts, name: string, calls: AcceptEntry[][], now: number): Promise<AcceptAnswer[]> {
  const answers = calls.map((items): AcceptAnswer => {
    try {
      return { outcomes: parts.storage.transactionSync(() => store(parts, name, items, now)) };
    } catch (error) {
      return { error };
    }
  });
  if (answers.some((a) => "outcomes" in a && a.outcomes.includes("accepted"))) await parts.outbox.sendSoon(now);
  return answers;
}

/**
 * Stops a trigger: no claim is granted from now on, parked steps are released at once so
 * their consumers record them cancelled, and pending digests are named for removal.
 */
export async function cancel(parts: LedgerParts, environmentId: string, transactionId: string): Promise<CancelOutcome> {
  const { triggers, delivery, outbox, storage } = parts;
  const row = triggers.row(environmentId, transactionId);
  if (!row) return { status: "not_found" };
  const record = recordOf(row);
  const digests = digestsOf(row);
  const local = delivery.claimCounts(environmentId, transactionId);
  const coordinator = parts.store.coordinatorOf(environmentId, transactionId);
  if (row.state !== "accepted") {
    const counts = row.coordinated ? await coordinator.counts() : local;
    const status = row.state === "cancelled" ? "already_cancelled" : "completed";
    return { status, record, cancelledMessages: 0, alreadySent: counts.sentOrSending, digests };
  }
  const now = Date.now();
  let counts = local;
  let recipients: number;
  if (row.coordinated) {
    // The coordinator refuses claims from here on and releases its own waits.
    const coordinated = await coordinator.cancel();
    counts = coordinated;
    recipients = coordinated.recipients;
  } else {
    for (const job of delivery.takeWaits({ env: environmentId, tx: transactionId })) outbox.add(transactionId, job);
    recipients = chunksOf(row)?.reduce((n, c) => n + c.length, 0) ?? namedRecipients(record);
  }
  storage.sql.exec(
    "UPDATE triggers SET state = 'cancelled', cancelled_at = ?, finished_at = ? WHERE env = ? AND tx = ?",
    now,
    now,
    environmentId,
    transactionId,
  );
  await outbox.sendSoon(now);
  const planned = recipients * (record.plannedSteps ?? 0);
  return {
    status: "cancelled",
    record,
    cancelledMessages: Math.max(0, planned - counts.settled),
    alreadySent: counts.sentOrSending,
    digests,
  };
}
