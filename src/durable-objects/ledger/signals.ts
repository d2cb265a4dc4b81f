import type { StepOutcomeView } from "../../engine/content";
import { reaches } from "../../engine/wait-statuses";
import type { RecipientsJob } from "../../jobs/job";
import type { TriggerSignal, WaitEntry, WaitHold, WaitWatch } from "./claims";
import { OPEN_OUTCOMES, type RunSteps } from "./run-steps";

/** Signals a trigger got, numbered: a wait parked again reads the ones it has not seen yet. */
export const SIGNALS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS signals (seq INTEGER PRIMARY KEY AUTOINCREMENT, env TEXT NOT NULL, tx TEXT NOT NULL, name TEXT NOT NULL, subscriber_id TEXT, data TEXT, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS signals_tx ON signals (env, tx, seq);
`;

/** A message of a trigger that reached a status a wait may watch for. */
export interface MessageReached {
  subscriberId: string;
  stepId: string;
  status: string;
}

/** What a signal did: waits it ended now, and waits whose `if` the consumer now reads against it. */
export interface SignalOutcome {
  matched: number;
  evaluating: number;
}

interface StoredSignal {
  seq: number;
  name: string;
  subscriberId: string | null;
  data: TriggerSignal["data"];
}

interface WaitRow {
  id: number;
  job: RecipientsJob;
  hold: WaitHold & { watch: WaitWatch };
}

const isOpen = (o: StepOutcomeView | undefined) => o !== undefined && (OPEN_OUTCOMES as readonly string[]).includes(o.status);

/**
 * Wake-ups of wait steps, in the object that keeps the trigger's waits and outcomes (a ledger
 * shard, or a large fan-out's coordinator), so each is atomic with the wait it ends: the
 * outcome `matched` is recorded in run_steps (the first final outcome wins, so a timeout
 * recorded first leaves it `timed_out`), the recipients leave the wait row, and the caller sends
 * the job that resumes them at the wait's step, where the consumer finds the outcome and goes on.
 *
 * A wait whose signal has an `if` cannot be decided here: the condition reads the recipient's
 * context (payload, subscriber, earlier steps), which only the consumer renders. Those recipients
 * leave the row with the signal in their job; the consumer records `matched` or parks them again
 * with `after` set to that signal's number. Every signal is kept, so one that arrives while a
 * recipient is between its record and its park (or being evaluated) is found when it parks.
 */
export class WaitWakes {
  constructor(
    private readonly sql: SqlStorage,
    private readonly runSteps: RunSteps,
  ) {}

  signal(env: string, tx: string, signal: TriggerSignal, now: number): SignalOutcome & { jobs: RecipientsJob[] } {
    const seq = this.sql
      .exec<{ seq: number }>(
        "INSERT INTO signals (env, tx, name, subscriber_id, data, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
        env,
        tx,
        signal.name,
        signal.subscriberId ?? null,
        signal.data === undefined ? null : JSON.stringify(signal.data),
        now,
      )
      .one().seq;
    const stored: StoredSignal = { seq, name: signal.name, subscriberId: signal.subscriberId ?? null, data: signal.data };
    const outcome = { matched: 0, evaluating: 0, jobs: [] as RecipientsJob[] };
    for (const row of this.waitRows(env, tx)) {
      const watch = row.hold.watch;
      if (!("signal" in watch) || watch.signal !== signal.name) continue;
      const ids = row.job.subscriberIds.filter((id) => signal.subscriberId === undefined || id === signal.subscriberId);
      if (ids.length === 0) continue;
      if (watch.conditional) {
        outcome.evaluating += ids.length;
        outcome.jobs.push(this.take(row, ids, { signal: toJobSignal(stored) }));
        continue;
      }
      const matched = this.match(env, tx, row.hold.stepId, ids, { signal: { name: signal.name, ...dataOf(stored) } }, now);
      outcome.matched += matched.length;
      if (matched.length) outcome.jobs.push(this.take(row, matched));
    }
    return outcome;
  }

  /**
   * Messages that reached a status: the recipients whose open wait watches that step for it
   * (parked or about to be) are matched, and the parked ones leave their rows.
   */
  messages(env: string, tx: string, reached: readonly MessageReached[], now: number): RecipientsJob[] {
    for (const [subscriberId, reports] of Map.groupBy(reached, (r) => r.subscriberId)) {
      for (const { stepId, outcome } of this.runSteps.of(env, tx, [subscriberId])) {
        const watch = outcome.status === "waiting" ? watchOf(outcome) : undefined;
        if (!watch || !("message" in watch)) continue;
        const hit = reports.find((r) => r.stepId === watch.message.step && reaches(r.status, watch.message.status));
        if (hit) this.match(env, tx, stepId, [subscriberId], { message: { step: hit.stepId, status: hit.status } }, now);
      }
    }
    const subscribers = new Set(reached.map((r) => r.subscriberId));
    const jobs: RecipientsJob[] = [];
    for (const row of this.waitRows(env, tx)) {
      const ids = row.job.subscriberIds.filter((id) => subscribers.has(id));
      const decided = this.decided(env, tx, row.hold.stepId, ids);
      if (decided.length) jobs.push(this.take(row, decided));
    }
    return jobs;
  }

  /**
   * What a park of wait steps becomes: recipients whose wait was decided or signalled while they
   * were on their way to park fire now instead of at their timeout (with the signal to read, for
   * an `if`); the rest park as asked.
   */
  settle(env: string, tx: string, entries: readonly WaitEntry[], now: number): WaitEntry[] {
    return entries.flatMap((entry): WaitEntry[] => {
      const watch = entry.hold?.kind === "wait" ? entry.hold.watch : undefined;
      if (!entry.hold || !watch) return [entry];
      const stepId = entry.hold.stepId;
      const decided = new Set(this.decided(env, tx, stepId, entry.job.subscriberIds));
      const out: WaitEntry[] = [];
      const signalled = new Map<number, string[]>();
      const signals = "signal" in watch ? this.signalsAfter(env, tx, watch.signal, watch.after ?? 0, watch.since) : [];
      const rest: string[] = [];
      for (const id of entry.job.subscriberIds) {
        if (decided.has(id)) continue;
        const next = signals.find((s) => s.subscriberId === null || s.subscriberId === id);
        if (!next || !("signal" in watch)) {
          rest.push(id);
          continue;
        }
        if (!watch.conditional) {
          this.match(env, tx, stepId, [id], { signal: { name: next.name, ...dataOf(next) } }, now);
          decided.add(id);
        } else signalled.set(next.seq, [...(signalled.get(next.seq) ?? []), id]);
      }
      if (decided.size) out.push({ ...entry, fireAt: now, job: { ...entry.job, subscriberIds: [...decided] } });
      for (const [seq, members] of signalled) {
        const signal = signals.find((s) => s.seq === seq)!;
        out.push({ ...entry, fireAt: now, job: { ...entry.job, subscriberIds: members, signal: toJobSignal(signal) } });
      }
      if (rest.length) out.push({ ...entry, job: { ...entry.job, subscriberIds: rest } });
      return out;
    });
  }

  forget(env: string, tx: string): void {
    this.sql.exec("DELETE FROM signals WHERE env = ? AND tx = ?", env, tx);
  }

  /** Erasure: the signals sent to one subscriber (their data may be about them). */
  forgetSubscriber(env: string, subscriberId: string): void {
    this.sql.exec("DELETE FROM signals WHERE env = ? AND subscriber_id = ?", env, subscriberId);
  }

  private waitRows(env: string, tx: string): WaitRow[] {
    return this.sql
      .exec<{ id: number; job: string; hold: string }>(
        "SELECT id, job, hold FROM waits WHERE released = 0 AND env = ? AND tx = ? AND json_extract(hold, '$.kind') = 'wait' AND json_extract(hold, '$.watch') IS NOT NULL ORDER BY id",
        env,
        tx,
      )
      .toArray()
      .map((r) => ({ id: r.id, job: JSON.parse(r.job) as RecipientsJob, hold: JSON.parse(r.hold) as WaitRow["hold"] }));
  }

  private signalsAfter(env: string, tx: string, name: string, after: number, since: number): StoredSignal[] {
    return this.sql
      .exec<{ seq: number; name: string; s: string | null; data: string | null }>(
        "SELECT seq, name, subscriber_id AS s, data FROM signals WHERE env = ? AND tx = ? AND name = ? AND seq > ? AND at >= ? ORDER BY seq",
        env,
        tx,
        name,
        after,
        since,
      )
      .toArray()
      .map((r) => ({ seq: r.seq, name: r.name, subscriberId: r.s, data: r.data === null ? undefined : JSON.parse(r.data) }));
  }

  /** Records `matched` where the wait is still open; answers the recipients whose wait it ended. */
  private match(env: string, tx: string, stepId: string, ids: readonly string[], detail: Record<string, unknown>, now: number): string[] {
    const before = new Map(this.runSteps.of(env, tx, ids).flatMap((r) => (r.stepId === stepId ? [[r.subscriberId, r.outcome]] : [])));
    const open = ids.filter((id) => isOpen(before.get(id)));
    this.runSteps.record(
      env,
      tx,
      open.map((subscriberId) => ({ subscriberId, stepId, outcome: { status: "ran", outcome: "matched", detail } })),
      now,
    );
    return open;
  }

  /** Of these recipients, those whose wait at `stepId` has a final outcome. */
  private decided(env: string, tx: string, stepId: string, ids: readonly string[]): string[] {
    const outcomes = this.runSteps.of(env, tx, ids).filter((r) => r.stepId === stepId && !isOpen(r.outcome));
    return [...new Set(outcomes.map((r) => r.subscriberId))];
  }

  /**
   * Takes recipients out of an unreleased wait row, as `takeSubscriber` does, and keeps their
   * job as a released row: it is their resume point if the job sent now is lost.
   */
  private take(row: WaitRow, ids: readonly string[], extra: Partial<RecipientsJob> = {}): RecipientsJob {
    const rest = row.job.subscriberIds.filter((id) => !ids.includes(id));
    if (rest.length === 0) this.sql.exec("UPDATE waits SET released = 1 WHERE id = ?", row.id);
    else this.sql.exec("UPDATE waits SET job = ? WHERE id = ?", JSON.stringify({ ...row.job, subscriberIds: rest }), row.id);
    const job: RecipientsJob = { ...row.job, ...extra, subscriberIds: [...ids] };
    if (rest.length > 0) {
      this.sql.exec(
        "INSERT INTO waits (env, tx, fire_at, job, released, hold) SELECT env, tx, fire_at, ?, 1, hold FROM waits WHERE id = ?",
        JSON.stringify(job),
        row.id,
      );
    }
    return job;
  }
}

/** What an open wait outcome waits for (its detail, as the wait step recorded it). */
export const watchOf = (outcome: StepOutcomeView): WaitWatch | undefined => outcome.detail?.watch as WaitWatch | undefined;

const dataOf = (s: StoredSignal) => (s.data === undefined ? {} : { data: s.data });

const toJobSignal = (s: StoredSignal): NonNullable<RecipientsJob["signal"]> => ({ seq: s.seq, name: s.name, ...dataOf(s) });
