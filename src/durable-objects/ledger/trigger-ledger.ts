import { DurableObject } from "cloudflare:workers";
import { triggerJob, type DeliveryJob } from "../../delivery/job";
import { sendPacked } from "../../delivery/pack";
import type { TriggerRecord, TriggerSnapshot, TriggerState } from "../../delivery/trigger-record";
import { deliveryQueueFor } from "../../delivery/queues";
import type { Bindings } from "../../env";
import { digestCollectsFor } from "../client/naming";
import { TriggerStore } from "../client/trigger-store";
import { type LedgerTimings, ledgerTimings } from "../settings";
import type { DeliveryOp, DeliveryOpResult } from "./claims";
import { DELIVERY_SCHEMA, DeliveryState, pendingJobs, upgradeDeliverySchema, wakeBy } from "./delivery-state";
import type { AcceptEntry, AcceptOutcome, CancelOutcome, FanOut, FanOutResult, LedgerWaits, ShardErasure } from "./outcomes";

const LEDGER_SCHEMA = `
  CREATE TABLE IF NOT EXISTS triggers (
    env TEXT NOT NULL, tx TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL, record TEXT NOT NULL,
    accepted_at INTEGER NOT NULL, enqueued_at INTEGER, cancelled_at INTEGER, finished_at INTEGER,
    check_at INTEGER NOT NULL, hold_until INTEGER, chunks TEXT, coordinated INTEGER NOT NULL DEFAULT 0, digests TEXT,
    PRIMARY KEY (env, tx)
  );
  CREATE INDEX IF NOT EXISTS triggers_live ON triggers (state, check_at);
  CREATE INDEX IF NOT EXISTS triggers_finished ON triggers (finished_at);
  CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, tx TEXT NOT NULL, job TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

interface Row {
  env: string;
  tx: string;
  fingerprint: string;
  state: TriggerState;
  record: string;
  /** When the watchdog looks at the trigger next: the stall window after its last progress, or the end of a hold. */
  check_at: number;
  hold_until: number | null;
  chunks: string | null;
  coordinated: number;
  digests: string | null;
}

/** What a flush sent: outbox jobs, and the Queue messages that carried them. */
interface Flushed {
  jobs: number;
  messages: number;
}

/** Outbox rows read per round of a flush; they leave packed, so a round costs a few Queue messages. */
const FLUSH_BATCH = 1_000;
/**
 * The outbox is flushed from memory moments after an accept; the alarm is only the backstop
 * that flushes whatever a crash left, so it is armed this far out and rarely moved.
 */
const BACKSTOP_MS = 5_000;
/** Finished triggers forgotten per alarm, so one alarm never holds the object long. */
const PURGE_BATCH = 500;
const WATCHDOG_BATCH = 50;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

/**
 * One shard of the trigger ledger: a fixed set of warm objects (by a hash of environment and
 * transactionId) instead of a new object per trigger. It decides idempotency, conflicts and
 * cancellation atomically, and writes each accepted trigger with its Queue job (the outbox) in
 * one transaction, so the 202 never waits for the Queue: its alarm flushes the outbox moments
 * later and again after any crash. Triggers of one chunk keep their exactly-once claims here;
 * larger fan-outs hand those to a per-trigger FanOutCoordinator. Its alarm is also the
 * watchdog that re-enqueues a stalled trigger's unfinished work, and the janitor that forgets
 * finished triggers after the idempotency window.
 */
export class TriggerLedger extends DurableObject<Bindings> {
  private readonly delivery: DeliveryState;
  private readonly sql: SqlStorage;
  private readonly store: TriggerStore;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<Flushed> | null = null;
  /**
   * The last outbox id sent since this instance started. Sent rows are deleted by the next
   * alarm, not at once, so a flush costs no write; an instance that dies before deleting them
   * sends them again (harmless: the consumer is idempotent).
   */
  private sentUpTo = 0;
  /** This instance has stored its name (the first accept does). */
  private named = false;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.delivery = new DeliveryState(this.sql);
    this.store = new TriggerStore(env);
    this.sql.exec(LEDGER_SCHEMA + DELIVERY_SCHEMA);
    upgradeDeliverySchema(this.sql);
  }

  private row(env: string, tx: string): Row | undefined {
    return this.sql.exec<Row & Record<string, SqlStorageValue>>("SELECT * FROM triggers WHERE env = ? AND tx = ?", env, tx).toArray()[0];
  }

  private get name(): string {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'name'").toArray()[0]?.value ?? "";
  }

  private enqueue(tx: string, job: DeliveryJob) {
    this.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", tx, JSON.stringify(job));
  }

  /**
   * Stores new triggers with their jobs; a seen transactionId replays with the same body and
   * conflicts with another. Everything is written before the answer, in one transaction.
   */
  async accept(name: string, items: AcceptEntry[]): Promise<AcceptOutcome[]> {
    const now = Date.now();
    // Once per instance, not per accept: a replay then writes nothing, and an accept one statement less.
    if (!this.named) {
      this.sql.exec("INSERT OR IGNORE INTO meta (key, value) VALUES ('name', ?)", name);
      this.named = true;
    }
    const outcomes = items.map(({ record, fingerprint }): AcceptOutcome => {
      const existing = this.row(record.environmentId, record.transactionId);
      if (existing) return existing.fingerprint === fingerprint ? "replayed" : "conflict";
      this.sql.exec(
        "INSERT INTO triggers (env, tx, fingerprint, state, record, accepted_at, check_at) VALUES (?, ?, ?, 'accepted', ?, ?, ?)",
        record.environmentId,
        record.transactionId,
        fingerprint,
        JSON.stringify(record),
        now,
        now + ledgerTimings(this.env).stallMs,
      );
      this.enqueue(record.transactionId, { ...triggerJob(record.environmentId, record.transactionId), ledger: name });
      return "accepted";
    });
    if (outcomes.includes("accepted")) {
      this.flushSoon();
      await wakeBy(this.ctx.storage, now + BACKSTOP_MS);
    }
    return outcomes;
  }

  async snapshots(keys: { environmentId: string; transactionId: string }[]): Promise<(TriggerSnapshot | null)[]> {
    const name = this.name;
    return keys.map(({ environmentId, transactionId }) => {
      const row = this.row(environmentId, transactionId);
      if (!row) return null;
      return { ...(JSON.parse(row.record) as TriggerRecord), state: row.state, ledger: name, coordinated: row.coordinated === 1 };
    });
  }

  /**
   * Records how each trigger fans out. A trigger of at most one chunk runs its claims here; the
   * first recorded chunks win, so a redelivered job runs exactly the recipients the first saw.
   */
  async fanOut(items: FanOut[]): Promise<FanOutResult[]> {
    const now = Date.now();
    return items.map((item) => {
      const row = this.row(item.environmentId, item.transactionId);
      if (!row) return { state: "failed", chunks: null, completed: false };
      let chunks = row.chunks ? (JSON.parse(row.chunks) as string[][]) : null;
      if (!row.chunks && !row.coordinated) {
        chunks = item.chunks;
        this.sql.exec(
          "UPDATE triggers SET chunks = ?, coordinated = ?, enqueued_at = coalesce(enqueued_at, ?), check_at = max(?, coalesce(hold_until, 0)) WHERE env = ? AND tx = ?",
          chunks ? JSON.stringify(chunks) : null,
          chunks ? 0 : 1,
          now,
          now + ledgerTimings(this.env).stallMs,
          item.environmentId,
          item.transactionId,
        );
      }
      const completed = this.completeIfDone(item.environmentId, item.transactionId, now);
      return { state: completed ? "completed" : row.state, chunks, completed };
    });
  }

  /** Marks a trigger whose every recipient is through as completed; answers whether it just did. */
  private completeIfDone(env: string, tx: string, now: number): boolean {
    const row = this.row(env, tx);
    if (row?.state !== "accepted" || !row.chunks) return false;
    const total = (JSON.parse(row.chunks) as string[][]).reduce((n, c) => n + c.length, 0);
    if (this.delivery.doneCount(env, tx) < total) return false;
    this.sql.exec("UPDATE triggers SET state = 'completed', finished_at = ? WHERE env = ? AND tx = ?", now, env, tx);
    return true;
  }

  /** The delivery bookkeeping of a consumer phase, for every trigger of this shard it touched. */
  async run(ops: DeliveryOp[]): Promise<DeliveryOpResult[]> {
    const now = Date.now();
    const checkAt = now + ledgerTimings(this.env).stallMs;
    const touched = new Set<string>();
    let wakeAt = Number.POSITIVE_INFINITY;
    const results = ops.map((op): DeliveryOpResult => {
      const { environmentId: env, transactionId: tx } = op;
      const row = this.row(env, tx);
      if (row && !touched.has(`${env}\u0000${tx}`)) {
        touched.add(`${env}\u0000${tx}`);
        this.sql.exec("UPDATE triggers SET check_at = max(?, coalesce(hold_until, 0)) WHERE env = ? AND tx = ?", checkAt, env, tx);
      }
      if (op.kind === "hold") {
        if (row) this.hold(row, op.until, op.digest);
        return { kind: "hold" };
      }
      const trigger = { cancelled: !row || row.state === "cancelled", complete: () => this.completeIfDone(env, tx, now) };
      const applied = this.delivery.apply(op, trigger, now);
      wakeAt = Math.min(wakeAt, applied.wakeAt ?? wakeAt);
      return applied.result;
    });
    if (wakeAt !== Number.POSITIVE_INFINITY) await wakeBy(this.ctx.storage, wakeAt);
    return results;
  }

  /** A trigger resting in a digest (or similar) until about `until`: the watchdog leaves it alone till then. */
  private hold(row: Row, until: number, digest: string | undefined) {
    const digests = new Set(row.digests ? (JSON.parse(row.digests) as string[]) : []);
    if (digest) digests.add(digest);
    this.sql.exec(
      "UPDATE triggers SET hold_until = max(coalesce(hold_until, 0), ?), check_at = max(check_at, ?), digests = ? WHERE env = ? AND tx = ?",
      until,
      until,
      JSON.stringify([...digests]),
      row.env,
      row.tx,
    );
  }

  /** A trigger whose coordinator (or the dead-letter queue) finished it. */
  async finish(items: { environmentId: string; transactionId: string; state: "completed" | "failed" }[]): Promise<void> {
    const now = Date.now();
    for (const i of items) {
      this.sql.exec(
        "UPDATE triggers SET state = ?, finished_at = ? WHERE env = ? AND tx = ? AND state = 'accepted'",
        i.state,
        now,
        i.environmentId,
        i.transactionId,
      );
    }
    await wakeBy(this.ctx.storage, now + ledgerTimings(this.env).retentionMs);
  }

  /**
   * Stops a trigger: no claim is granted from now on, parked steps are released at once so
   * their consumers record them cancelled, and pending digests are named for removal.
   */
  async cancel(environmentId: string, transactionId: string): Promise<CancelOutcome> {
    const row = this.row(environmentId, transactionId);
    if (!row) return { status: "not_found" };
    const record = JSON.parse(row.record) as TriggerRecord;
    const digests = row.digests ? (JSON.parse(row.digests) as string[]) : [];
    const local = this.delivery.claimCounts(environmentId, transactionId);
    if (row.state !== "accepted") {
      const counts = row.coordinated ? await this.store.coordinatorOf(environmentId, transactionId).counts() : local;
      const status = row.state === "cancelled" ? "already_cancelled" : "completed";
      return { status, record, cancelledMessages: 0, alreadySent: counts.sentOrSending, digests };
    }
    const now = Date.now();
    let counts = local;
    let recipients: number;
    if (row.coordinated) {
      // The coordinator refuses claims from here on and releases its own waits.
      const coordinated = await this.store.coordinatorOf(environmentId, transactionId).cancel();
      counts = coordinated;
      recipients = coordinated.recipients;
    } else {
      for (const job of this.delivery.takeWaits({ env: environmentId, tx: transactionId })) this.enqueue(transactionId, job);
      recipients = row.chunks ? (JSON.parse(row.chunks) as string[][]).reduce((n, c) => n + c.length, 0) : namedRecipients(record);
    }
    this.sql.exec(
      "UPDATE triggers SET state = 'cancelled', cancelled_at = ?, finished_at = ? WHERE env = ? AND tx = ?",
      now,
      now,
      environmentId,
      transactionId,
    );
    this.flushSoon();
    await wakeBy(this.ctx.storage, now + BACKSTOP_MS);
    const planned = recipients * (record.plannedSteps ?? 0);
    return {
      status: "cancelled",
      record,
      cancelledMessages: Math.max(0, planned - counts.settled),
      alreadySent: counts.sentOrSending,
      digests,
    };
  }

  /**
   * Erasure of one subscriber (GDPR art. 17) in this shard: their parked steps leave the waits
   * and go back on the Queue marked `erased`, so the consumer records them cancelled with reason
   * `subscriber_deleted`; a trigger that names them inline keeps only their subscriberId.
   * Answers what the caller must still reach: the environment's live coordinators and the
   * digests that collect for the subscriber.
   */
  async eraseSubscriber(environmentId: string, subscriberId: string): Promise<ShardErasure> {
    const jobs = this.delivery.takeSubscriber({ env: environmentId }, subscriberId);
    for (const job of jobs) this.enqueue(job.transactionId, { ...job, erased: true });
    this.delivery.forgetAddresses(environmentId, subscriberId);
    const coordinated = this.sql
      .exec<{ tx: string }>("SELECT tx FROM triggers WHERE state = 'accepted' AND coordinated = 1 AND env = ?", environmentId)
      .toArray()
      .map((r) => r.tx);
    // Finished triggers' digests too: a digest keeps the payloads it collected after it closes.
    const digests = new Set<string>();
    for (const row of this.sql.exec<{ digests: string }>(
      "SELECT digests FROM triggers WHERE env = ? AND digests IS NOT NULL",
      environmentId,
    )) {
      for (const name of JSON.parse(row.digests) as string[]) {
        if (digestCollectsFor(name, environmentId, subscriberId)) digests.add(name);
      }
    }
    // Finished triggers too: their records are kept for the idempotency window, not only while live.
    const naming = this.sql
      .exec<{ tx: string; record: string }>(
        "SELECT tx, record FROM triggers WHERE env = ? AND instr(record, ?) > 0",
        environmentId,
        `"subscriberId":${JSON.stringify(subscriberId)}`,
      )
      .toArray();
    for (const row of naming) {
      const record = JSON.parse(row.record) as TriggerRecord;
      const redacted = withoutProfile(record, subscriberId);
      if (redacted !== record)
        this.sql.exec("UPDATE triggers SET record = ? WHERE env = ? AND tx = ?", JSON.stringify(redacted), environmentId, row.tx);
    }
    if (jobs.length) {
      this.flushSoon();
      await wakeBy(this.ctx.storage, Date.now() + BACKSTOP_MS);
    }
    return { waitingSteps: jobs.length, coordinated, digests: [...digests] };
  }

  /**
   * The trigger's recipients parked on a delay or quiet hours (here, or in its coordinator), at
   * most `limit`, and the digests it joined, which the caller asks for their own waits. Null when
   * this shard does not hold the trigger.
   */
  async waitingSteps(environmentId: string, transactionId: string, limit: number): Promise<LedgerWaits | null> {
    const row = this.row(environmentId, transactionId);
    if (!row) return null;
    const digests = row.state === "accepted" && row.digests ? (JSON.parse(row.digests) as string[]) : [];
    const parked = row.coordinated
      ? await this.store.coordinatorOf(environmentId, transactionId).waitingSteps(limit)
      : this.delivery.waitingSteps(environmentId, transactionId, limit);
    return { ...parked, digests };
  }

  /** When each parked step of a trigger fires. */
  async waiting(environmentId: string, transactionId: string): Promise<number[]> {
    return this.delivery.waiting(environmentId, transactionId);
  }

  override async alarm(): Promise<void> {
    await this.tick(Date.now());
  }

  /** One round of the alarm's duties at `now` (tests pass a later time instead of waiting). */
  async tick(now: number): Promise<{ flushed: number; messages: number; released: number; resumed: number; purged: number }> {
    const timings = ledgerTimings(this.env);
    const resumed = await this.watchdog(now, timings.stallMs);
    const released = this.delivery.takeWaits({ dueBy: now });
    for (const job of released) this.enqueue(job.transactionId, job);
    const purged = this.purge(now, timings.retentionMs);
    let flushed: Flushed = { jobs: 0, messages: 0 };
    let failed = false;
    try {
      flushed = await this.flushOutbox();
    } catch (error) {
      failed = true;
      log({ level: "warn", event: "outbox_flush_failed", error: String(error) });
    }
    if (this.sentUpTo > 0) this.sql.exec("DELETE FROM outbox WHERE id <= ?", this.sentUpTo);
    await this.scheduleNext(now, timings, failed);
    return { flushed: flushed.jobs, messages: flushed.messages, released: released.length, resumed, purged };
  }

  /** Gathers the jobs of the next few milliseconds into one flush, without touching storage. */
  private flushSoon() {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      if (this.flushing) {
        // A flush is finishing: rows written after its last read go out right after it.
        void this.flushing.finally(() => this.flushSoon());
        return;
      }
      this.flushOutbox().catch((error) => log({ level: "warn", event: "outbox_flush_failed", error: String(error) }));
    }, ledgerTimings(this.env).flushMs);
  }

  /** One flush at a time: two running at once would send the same rows twice. */
  private flushOutbox(): Promise<Flushed> {
    this.flushing ??= this.flush().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /**
   * Sends the outbox to the Queues packed: a tick's jobs leave in as few messages as fit, not
   * one message each. A job sent twice is harmless (the consumer is idempotent).
   */
  private async flush(): Promise<Flushed> {
    const flushed: Flushed = { jobs: 0, messages: 0 };
    for (;;) {
      const rows = this.sql
        .exec<{ id: number; tx: string; job: string }>(
          "SELECT id, tx, job FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
          this.sentUpTo,
          FLUSH_BATCH,
        )
        .toArray();
      if (rows.length === 0) return flushed;
      // One queue per round, not one per job: a round's jobs then travel in one message, not two.
      const sent = await sendPacked(
        deliveryQueueFor(this.env, rows[0]!.tx),
        rows.map((r) => JSON.parse(r.job) as DeliveryJob),
      );
      this.sentUpTo = rows.at(-1)!.id;
      flushed.jobs += rows.length;
      flushed.messages += sent;
    }
  }

  /**
   * Live triggers with no sign of progress for `stallMs` (and not parked on a delay or in an
   * open digest) get their unfinished work enqueued again: the trigger job if it never fanned
   * out, else the recipients not yet through every step, each from where its run stands (after
   * a released delay, after a closed digest). Claims make a second run harmless.
   */
  private async watchdog(now: number, stallMs: number): Promise<number> {
    const stalled = this.sql
      .exec<Row & Record<string, SqlStorageValue>>(
        "SELECT * FROM triggers WHERE state = 'accepted' AND check_at <= ? ORDER BY check_at LIMIT ?",
        now,
        WATCHDOG_BATCH,
      )
      .toArray();
    let resumed = 0;
    const name = this.name;
    for (const row of stalled) {
      this.sql.exec("UPDATE triggers SET check_at = ? WHERE env = ? AND tx = ?", now + stallMs, row.env, row.tx);
      if (this.delivery.hasWaits(row.env, row.tx)) continue;
      const digests = row.digests ? (JSON.parse(row.digests) as string[]) : [];
      if (row.coordinated) {
        const state = await this.store.coordinatorOf(row.env, row.tx).poke(stallMs, digests, now);
        if (state === "completed")
          this.sql.exec("UPDATE triggers SET state = 'completed', finished_at = ? WHERE env = ? AND tx = ?", now, row.env, row.tx);
        else if (state === "resumed") resumed++;
        continue;
      }
      // Recipients in a digest: still collecting (look again once it closes), or lost on their way out of it.
      const fromDigests = row.chunks && digests.length ? await this.store.digestResumes(row.tx, digests) : null;
      if (fromDigests?.until) {
        this.hold(row, fromDigests.until, undefined);
        continue;
      }
      const jobs = row.chunks ? pendingJobs(row, JSON.parse(row.chunks) as string[][], name, this.delivery, fromDigests?.jobs) : [];
      if (!row.chunks) this.enqueue(row.tx, { ...triggerJob(row.env, row.tx), ledger: name });
      for (const job of jobs) this.enqueue(row.tx, job);
      log({ level: "warn", event: "watchdog_resumed", transactionId: row.tx, jobs: row.chunks ? jobs.length : 1 });
      resumed++;
    }
    return resumed;
  }

  private purge(now: number, retentionMs: number): number {
    const old = this.sql
      .exec<{ env: string; tx: string }>("SELECT env, tx FROM triggers WHERE finished_at <= ? LIMIT ?", now - retentionMs, PURGE_BATCH)
      .toArray();
    for (const { env, tx } of old) {
      this.sql.exec("DELETE FROM triggers WHERE env = ? AND tx = ?", env, tx);
      this.delivery.forget(env, tx);
    }
    return old.length;
  }

  private async scheduleNext(now: number, timings: LedgerTimings, flushFailed: boolean) {
    const pending = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
    const live = this.sql.exec<{ at: number | null }>("SELECT min(check_at) AS at FROM triggers WHERE state = 'accepted'").one().at;
    const finished = this.sql
      .exec<{ at: number | null }>("SELECT min(finished_at) AS at FROM triggers WHERE finished_at IS NOT NULL")
      .one().at;
    const candidates = [
      pending ? now + (flushFailed ? 1_000 : BACKSTOP_MS) : null,
      this.delivery.nextWait(),
      live,
      finished === null ? null : finished + timings.retentionMs,
    ].filter((t): t is number => t !== null);
    if (candidates.length) await this.ctx.storage.setAlarm(Math.max(now + 1, Math.min(...candidates)));
    else await this.ctx.storage.deleteAlarm();
  }
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

/** Recipients named directly in `to` (topics are counted once they are resolved). */
export const namedRecipients = (record: TriggerRecord) =>
  record.recipients.filter((r) => typeof r === "string" || (typeof r === "object" && r !== null && "subscriberId" in r)).length;
