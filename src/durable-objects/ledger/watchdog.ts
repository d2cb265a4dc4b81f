import { triggerJob } from "../../jobs/job";
import { pendingJobs } from "./delivery-state";
import { BACKSTOP_MS } from "./outbox";
import type { LedgerParts } from "./parts";
import { chunksOf, digestsOf, type TriggerRow } from "./triggers-table";

/** Finished triggers forgotten per alarm, so one alarm never holds the object long. */
const PURGE_BATCH = 500;
const WATCHDOG_BATCH = 50;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

/**
 * Live triggers with no sign of progress for `stallMs` (and not parked on a delay or in an
 * open digest) get their unfinished work enqueued again: the trigger job if it never fanned
 * out, else the recipients not yet through every step, each from where its run stands (after
 * a released delay, after a closed digest). Claims make a second run harmless.
 */
export async function watchdog(parts: LedgerParts, now: number): Promise<number> {
  const { triggers, delivery, outbox, store } = parts;
  const sql = parts.storage.sql;
  const stallMs = parts.timings.stallMs;
  const stalled = sql
    .exec<TriggerRow & Record<string, SqlStorageValue>>(
      "SELECT * FROM triggers WHERE state = 'accepted' AND check_at <= ? ORDER BY check_at LIMIT ?",
      now,
      WATCHDOG_BATCH,
    )
    .toArray();
  let resumed = 0;
  const name = triggers.name;
  for (const row of stalled) {
    sql.exec("UPDATE triggers SET check_at = ? WHERE env = ? AND tx = ?", now + stallMs, row.env, row.tx);
    if (delivery.hasWaits(row.env, row.tx)) continue;
    const digests = digestsOf(row);
    if (row.coordinated) {
      const state = await store.coordinatorOf(row.env, row.tx).poke(stallMs, digests, now);
      if (state === "completed") triggers.completed(row.env, row.tx, now);
      else if (state === "resumed") resumed++;
      continue;
    }
    const chunks = chunksOf(row);
    // Recipients in a digest: still collecting (look again once it closes), or lost on their way out of it.
    const fromDigests = chunks && digests.length ? await store.digestResumes(row.tx, digests) : null;
    if (fromDigests?.until) {
      triggers.hold(row, fromDigests.until, undefined);
      continue;
    }
    const jobs = chunks ? pendingJobs(row, chunks, name, delivery, fromDigests?.jobs) : [];
    outbox.addAll((chunks ? jobs : [{ ...triggerJob(row.env, row.tx), ledger: name }]).map((job) => ({ tx: row.tx, job })));
    log({ level: "warn", event: "watchdog_resumed", transactionId: row.tx, jobs: chunks ? jobs.length : 1 });
    resumed++;
  }
  return resumed;
}

/** The janitor: forgets triggers finished longer than the idempotency window ago, with their claims and waits. */
export function purge(parts: LedgerParts, now: number): number {
  const sql = parts.storage.sql;
  const old = sql
    .exec<{ env: string; tx: string }>(
      "SELECT env, tx FROM triggers WHERE finished_at <= ? LIMIT ?",
      now - parts.timings.retentionMs,
      PURGE_BATCH,
    )
    .toArray();
  for (const { env, tx } of old) {
    sql.exec("DELETE FROM triggers WHERE env = ? AND tx = ?", env, tx);
    parts.delivery.forget(env, tx);
  }
  return old.length;
}

/** The next alarm: the outbox's backstop, a due wait, a live trigger's next look, or the next purge. */
export async function scheduleNext(parts: LedgerParts, now: number, flushFailed: boolean): Promise<void> {
  const sql = parts.storage.sql;
  const pending = parts.outbox.pending();
  const live = sql.exec<{ at: number | null }>("SELECT min(check_at) AS at FROM triggers WHERE state = 'accepted'").one().at;
  const finished = sql.exec<{ at: number | null }>("SELECT min(finished_at) AS at FROM triggers WHERE finished_at IS NOT NULL").one().at;
  const candidates = [
    pending ? now + (flushFailed ? 1_000 : BACKSTOP_MS) : null,
    parts.delivery.nextWait(),
    live,
    finished === null ? null : finished + parts.timings.retentionMs,
  ].filter((t): t is number => t !== null);
  if (candidates.length) await parts.storage.setAlarm(Math.max(now + 1, Math.min(...candidates)));
  else await parts.storage.deleteAlarm();
}
