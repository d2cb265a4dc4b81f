import { DurableObject } from "cloudflare:workers";
import type { JsonObject } from "../contract/json";
import type { RecipientsJob } from "../jobs/job";
import { deliveryQueueFor } from "../jobs/queues";
import type { Bindings } from "../env";
import type { DigestCollected, DigestEntry, DigestPending, DigestResume } from "./digest-types";
import { ledgerTimings } from "./settings";

/** Closed digests kept for the runs that read them (`collected`): the newest. */
const KEEP_CLOSED = 50;

/**
 * One row per thing kept, never one value for all: before 0.13 the whole state was one storage
 * value, read and written whole on every trigger, and every trigger's decision stayed in it for
 * good, so a subscriber digested for long enough passed the 2 MB a value may hold and their
 * digest failed. Decisions and released jobs are kept for the idempotency window, as the
 * ledger keeps its triggers; a window's entries and a closed digest's events are a row each.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS open_window (id INTEGER PRIMARY KEY CHECK (id = 1), closes_at INTEGER NOT NULL, step_id TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, tx TEXT NOT NULL, entry TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS entries_tx ON entries (tx);
  CREATE TABLE IF NOT EXISTS decisions (tx TEXT PRIMARY KEY, decision TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS decisions_at ON decisions (at);
  CREATE TABLE IF NOT EXISTS closed (tx TEXT PRIMARY KEY, count INTEGER NOT NULL, closed_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS closed_events (tx TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (tx, seq));
  CREATE TABLE IF NOT EXISTS released (tx TEXT PRIMARY KEY, job TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS released_at ON released (at);
  CREATE TABLE IF NOT EXISTS last_sent (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL);`;

/** The one storage value an object written before 0.13 kept everything in. */
const LEGACY_KEY = "digest";

interface LegacyState {
  window: { closesAt: number; stepId: string; entries: DigestEntry[] } | null;
  lastSentAt: number | null;
  decisions: Record<string, "continue" | "wait">;
  closed: Record<string, { events: JsonObject[]; count: number; closedAt: number }>;
  released?: Record<string, { job: RecipientsJob; at: number }>;
}

type Decision = "continue" | "wait";

/**
 * One object per (environment, workflow, subscriber, digest key): `digestName` in the client.
 * Triggers that reach the digest step within the window are collected; when the window closes,
 * the first remaining trigger's run continues with every collected payload and the others stop
 * as `digested`.
 */
export class DigestObject extends DurableObject<Bindings> {
  private readonly sql: SqlStorage;
  /** Whether the tables exist: `erase` drops everything, the next call makes them again. */
  private prepared = false;
  /** Whether this instance looked for a pre-0.13 value (once: none is ever written again). */
  private upgraded = false;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
  }

  /** Every call's first step: the tables, and the old value moved into them if there is one. */
  private async ready(): Promise<void> {
    if (!this.prepared) {
      this.sql.exec(SCHEMA);
      this.prepared = true;
    }
    if (this.upgraded) return;
    await this.upgradeLegacy();
    this.upgraded = true;
  }

  /** Moves an object's pre-0.13 state (one value) into the tables, once. */
  private async upgradeLegacy(): Promise<void> {
    const legacy = await this.ctx.storage.get<LegacyState>(LEGACY_KEY);
    if (!legacy) return;
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      if (legacy.window) {
        this.sql.exec(
          "INSERT OR REPLACE INTO open_window (id, closes_at, step_id) VALUES (1, ?, ?)",
          legacy.window.closesAt,
          legacy.window.stepId,
        );
        // Once each: an import cut off before the value's delete below runs again on the next call.
        for (const e of legacy.window.entries)
          this.sql.exec(
            "INSERT INTO entries (tx, entry) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM entries WHERE tx = ?1)",
            e.transactionId,
            JSON.stringify(e),
          );
      }
      if (legacy.lastSentAt !== null) this.setLastSent(legacy.lastSentAt);
      // Their times were not kept: they count from now, for the idempotency window.
      for (const [tx, decision] of Object.entries(legacy.decisions)) this.decide(tx, decision, now);
      for (const [tx, c] of Object.entries(legacy.closed)) this.keepClosed(tx, c.events, c.count, c.closedAt);
      for (const [tx, r] of Object.entries(legacy.released ?? {}))
        this.sql.exec("INSERT OR REPLACE INTO released (tx, job, at) VALUES (?, ?, ?)", tx, JSON.stringify(r.job), r.at);
    });
    await this.ctx.storage.delete(LEGACY_KEY);
  }

  async add(entry: DigestEntry, stepId: string, windowMs: number, mode: "fixed" | "lookback", now = Date.now()): Promise<Decision> {
    await this.ready();
    const known = this.sql.exec<{ decision: Decision }>("SELECT decision FROM decisions WHERE tx = ?", entry.transactionId).toArray()[0];
    if (known) return known.decision;
    const window = this.openWindow();
    const lastSentAt = this.sql.exec<{ at: number }>("SELECT at FROM last_sent").toArray()[0]?.at ?? null;
    if (!window && mode === "lookback" && (lastSentAt === null || now - lastSentAt >= windowMs)) {
      // Look-back: nothing went out recently, so this one goes at once and opens the window for the next.
      this.ctx.storage.transactionSync(() => {
        this.setLastSent(now);
        this.keepClosed(entry.transactionId, [entry.payload], 1, now);
        this.decide(entry.transactionId, "continue", now);
      });
      return "continue";
    }
    const closesAt = window?.closesAt ?? now + windowMs;
    // The alarm first: one that fires with no window does nothing, an entry without an alarm would wait for good.
    await this.ctx.storage.setAlarm(closesAt);
    this.ctx.storage.transactionSync(() => {
      if (!window) this.sql.exec("INSERT INTO open_window (id, closes_at, step_id) VALUES (1, ?, ?)", closesAt, stepId);
      this.sql.exec("INSERT INTO entries (tx, entry) VALUES (?, ?)", entry.transactionId, JSON.stringify(entry));
      this.decide(entry.transactionId, "wait", now);
    });
    return "wait";
  }

  /** A cancelled trigger leaves the pending digest; its job runs now so its messages are recorded cancelled. */
  async remove(transactionId: string): Promise<boolean> {
    await this.ready();
    const entry = this.openWindow() ? this.entryOf(transactionId) : null;
    if (!entry) return false;
    this.sql.exec("DELETE FROM entries WHERE tx = ?", transactionId);
    await deliveryQueueFor(this.env, transactionId).send(entry.job);
    return true;
  }

  /**
   * The subscriber of this digest was erased: pending entries leave the window and their jobs
   * run now marked `erased` (recorded cancelled), and every collected payload is forgotten.
   */
  async erase(): Promise<number> {
    await this.ready();
    const entries = this.openWindow() ? this.entries() : [];
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.prepared = false;
    if (entries.length) {
      await deliveryQueueFor(this.env, entries[0]!.transactionId).sendBatch(entries.map((e) => ({ body: { ...e.job, erased: true } })));
    }
    return entries.length;
  }

  /** This trigger's recipient waiting in the open window, with the step that then runs and when it closes. */
  async pending(transactionId: string): Promise<DigestPending | null> {
    await this.ready();
    const window = this.openWindow();
    const entry = window ? this.entryOf(transactionId) : null;
    if (!window || !entry) return null;
    return { stepId: entry.waitingStepId ?? window.stepId, subscriberIds: entry.job.subscriberIds, until: window.closesAt };
  }

  async collected(transactionId: string): Promise<DigestCollected | null> {
    await this.ready();
    const closed = this.sql.exec<{ count: number }>("SELECT count FROM closed WHERE tx = ?", transactionId).toArray()[0];
    if (!closed) return null;
    const events = this.sql
      .exec<{ payload: string }>("SELECT payload FROM closed_events WHERE tx = ? ORDER BY seq", transactionId)
      .toArray()
      .map((r) => JSON.parse(r.payload) as JsonObject);
    return { events, count: closed.count };
  }

  /**
   * Where a trigger's run stands here: still collecting until the window closes, or the job it
   * continued with (sent again by the watchdog when that one was lost), or null when its run
   * never waited here (it went on at once, or never arrived).
   */
  async resume(transactionId: string): Promise<DigestResume> {
    await this.ready();
    const window = this.openWindow();
    if (window && this.entryOf(transactionId)) return { until: window.closesAt };
    const released = this.sql.exec<{ job: string }>("SELECT job FROM released WHERE tx = ?", transactionId).toArray()[0];
    return released ? { job: JSON.parse(released.job) as RecipientsJob } : null;
  }

  override async alarm(): Promise<void> {
    const jobs = await this.close(Date.now());
    if (jobs.length) await deliveryQueueFor(this.env, jobs[0]!.transactionId).sendBatch(jobs.map((body) => ({ body })));
  }

  /**
   * The alarm's durable half: closes the window and records the job each trigger continues
   * with, which the alarm then sends. A crash between the two loses only the send: `resume`
   * still answers with those jobs.
   */
  async close(now: number): Promise<RecipientsJob[]> {
    await this.ready();
    const window = this.openWindow();
    if (!window) return [];
    const entries = this.entries();
    const [leader, ...followers] = entries;
    const name = this.ctx.id.name ?? "";
    const jobs = leader
      ? [
          { ...leader.job, digest: { name, stepId: window.stepId } },
          ...followers.map((f) => ({ ...f.job, digestedInto: leader.transactionId })),
        ]
      : [];
    const keepFrom = now - ledgerTimings(this.env).retentionMs;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM open_window");
      this.sql.exec("DELETE FROM entries");
      this.sql.exec("DELETE FROM released WHERE at <= ?", keepFrom);
      for (const job of jobs)
        this.sql.exec("INSERT OR REPLACE INTO released (tx, job, at) VALUES (?, ?, ?)", job.transactionId, JSON.stringify(job), now);
      if (leader) {
        this.setLastSent(now);
        this.keepClosed(
          leader.transactionId,
          entries.map((e) => e.payload),
          entries.length,
          now,
        );
      }
    });
    return jobs;
  }

  private openWindow(): { closesAt: number; stepId: string } | null {
    const row = this.sql.exec<{ closes_at: number; step_id: string }>("SELECT closes_at, step_id FROM open_window").toArray()[0];
    return row ? { closesAt: row.closes_at, stepId: row.step_id } : null;
  }

  private entries(): DigestEntry[] {
    return this.sql
      .exec<{ entry: string }>("SELECT entry FROM entries ORDER BY seq")
      .toArray()
      .map((r) => JSON.parse(r.entry) as DigestEntry);
  }

  private entryOf(transactionId: string): DigestEntry | null {
    const row = this.sql.exec<{ entry: string }>("SELECT entry FROM entries WHERE tx = ? ORDER BY seq LIMIT 1", transactionId).toArray()[0];
    return row ? (JSON.parse(row.entry) as DigestEntry) : null;
  }

  private setLastSent(at: number): void {
    this.sql.exec("INSERT OR REPLACE INTO last_sent (id, at) VALUES (1, ?)", at);
  }

  /** A trigger's answer, kept for the idempotency window so a redelivered job gets the same; older ones go. */
  private decide(transactionId: string, decision: Decision, now: number): void {
    this.sql.exec("DELETE FROM decisions WHERE at <= ?", now - ledgerTimings(this.env).retentionMs);
    this.sql.exec("INSERT OR REPLACE INTO decisions (tx, decision, at) VALUES (?, ?, ?)", transactionId, decision, now);
  }

  /** A closed digest's events, a row each, for its run to read; only the newest KEEP_CLOSED are kept. */
  private keepClosed(transactionId: string, events: JsonObject[], count: number, closedAt: number): void {
    this.sql.exec("DELETE FROM closed_events WHERE tx = ?", transactionId);
    this.sql.exec("INSERT OR REPLACE INTO closed (tx, count, closed_at) VALUES (?, ?, ?)", transactionId, count, closedAt);
    for (const [seq, payload] of events.entries())
      this.sql.exec("INSERT INTO closed_events (tx, seq, payload) VALUES (?, ?, ?)", transactionId, seq, JSON.stringify(payload));
    const stale = this.sql
      .exec<{ tx: string }>("SELECT tx FROM closed ORDER BY closed_at DESC, tx LIMIT -1 OFFSET ?", KEEP_CLOSED)
      .toArray()
      .map((r) => r.tx);
    for (const tx of stale) {
      this.sql.exec("DELETE FROM closed WHERE tx = ?", tx);
      this.sql.exec("DELETE FROM closed_events WHERE tx = ?", tx);
    }
  }
}
