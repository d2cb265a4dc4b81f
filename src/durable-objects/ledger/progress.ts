import type { TriggerSnapshot } from "../../jobs/trigger-record";
import { jsonParts } from "../../lib/json-parts";
import type { DeliveryOp, DeliveryOpResult } from "./claims";
import { wakeBy } from "./delivery-state";
import type { FanOut, FanOutResult, LedgerRuns, LedgerWaits, RunPage } from "./outcomes";
import { recordedRuns } from "./recorded-runs";
import type { LedgerParts } from "./parts";
import { chunksOf, digestsOf, recordOf, type TriggerProgress, triggerKey } from "./triggers-table";

type TriggerKey = { environmentId: string; transactionId: string };

/** At most how much earlier than a stall window after its last progress the watchdog may look at a live trigger. */
const PROGRESS_SLACK_MS = 1_000;

export function snapshots(parts: LedgerParts, keys: TriggerKey[]): (TriggerSnapshot | null)[] {
  const name = parts.triggers.name;
  const rows = parts.triggers.recordsOf(keys);
  return keys.map(({ environmentId, transactionId }) => {
    const row = rows.get(triggerKey(environmentId, transactionId));
    if (!row) return null;
    return { ...recordOf(row), state: row.state, ledger: name, coordinated: row.coordinated === 1 };
  });
}

/**
 * Marks a trigger whose every recipient is through as completed; answers whether it just did.
 * `known`: the trigger as the caller read it, when nothing changed its state or chunks since.
 * `through`: recipients the caller just marked done (so at least that many rows are there), or
 * `done`: the count of done rows, when the caller read it; else it is read.
 */
function completeIfDone(
  parts: LedgerParts,
  env: string,
  tx: string,
  now: number,
  known?: TriggerProgress,
  counted: { through?: number; done?: number } = {},
): boolean {
  const row = known ?? parts.triggers.progress(env, tx);
  const chunks = row?.state === "accepted" ? chunksOf(row) : null;
  if (!chunks) return false;
  const total = chunks.reduce((n, c) => n + c.length, 0);
  // A call that marks every recipient of a one-chunk trigger done needs no count to know it is through.
  if ((counted.through ?? 0) < total && (counted.done ?? parts.delivery.doneCount(env, tx)) < total) return false;
  parts.triggers.completed(env, tx, now);
  return true;
}

/**
 * Records how each trigger fans out. A trigger of at most one chunk runs its claims here; the
 * first recorded chunks win, so a redelivered job runs exactly the recipients the first saw.
 */
export function fanOut(parts: LedgerParts, items: FanOut[], now: number): FanOutResult[] {
  // Read at once; a trigger whose row an item changes (its first fan-out, a completion) is read again by the next.
  const known = parts.triggers.progressOf(items);
  // Nothing here marks recipients done: each trigger's count is read once, for all its items.
  const done = parts.delivery.doneCounts(items);
  return items.map((item) => {
    const key = triggerKey(item.environmentId, item.transactionId);
    const row = known.has(key) ? known.get(key) : parts.triggers.progress(item.environmentId, item.transactionId);
    known.delete(key);
    if (!row) return { state: "failed", chunks: null, completed: false, first: false };
    let chunks = chunksOf(row);
    const first = !row.chunks && !row.coordinated;
    // After its first fan-out, the trigger is the row as read with the chunks just recorded.
    let current = row;
    if (first) {
      chunks = item.chunks;
      const recorded = chunks ? JSON.stringify(chunks) : null;
      parts.storage.sql.exec(
        "UPDATE triggers SET chunks = ?, coordinated = ?, enqueued_at = coalesce(enqueued_at, ?), check_at = max(?, coalesce(hold_until, 0)) WHERE env = ? AND tx = ?",
        recorded,
        chunks ? 0 : 1,
        now,
        now + parts.timings.stallMs,
        item.environmentId,
        item.transactionId,
      );
      current = { ...row, chunks: recorded, coordinated: chunks ? 0 : 1 };
    }
    const completed = completeIfDone(parts, item.environmentId, item.transactionId, now, current, { done: done.get(key) ?? 0 });
    return { state: completed ? "completed" : row.state, chunks, completed, first };
  });
}

/** The delivery bookkeeping of a consumer phase, for every trigger of this shard it touched. */
export async function run(parts: LedgerParts, ops: DeliveryOp[], now: number): Promise<DeliveryOpResult[]> {
  let wakeAt = Number.POSITIVE_INFINITY;
  // Every trigger's row read at once. An op that changes a row's state or digests (a hold, a
  // completion) drops it, and the trigger's next op reads it again; its check_at serves only the progress write below.
  const known = parts.triggers.progressOf(ops);
  // Every trigger held here shows progress: one write for all, before any op's (a hold's) own. A
  // trigger whose last phase moved its look this close to the same time is left as it is: its
  // phases come moments apart, and the watchdog looking that much early is harmless.
  const checkAt = now + parts.timings.stallMs;
  const slack = Math.min(PROGRESS_SLACK_MS, parts.timings.stallMs / 20);
  parts.triggers.progressed(
    [...known.values()].filter((row) => row.check_at < checkAt - slack),
    checkAt,
  );
  const results = ops.map((op): DeliveryOpResult => {
    const { environmentId: env, transactionId: tx } = op;
    const key = triggerKey(env, tx);
    const row = known.has(key) ? known.get(key) : parts.triggers.progress(env, tx);
    if (op.kind === "hold") {
      known.delete(key);
      if (row) parts.triggers.hold(row, op.until, op.digest);
      return { kind: "hold" };
    }
    // The row read above is still the trigger's state and chunks: an op changes them only by completing it.
    const complete = () => {
      const through = op.kind === "done" ? new Set(op.subscriberIds).size : 0;
      const completed = completeIfDone(parts, env, tx, now, row, { through });
      if (completed) known.delete(key);
      return completed;
    };
    const trigger = { cancelled: !row || row.state === "cancelled", complete };
    const applied = parts.delivery.apply(op, trigger, now);
    wakeAt = Math.min(wakeAt, applied.wakeAt ?? wakeAt);
    return applied.result;
  });
  if (wakeAt !== Number.POSITIVE_INFINITY) await wakeBy(parts.storage, wakeAt);
  return results;
}

/** Triggers whose coordinator (or the dead-letter queue) finished them. */
export async function finish(parts: LedgerParts, items: (TriggerKey & { state: "completed" | "failed" })[], now: number): Promise<void> {
  // One write per state; the first item of a trigger named twice wins, as in order.
  const first = new Map(items.toReversed().map((i) => [triggerKey(i.environmentId, i.transactionId), i]));
  for (const state of ["completed", "failed"] as const) {
    const keys = [...first.values()].filter((i) => i.state === state).map((i) => [i.environmentId, i.transactionId]);
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
    for (const part of jsonParts(keys))
      parts.storage.sql.exec(
        "UPDATE triggers SET state = ?, finished_at = ? WHERE state = 'accepted' AND (env, tx) IN (SELECT value ->> 0, value ->> 1 FROM jsonb_each(?))",
        state,
        now,
        part,
      );
  }
  await wakeBy(parts.storage, now + parts.timings.retentionMs);
}

/**
 * The trigger's recipients parked on a delay or quiet hours (here, or in its coordinator), at
 * most `limit`, and the digests it joined, which the caller asks for their own waits. Null when
 * this shard does not hold the trigger.
 */
export async function waits(parts: LedgerParts, environmentId: string, transactionId: string, limit: number): Promise<LedgerWaits | null> {
  const row = parts.triggers.progress(environmentId, transactionId);
  if (!row) return null;
  const digests = row.state === "accepted" ? digestsOf(row) : [];
  const parked = row.coordinated
    ? await parts.store.coordinatorOf(environmentId, transactionId).waitingSteps(limit)
    : parts.delivery.waitingSteps(environmentId, transactionId, limit);
  return { ...parked, digests };
}

/**
 * A page of the trigger's recipients with their recorded runs (here, or in its coordinator), and
 * the workflow version they follow. Null when this shard does not hold the trigger (any more).
 */
export async function runs(parts: LedgerParts, environmentId: string, transactionId: string, page: RunPage): Promise<LedgerRuns | null> {
  const row = parts.triggers.row(environmentId, transactionId);
  if (!row) return null;
  const { workflowKey, workflowId, workflowVersion } = recordOf(row);
  const digests = row.state === "accepted" ? digestsOf(row) : [];
  const recorded = row.coordinated
    ? await parts.store.coordinatorOf(environmentId, transactionId).recordedRuns(page)
    : recordedRuns(parts.delivery, environmentId, transactionId, chunksOf(row), page);
  return { ...recorded, workflow: { workflowKey, workflowId, workflowVersion }, digests };
}
