import type { RecipientsJob } from "../../jobs/job";
import {
  CLAIM_DEADLINE_MS,
  type ClaimReport,
  type ClaimResult,
  type DeliveryOp,
  type DeliveryOpResult,
  type FinalReport,
  type SentReport,
  type WaitEntry,
  type WaitHold,
  type WaitingStep,
} from "./claims";
import { jsonParts, objectAt } from "../../lib/json-parts";
import { RUN_STEPS_SCHEMA, RunSteps } from "./run-steps";
import { SIGNALS_SCHEMA, WaitWakes } from "./signals";
import { triggerKey } from "./triggers-table";

/** Tables every object that coordinates sends keeps, keyed by trigger so one shard can hold many. */
export const DELIVERY_SCHEMA = `
  CREATE TABLE IF NOT EXISTS claims (env TEXT NOT NULL, tx TEXT NOT NULL, key TEXT NOT NULL, state TEXT NOT NULL, at INTEGER NOT NULL, report TEXT, PRIMARY KEY (env, tx, key));
  CREATE TABLE IF NOT EXISTS done (env TEXT NOT NULL, tx TEXT NOT NULL, chunk INTEGER NOT NULL, subscriber_id TEXT NOT NULL, PRIMARY KEY (env, tx, chunk, subscriber_id));
  CREATE TABLE IF NOT EXISTS waits (id INTEGER PRIMARY KEY AUTOINCREMENT, env TEXT NOT NULL, tx TEXT NOT NULL, fire_at INTEGER NOT NULL, job TEXT NOT NULL, released INTEGER NOT NULL DEFAULT 0, hold TEXT);
  CREATE INDEX IF NOT EXISTS waits_fire ON waits (released, fire_at);
  CREATE INDEX IF NOT EXISTS waits_tx ON waits (env, tx);
${RUN_STEPS_SCHEMA}
${SIGNALS_SCHEMA}`;

/** Brings the tables of an object created by an older version up to DELIVERY_SCHEMA; run after it. */
export function upgradeDeliverySchema(sql: SqlStorage): void {
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(waits)").toArray();
  if (!columns.some((c) => c.name === "hold")) sql.exec("ALTER TABLE waits ADD COLUMN hold TEXT");
}

/** Waits parked before they named what holds them: the kind as their note tells it, the step unknown. */
const legacyHold = (job: RecipientsJob): Omit<WaitHold, "stepId"> & { stepId: null } => ({
  kind: job.note?.reason === "quiet_hours" ? "quiet_hours" : "delay",
  stepId: null,
});

/**
 * Exactly-once bookkeeping of one or many triggers' sends, over an object's SQLite: a claim
 * per send identity, granted once and never again once sent; the recipients that are through
 * every step; and the jobs parked until a time (delays, quiet hours).
 */
/** Trigger counts a ledger shard keeps at most (it serves many small triggers; a coordinator one large one). */
const DONE_COUNTS_KEPT = 1_000;

export class DeliveryState {
  /** The control steps' outcomes per recipient (run-steps.ts). */
  readonly runSteps: RunSteps;
  /** Wait steps woken by signals and message statuses (signals.ts). */
  readonly wakes: WaitWakes;
  /** `doneCount`s as this instance keeps them, by trigger key. */
  private readonly doneKnown = new Map<string, number>();

  constructor(private readonly sql: SqlStorage) {
    this.runSteps = new RunSteps(sql);
    this.wakes = new WaitWakes(sql, this.runSteps);
  }

  /**
   * One claim, report, done or park operation of a consumer phase. `complete` says whether the
   * recipients just marked done finished the trigger (each object knows its own total); a park
   * answers when the object's alarm must fire by.
   */
  apply(
    op: Exclude<DeliveryOp, { kind: "hold" }>,
    trigger: { cancelled: boolean; complete: () => boolean },
    now: number,
  ): { result: DeliveryOpResult; wakeAt?: number } {
    const { environmentId: env, transactionId: tx } = op;
    switch (op.kind) {
      case "claim":
        return { result: { kind: "claim", result: this.claim(env, tx, op.send, op.final, trigger.cancelled, now) } };
      case "report":
        this.report(env, tx, op.reports, now);
        return { result: { kind: "report" } };
      case "renew":
        return { result: { kind: "renew", renewed: this.renew(env, tx, op.keys, now) } };
      case "done":
        this.markDone(env, tx, op.chunk, op.subscriberIds);
        return { result: { kind: "done", completed: trigger.complete() } };
      case "outcomes":
        return { result: { kind: "outcomes", rows: this.runSteps.of(env, tx, op.subscriberIds) } };
      case "record":
        return { result: { kind: "record", rows: this.runSteps.record(env, tx, op.rows, now) } };
      case "park":
        if (trigger.cancelled) return { result: { kind: "park", outcome: "cancelled" } };
        {
          // A wait decided or signalled while its recipients were on their way here fires now.
          const entries = this.wakes.settle(env, tx, op.entries, now);
          this.park(env, tx, entries);
          return { result: { kind: "park", outcome: "waiting" }, wakeAt: Math.min(...entries.map((e) => e.fireAt)) };
        }
    }
  }

  claim(env: string, tx: string, send: string[], final: string[], cancelled: boolean, now: number): ClaimResult {
    const result: ClaimResult = { granted: [], cancelled: [], busy: [], sent: [], final: [] };
    if (cancelled) {
      result.cancelled = [...send, ...final];
      return result;
    }
    // Lists bound in parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
    for (const part of jsonParts(final))
      this.sql.exec(
        "INSERT OR IGNORE INTO claims (env, tx, key, state, at) SELECT ?, ?, value, 'final', ? FROM json_each(?)",
        env,
        tx,
        now,
        part,
      );
    // The claims asked for, read at once (a statement per key was most of a chunk's claim); a key
    // asked twice finds the claim its first ask just took, as it would reading again.
    const claims = new Map<string, { state: string; at: number; report: string | null }>();
    for (const part of jsonParts(send))
      for (const row of this.sql.exec<{ key: string; state: string; at: number; report: string | null }>(
        "SELECT key, state, at, report FROM claims WHERE env = ? AND tx = ? AND key IN (SELECT value FROM json_each(?))",
        env,
        tx,
        part,
      ))
        claims.set(row.key, row);
    for (const key of send) {
      const row = claims.get(key);
      if (row?.state === "sent" && row.report) {
        result.sent.push({ key, report: JSON.parse(row.report) as SentReport });
        continue;
      }
      // A final claim without a result (reported before results were kept) stays busy, as before.
      if (row?.state === "final" && row.report) {
        result.final.push({ key, report: JSON.parse(row.report) as FinalReport });
        continue;
      }
      if (row && (row.state !== "claimed" || row.at > now - CLAIM_DEADLINE_MS)) {
        result.busy.push(key);
        continue;
      }
      claims.set(key, { state: "claimed", at: now, report: null });
      result.granted.push(key);
    }
    // The grants in one write (a statement per key was most of a large chunk's claim); nothing above reads them back.
    for (const part of jsonParts(result.granted))
      this.sql.exec(
        "INSERT OR REPLACE INTO claims (env, tx, key, state, at) SELECT ?, ?, value, 'claimed', ? FROM json_each(?)",
        env,
        tx,
        now,
        part,
      );
    return result;
  }

  /**
   * Restarts the deadline of claims still held (not reported, not given back): a consumer renews
   * while it sends. A key already reported, or released for a retry, is left as it is; a key
   * granted again to another consumer after a late renewal is renewed too, which only keeps that
   * live consumer's claim. Answers how many were renewed.
   */
  renew(env: string, tx: string, keys: string[], now: number): number {
    return this.rowsReturned(
      "UPDATE claims SET at = ? WHERE env = ? AND tx = ? AND state = 'claimed' AND key IN (SELECT value FROM json_each(?)) RETURNING 1",
      keys,
      now,
      env,
      tx,
    );
  }

  /** Runs `query` once per part of `list` (bound after `params`) and counts the rows its RETURNING gave. */
  private rowsReturned(query: string, list: readonly unknown[], ...params: SqlStorageValue[]): number {
    let n = 0;
    for (const part of jsonParts(list)) n += this.sql.exec(query, ...params, part).toArray().length;
    return n;
  }

  /**
   * Results of granted claims: `retry` frees the identity for a later attempt. Each key's report
   * touches its own row only, so reports of distinct keys are written two statements in all (a
   * statement per key was the ledger's largest cost in a topic's delivery); a key reported twice
   * is written in order, one report at a time.
   */
  report(env: string, tx: string, reports: ClaimReport[], now: number): void {
    if (new Set(reports.map((r) => r.key)).size < reports.length) {
      this.reportEach(env, tx, reports, now);
      return;
    }
    const retry = reports.filter((r) => r.outcome === "retry").map((r) => r.key);
    // The report as the object: stored as its JSON text, the row's own (lib/json-parts.ts `objectAt`).
    const settled = reports.flatMap((r) => (r.outcome === "retry" ? [] : [[r.key, r.outcome, r.report ?? null]]));
    for (const part of jsonParts(retry))
      this.sql.exec(
        "DELETE FROM claims WHERE env = ? AND tx = ? AND state = 'claimed' AND key IN (SELECT value FROM json_each(?))",
        env,
        tx,
        part,
      );
    // An UPDATE of the keys there: an upsert of only the rows that exist (an UPDATE … FROM reads every claim of the trigger per key).
    for (const part of jsonParts(settled))
      this.sql.exec(
        `INSERT INTO claims (env, tx, key, state, at, report)
         SELECT ?1, ?2, r.value ->> 0, r.value ->> 1, ?3, ${objectAt(2, "r.value")} FROM jsonb_each(?4) AS r
         WHERE EXISTS (SELECT 1 FROM claims AS c WHERE c.env = ?1 AND c.tx = ?2 AND c.key = r.value ->> 0)
         ON CONFLICT (env, tx, key) DO UPDATE SET state = excluded.state, at = excluded.at, report = excluded.report`,
        env,
        tx,
        now,
        part,
      );
  }

  private reportEach(env: string, tx: string, reports: ClaimReport[], now: number): void {
    for (const r of reports) {
      if (r.outcome === "retry") {
        this.sql.exec("DELETE FROM claims WHERE env = ? AND tx = ? AND key = ? AND state = 'claimed'", env, tx, r.key);
      } else {
        const report = JSON.stringify(r.report);
        this.sql.exec(
          "UPDATE claims SET state = ?, at = ?, report = ? WHERE env = ? AND tx = ? AND key = ?",
          r.outcome,
          now,
          report,
          env,
          tx,
          r.key,
        );
      }
    }
  }

  markDone(env: string, tx: string, chunk: number, subscriberIds: string[]): void {
    if (subscriberIds.length === 0) return;
    // The rows added, not `rowsWritten` (which counts the primary key's index writes too).
    const added = this.rowsReturned(
      "INSERT OR IGNORE INTO done (env, tx, chunk, subscriber_id) SELECT ?, ?, ?, value FROM json_each(?) RETURNING 1",
      subscriberIds,
      env,
      tx,
      chunk,
    );
    const key = triggerKey(env, tx);
    const known = this.doneKnown.get(key);
    if (known !== undefined) this.doneKnown.set(key, known + added);
  }

  /**
   * Recipients through, counted in storage once per instance and then kept as `markDone` adds
   * rows: a coordinator asks after every chunk, and counting a 100,000-member fan-out's rows each
   * time was quadratic in its chunks (17 % of its CPU). Every write to `done` goes through this
   * instance, so the kept count stays exact; it is forgotten with the trigger.
   */
  doneCount(env: string, tx: string): number {
    const key = triggerKey(env, tx);
    const known = this.doneKnown.get(key);
    if (known !== undefined) return known;
    const n = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM done WHERE env = ? AND tx = ?", env, tx).one().n;
    // A ledger shard asks for many small triggers: keep a bounded set (a miss only counts again).
    if (this.doneKnown.size >= DONE_COUNTS_KEPT) this.doneKnown.clear();
    this.doneKnown.set(key, n);
    return n;
  }

  /** `doneCount` of many triggers in one statement, by `triggerKey` (absent: none done). */
  doneCounts(keys: readonly { environmentId: string; transactionId: string }[]): Map<string, number> {
    const counts = new Map<string, number>();
    // A trigger named in two parts is counted in each, the same.
    for (const part of jsonParts(keys.map((k) => [k.environmentId, k.transactionId])))
      for (const row of this.sql.exec<{ env: string; tx: string; n: number }>(
        `SELECT d.env, d.tx, count(*) AS n FROM (SELECT DISTINCT value ->> 0 AS env, value ->> 1 AS tx FROM jsonb_each(?)) AS k
         JOIN done AS d ON d.env = k.env AND d.tx = k.tx GROUP BY d.env, d.tx`,
        part,
      ))
        counts.set(triggerKey(row.env, row.tx), row.n);
    return counts;
  }

  doneIn(env: string, tx: string, chunk: number): Set<string> {
    const rows = this.sql
      .exec<{ s: string }>("SELECT subscriber_id AS s FROM done WHERE env = ? AND tx = ? AND chunk = ?", env, tx, chunk)
      .toArray();
    return new Set(rows.map((r) => r.s));
  }

  /** Send identities handed to a provider (or being handed right now), and every identity settled at all. */
  claimCounts(env: string, tx: string): { sentOrSending: number; settled: number } {
    const row = this.sql
      .exec<{ sending: number; settled: number }>(
        "SELECT coalesce(sum(state IN ('claimed', 'sent')), 0) AS sending, count(*) AS settled FROM claims WHERE env = ? AND tx = ?",
        env,
        tx,
      )
      .one();
    return { sentOrSending: row.sending, settled: row.settled };
  }

  /** The entries in one write, in their order (json_each gives the list in order, parts follow each other; the ids rise with it). */
  park(env: string, tx: string, entries: WaitEntry[]): void {
    for (const part of jsonParts(entries.map((e) => [e.fireAt, JSON.stringify(e.job), e.hold ? JSON.stringify(e.hold) : null])))
      this.sql.exec(
        "INSERT INTO waits (env, tx, fire_at, job, hold) SELECT ?, ?, value ->> 0, value ->> 1, value ->> 2 FROM jsonb_each(?)",
        env,
        tx,
        part,
      );
  }

  /**
   * Releases the waits that are due (or, with `tx`, every wait of that trigger). A released
   * wait is kept until the trigger is forgotten: if its job is lost, the watchdog resumes its
   * recipients from where the wait left them, not from the first step.
   */
  takeWaits(filter: { dueBy: number } | { env: string; tx: string }, limit = 500): RecipientsJob[] {
    const rows =
      "dueBy" in filter
        ? this.sql
            .exec<{ id: number; job: string }>(
              "SELECT id, job FROM waits WHERE released = 0 AND fire_at <= ? ORDER BY fire_at LIMIT ?",
              filter.dueBy,
              limit,
            )
            .toArray()
        : this.sql
            .exec<{ id: number; job: string }>("SELECT id, job FROM waits WHERE released = 0 AND env = ? AND tx = ?", filter.env, filter.tx)
            .toArray();
    for (const part of jsonParts(rows.map((r) => r.id)))
      this.sql.exec("UPDATE waits SET released = 1 WHERE id IN (SELECT value FROM json_each(?))", part);
    return rows.map((r) => JSON.parse(r.job) as RecipientsJob);
  }

  /**
   * Takes one subscriber out of the waits not yet released (of one trigger, or of a whole
   * environment): the jobs that would have resumed them, for them alone. A wait left empty
   * counts as released, so nothing fires for it.
   */
  /**
   * Erasure: the address a sent claim's report keeps (to repair a lost D1 write) goes, so a repair
   * records the message as erased ones are, with no `to`. Claim keys start with the subscriberId
   * and a NUL (`keyOf`), so theirs are one range of the primary key. Returns the reports changed.
   */
  forgetAddresses(env: string, subscriberId: string): number {
    return this.sql.exec(
      "UPDATE claims SET report = json_set(report, '$.to', NULL) WHERE env = ? AND key >= ? AND key < ? AND report IS NOT NULL AND json_extract(report, '$.to') IS NOT NULL",
      env,
      `${subscriberId}\u0000`,
      `${subscriberId}\u0001`,
    ).rowsWritten;
  }

  /**
   * Erasure of one subscriber from this object's claims and waits, the same in a ledger shard and
   * a coordinator: their addresses leave the sent reports, and their parked steps leave the waits
   * marked `erased`, to be sent now so the consumer records them cancelled.
   */
  eraseSubscriber(filter: { env: string; tx?: string }, subscriberId: string): RecipientsJob[] {
    this.forgetAddresses(filter.env, subscriberId);
    this.runSteps.forgetSubscriber(filter.env, subscriberId);
    this.wakes.forgetSubscriber(filter.env, subscriberId);
    return this.takeSubscriber(filter, subscriberId).map((job) => ({ ...job, erased: true as const }));
  }

  takeSubscriber(filter: { env: string; tx?: string }, subscriberId: string): RecipientsJob[] {
    const rows = this.sql
      .exec<{ id: number; job: string }>(
        "SELECT id, job FROM waits WHERE released = 0 AND env = ?1 AND (?2 IS NULL OR tx = ?2) AND instr(job, ?3) > 0",
        filter.env,
        filter.tx ?? null,
        JSON.stringify(subscriberId),
      )
      .toArray();
    const taken: RecipientsJob[] = [];
    for (const row of rows) {
      const job = JSON.parse(row.job) as RecipientsJob;
      if (!job.subscriberIds.includes(subscriberId)) continue;
      const rest = job.subscriberIds.filter((id) => id !== subscriberId);
      if (rest.length === 0) this.sql.exec("UPDATE waits SET released = 1 WHERE id = ?", row.id);
      else this.sql.exec("UPDATE waits SET job = ? WHERE id = ?", JSON.stringify({ ...job, subscriberIds: rest }), row.id);
      taken.push({ ...job, subscriberIds: [subscriberId] });
    }
    return taken;
  }

  /** Parked jobs of a trigger that have not fired yet: when each fires. */
  waiting(env: string, tx: string): number[] {
    return this.sql
      .exec<{ at: number }>("SELECT fire_at AS at FROM waits WHERE released = 0 AND env = ? AND tx = ? ORDER BY fire_at", env, tx)
      .toArray()
      .map((r) => r.at);
  }

  /** Each recipient's parked step (of those in `of`, when given), earliest first, at most `limit` of them; `total` counts them all. */
  waitingSteps(env: string, tx: string, limit: number, of?: ReadonlySet<string>): { steps: WaitingStep[]; total: number } {
    const rows = this.sql
      .exec<{ at: number; job: string; hold: string | null }>(
        "SELECT fire_at AS at, job, hold FROM waits WHERE released = 0 AND env = ? AND tx = ? ORDER BY fire_at, id",
        env,
        tx,
      )
      .toArray();
    const steps: WaitingStep[] = [];
    let total = 0;
    for (const row of rows) {
      const job = JSON.parse(row.job) as RecipientsJob;
      const hold = row.hold ? (JSON.parse(row.hold) as WaitHold) : legacyHold(job);
      total += job.subscriberIds.length;
      for (const subscriberId of job.subscriberIds) {
        if (steps.length < limit && (!of || of.has(subscriberId)))
          steps.push({ stepId: hold.stepId, subscriberId, kind: hold.kind, until: row.at });
      }
    }
    return { steps, total };
  }

  hasWaits(env: string, tx: string): boolean {
    return this.waiting(env, tx).length > 0;
  }

  nextWait(): number | null {
    return this.sql.exec<{ at: number | null }>("SELECT min(fire_at) AS at FROM waits WHERE released = 0").one().at;
  }

  /** The latest released job of each recipient, so a resumed run continues after its delay. */
  resumePoints(env: string, tx: string): Map<string, RecipientsJob> {
    const points = new Map<string, RecipientsJob>();
    const rows = this.sql
      .exec<{ job: string }>("SELECT job FROM waits WHERE released = 1 AND env = ? AND tx = ? ORDER BY id", env, tx)
      .toArray();
    for (const r of rows) {
      const job = JSON.parse(r.job) as RecipientsJob;
      for (const id of job.subscriberIds) points.set(id, job);
    }
    return points;
  }

  forget(env: string, tx: string): void {
    for (const table of ["claims", "done", "waits", "run_steps", "signals"])
      this.sql.exec(`DELETE FROM ${table} WHERE env = ? AND tx = ?`, env, tx);
    this.doneKnown.delete(triggerKey(env, tx));
  }

  /** After the object's storage was emptied whole (a coordinator past its window). */
  forgetAll(): void {
    this.doneKnown.clear();
  }
}

/**
 * Recipients of a trigger's chunks that are not yet through every step, as jobs: from the
 * first step, or from where their last released wait (a delay, quiet hours) or the job a
 * closed digest sent on (`resumed`) left them, whichever is further along.
 */
export function pendingJobs(
  trigger: { env: string; tx: string },
  chunks: string[][],
  ledger: string,
  delivery: DeliveryState,
  resumed: readonly RecipientsJob[] = [],
): RecipientsJob[] {
  const resume = delivery.resumePoints(trigger.env, trigger.tx);
  for (const job of resumed) {
    for (const id of job.subscriberIds) {
      const known = resume.get(id);
      if (!known || (known.fromStep ?? 0) < (job.fromStep ?? 0)) resume.set(id, job);
    }
  }
  return chunks.flatMap((ids, chunk) => {
    const finished = delivery.doneIn(trigger.env, trigger.tx, chunk);
    const pending = ids.filter((id) => !finished.has(id));
    const groups = Map.groupBy(pending, (id) => resume.get(id));
    return [...groups].map(
      ([from, subscriberIds]): RecipientsJob =>
        from
          ? { ...from, ledger, chunk, subscriberIds }
          : { v: 1, type: "recipients", environmentId: trigger.env, transactionId: trigger.tx, chunk, subscriberIds, ledger },
    );
  });
}

/** Makes sure an object's alarm fires by `at`, moving it only earlier. */
export async function wakeBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const current = await storage.getAlarm();
  if (current === null || current > at) await storage.setAlarm(at);
}
