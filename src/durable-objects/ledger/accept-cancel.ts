import { type DeliveryJob, triggerJob } from "../../jobs/job";
import type { AcceptEntry, AcceptOutcome, CancelOutcome } from "./outcomes";
import type { LedgerParts } from "./parts";
import { chunksOf, digestsOf, triggerKey, namedRecipients, recordOf } from "./triggers-table";
import { jsonParts, PART_ROWS } from "../../lib/json-parts";

/** One accept call's answers, or why it failed: the calls written together fail apart. */
export type AcceptAnswer = { outcomes: AcceptOutcome[] } | { error: unknown };

/** The columns an accept writes, in the order both of its inserts give them. */
const INSERT_TRIGGER = "INSERT INTO triggers (env, tx, fingerprint, state, record, accepted_at, check_at)";

/** The Queue job that starts an accepted trigger, naming the ledger that holds it. */
const startJob = (name: string, environmentId: string, transactionId: string): { tx: string; job: DeliveryJob } => ({
  tx: transactionId,
  job: { ...triggerJob(environmentId, transactionId), ledger: name },
});

/**
 * Stores one call's triggers with their jobs (the caller holds the transaction): one statement
 * per table whatever the number of triggers (a statement per trigger and table was a third of
 * the CPU of bulk accepts), and a read of only the transactionIds already there.
 */
function store(parts: LedgerParts, name: string, items: AcceptEntry[], now: number): AcceptOutcome[] {
  if (items.length === 1) return [storeOne(parts, name, items[0]!, now)];
  const { triggers, outbox, storage } = parts;
  // A transactionId sent twice in one call is written once: its first item is stored, the later ones meet it.
  const firsts = new Map<string, AcceptEntry>();
  for (const item of items) {
    const key = triggerKey(item.record.environmentId, item.record.transactionId);
    if (!firsts.has(key)) firsts.set(key, item);
  }
  if (firsts.size === 0) return [];
  const rows = [...firsts.values()].map(({ record, fingerprint }) => [
    record.environmentId,
    record.transactionId,
    fingerprint,
    JSON.stringify(record),
  ]);
  const inserted = new Set<string>();
  // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): records carry their payloads.
  for (const part of jsonParts(rows))
    for (const row of storage.sql.exec<{ env: string; tx: string }>(
      `${PART_ROWS} ${INSERT_TRIGGER}
       SELECT v ->> 0, v ->> 1, v ->> 2, 'accepted', v ->> 3, ?, ? FROM part WHERE true
       ON CONFLICT (env, tx) DO NOTHING RETURNING env, tx`,
      part,
      now,
      now + parts.timings.stallMs,
    ))
      inserted.add(triggerKey(row.env, row.tx));
  // The fingerprints a replay or conflict is told by: of the rows already there, read (only when there are), and of those just stored.
  const stored =
    inserted.size < firsts.size
      ? triggers.fingerprintsOf(
          [...firsts.values()].map(({ record }) => record).filter((r) => !inserted.has(triggerKey(r.environmentId, r.transactionId))),
        )
      : new Map<string, string>();
  for (const key of inserted) stored.set(key, firsts.get(key)!.fingerprint);
  const jobs: { tx: string; job: DeliveryJob }[] = [];
  const outcomes = items.map(({ record, fingerprint }): AcceptOutcome => {
    const key = triggerKey(record.environmentId, record.transactionId);
    // Each stored trigger is `accepted` once, for its first item.
    if (inserted.delete(key)) {
      jobs.push(startJob(name, record.environmentId, record.transactionId));
      return "accepted";
    }
    return stored.get(key) === fingerprint ? "replayed" : "conflict";
  });
  outbox.addAll(jobs);
  return outcomes;
}

/**
 * `store` for one trigger (a single POST /v1/trigger, the common call): its values bound as they
 * are. As a list of one, its record was escaped into JSON for SQLite to parse back, and the
 * list's maps and sets were most of the garbage the ledger left per accept (bench/alloc.mjs).
 */
function storeOne(parts: LedgerParts, name: string, { record, fingerprint }: AcceptEntry, now: number): AcceptOutcome {
  const { environmentId, transactionId } = record;
  const { rowsWritten } = parts.storage.sql.exec(
    `${INSERT_TRIGGER} VALUES (?, ?, ?, 'accepted', ?, ?, ?) ON CONFLICT (env, tx) DO NOTHING`,
    environmentId,
    transactionId,
    fingerprint,
    JSON.stringify(record),
    now,
    now + parts.timings.stallMs,
  );
  if (rowsWritten === 0) return parts.triggers.row(environmentId, transactionId)?.fingerprint === fingerprint ? "replayed" : "conflict";
  parts.outbox.addAll([startJob(name, environmentId, transactionId)]);
  return "accepted";
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
    outbox.addAll(delivery.takeWaits({ env: environmentId, tx: transactionId }).map((job) => ({ tx: transactionId, job })));
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
