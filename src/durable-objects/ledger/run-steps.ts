import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import { jsonParts, PART_ROWS } from "../../lib/json-parts";

export type { RunStepRow } from "../../engine/content";

/**
 * The outcomes of a trigger's control steps per recipient, beside its claims: the branch each
 * recipient took, a fetch's answer, a wait's outcome, a workflow it started. A run that is
 * resumed (after a delay, a wait, a crash) reads them back instead of deciding again, so each is
 * decided, and each side effect done, once.
 */
export const RUN_STEPS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS run_steps (env TEXT NOT NULL, tx TEXT NOT NULL, subscriber_id TEXT NOT NULL, step_id TEXT NOT NULL, outcome TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (env, tx, subscriber_id, step_id));
`;

/**
 * Outcomes still open: a wait still waiting, a fetch between its retries. Any later record
 * replaces one; every other outcome is final, and the first recorded wins.
 */
export const OPEN_OUTCOMES = ["waiting", "retrying"] as const;

/** An upsert's condition: only an open outcome is replaced. */
const STILL_OPEN = `WHERE json_extract(run_steps.outcome, '$.status') IN (${OPEN_OUTCOMES.map((o) => `'${o}'`).join(", ")})`;

/** The outcomes of a list of recipients (`?3`, a JSON array) of one trigger, each found by its key. */
export const RECIPIENTS_OUTCOMES = `SELECT subscriber_id AS s, step_id AS step, outcome, at, rowid AS n FROM run_steps
  WHERE env = ?1 AND tx = ?2 AND subscriber_id IN (SELECT value FROM json_each(?3))`;

export class RunSteps {
  constructor(private readonly sql: SqlStorage) {}

  /** Every recorded outcome of these recipients. */
  of(env: string, tx: string, subscriberIds: readonly string[]): RunStepRow[] {
    if (subscriberIds.length === 0) return [];
    const wanted = new Set(subscriberIds);
    // One trigger's rows: a chunk's recipients are usually most of them, so one range read beats a lookup each.
    return this.sql
      .exec<{ s: string; step: string; outcome: string }>(
        "SELECT subscriber_id AS s, step_id AS step, outcome FROM run_steps WHERE env = ? AND tx = ?",
        env,
        tx,
      )
      .toArray()
      .filter((r) => wanted.has(r.s))
      .map((r) => ({ subscriberId: r.s, stepId: r.step, outcome: JSON.parse(r.outcome) as StepOutcomeView }));
  }

  /**
   * The recorded outcomes of these recipients (a page of the run view), in the order they were
   * first recorded, each recipient's found by its key: not the whole trigger's, read and parsed.
   */
  ofInOrder(env: string, tx: string, subscriberIds: readonly string[]): (RunStepRow & { at: number })[] {
    if (subscriberIds.length === 0) return [];
    return jsonParts(subscriberIds)
      .flatMap((part) =>
        this.sql.exec<{ s: string; step: string; outcome: string; at: number; n: number }>(RECIPIENTS_OUTCOMES, env, tx, part).toArray(),
      )
      .sort((a, b) => a.at - b.at || a.n - b.n)
      .map((r) => ({ subscriberId: r.s, stepId: r.step, outcome: JSON.parse(r.outcome) as StepOutcomeView, at: r.at }));
  }

  /**
   * Records outcomes, the first final one winning; answers what is stored for each after the
   * write, so a consumer that lost a race goes on with the winner's decision. Rows of distinct
   * recipient and step are written in one statement and read back in one; a pair named twice is
   * recorded in order, one row at a time.
   */
  record(env: string, tx: string, rows: readonly RunStepRow[], now: number): RunStepRow[] {
    if (rows.length === 0) return [];
    const pairOf = (row: RunStepRow) => `${row.subscriberId}\u0000${row.stepId}`;
    if (new Set(rows.map(pairOf)).size < rows.length) return rows.map((row) => this.recordOne(env, tx, row, now));
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts); the pairs are distinct, so parts do not interact.
    for (const part of jsonParts(rows.map((row) => [row.subscriberId, row.stepId, JSON.stringify(row.outcome)])))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO run_steps (env, tx, subscriber_id, step_id, outcome, at)
         SELECT ?, ?, v ->> 0, v ->> 1, v ->> 2, ? FROM part WHERE true
         ON CONFLICT (env, tx, subscriber_id, step_id) DO UPDATE SET outcome = excluded.outcome ${STILL_OPEN}`,
        part,
        env,
        tx,
        now,
      );
    const stored = new Map<string, string>();
    for (const part of jsonParts(rows.map((row) => [row.subscriberId, row.stepId])))
      for (const r of this.sql.exec<{ s: string; step: string; outcome: string }>(
        `SELECT subscriber_id AS s, step_id AS step, outcome FROM run_steps
         WHERE env = ? AND tx = ? AND (subscriber_id, step_id) IN (SELECT value ->> 0, value ->> 1 FROM jsonb_each(?))`,
        env,
        tx,
        part,
      ))
        stored.set(`${r.s}\u0000${r.step}`, r.outcome);
    return rows.map((row) => ({ ...row, outcome: JSON.parse(stored.get(pairOf(row))!) as StepOutcomeView }));
  }

  private recordOne(env: string, tx: string, row: RunStepRow, now: number): RunStepRow {
    this.sql.exec(
      `INSERT INTO run_steps (env, tx, subscriber_id, step_id, outcome, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (env, tx, subscriber_id, step_id) DO UPDATE SET outcome = excluded.outcome ${STILL_OPEN}`,
      env,
      tx,
      row.subscriberId,
      row.stepId,
      JSON.stringify(row.outcome),
      now,
    );
    const stored = this.sql
      .exec<{ outcome: string }>(
        "SELECT outcome FROM run_steps WHERE env = ? AND tx = ? AND subscriber_id = ? AND step_id = ?",
        env,
        tx,
        row.subscriberId,
        row.stepId,
      )
      .one();
    return { ...row, outcome: JSON.parse(stored.outcome) as StepOutcomeView };
  }

  forget(env: string, tx: string): void {
    this.sql.exec("DELETE FROM run_steps WHERE env = ? AND tx = ?", env, tx);
  }

  /** Erasure: the recorded outcomes of one subscriber (a fetch's answer may hold their data). */
  forgetSubscriber(env: string, subscriberId: string): void {
    this.sql.exec("DELETE FROM run_steps WHERE env = ? AND subscriber_id = ?", env, subscriberId);
  }
}
