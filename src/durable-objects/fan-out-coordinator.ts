import { DurableObject } from "cloudflare:workers";
import type { RecipientsJob } from "../jobs/job";
import { deliveryQueueFor } from "../jobs/queues";
import type { Bindings } from "../env";
import { TriggerStore } from "./client/trigger-store";
import type { DeliveryOp, DeliveryOpResult, TriggerSignal } from "./ledger/claims";
import type { MessageReached, SignalOutcome } from "./ledger/signals";
import { DELIVERY_SCHEMA, DeliveryState, pendingJobs, upgradeDeliverySchema, wakeBy } from "./ledger/delivery-state";
import type { ClaimCounts, ParkedSteps, PokeOutcome, RecordedRuns, RunPage } from "./ledger/outcomes";
import { recordedRuns } from "./ledger/recorded-runs";
import { ledgerTimings } from "./settings";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS chunks (chunk INTEGER PRIMARY KEY, ids TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS trigger (id INTEGER PRIMARY KEY CHECK (id = 1), env TEXT NOT NULL, tx TEXT NOT NULL, ledger TEXT NOT NULL,
    state TEXT NOT NULL, total INTEGER NOT NULL, progress_at INTEGER NOT NULL, finished_at INTEGER);
`;

interface TriggerRow {
  env: string;
  tx: string;
  ledger: string;
  state: "accepted" | "cancelled" | "completed";
  total: number;
  progress_at: number;
}

/**
 * The exactly-once claims, completion count and parked steps of ONE large fan-out (more than
 * one recipient chunk), so that thousands of chunk calls never make a ledger shard hot. The
 * consumer creates it when it fans such a trigger out; the ledger knows it exists, forwards a
 * cancellation to it and asks it to resume work that stalled. It forgets itself once the
 * trigger has been finished for the idempotency window.
 */
export class FanOutCoordinator extends DurableObject<Bindings> {
  private readonly sql: SqlStorage;
  private readonly delivery: DeliveryState;
  /**
   * The chunks as stored, once read: they never change after `init`, and the trigger page reads
   * them at every view (parsing a 100,000-member fan-out's each time was 2 % of its CPU while a page watched).
   */
  private chunks: string[][] | undefined;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.delivery = new DeliveryState(this.sql);
    this.sql.exec(SCHEMA + DELIVERY_SCHEMA);
    upgradeDeliverySchema(this.sql);
  }

  private trigger(): TriggerRow | undefined {
    return this.sql.exec<TriggerRow & Record<string, SqlStorageValue>>("SELECT * FROM trigger WHERE id = 1").toArray()[0];
  }

  /**
   * Takes the trigger's chunks. Idempotent: a redelivered fan-out keeps the first ones, and
   * gets them back to run (null when this call stored the ones it gave).
   */
  async init(environmentId: string, transactionId: string, ledger: string, chunks: string[][]): Promise<string[][] | null> {
    if (this.trigger()) return this.storedChunks();
    const now = Date.now();
    const total = chunks.reduce((n, c) => n + c.length, 0);
    this.sql.exec(
      "INSERT INTO trigger (id, env, tx, ledger, state, total, progress_at) VALUES (1, ?, ?, ?, 'accepted', ?, ?)",
      environmentId,
      transactionId,
      ledger,
      total,
      now,
    );
    chunks.forEach((ids, chunk) => {
      this.sql.exec("INSERT INTO chunks (chunk, ids) VALUES (?, ?)", chunk, JSON.stringify(ids));
    });
    return null;
  }

  private storedChunks(): string[][] {
    if (this.chunks) return this.chunks;
    const all: string[][] = [];
    for (const c of this.sql.exec<{ chunk: number; ids: string }>("SELECT chunk, ids FROM chunks ORDER BY chunk")) {
      all[c.chunk] = JSON.parse(c.ids) as string[];
    }
    // Kept once the trigger is stored: its chunks are then final (a redelivered `init` answers them).
    if (this.trigger()) this.chunks = all;
    return all;
  }

  async run(ops: DeliveryOp[]): Promise<DeliveryOpResult[]> {
    const now = Date.now();
    const t = this.trigger();
    if (t) this.sql.exec("UPDATE trigger SET progress_at = ? WHERE id = 1", now);
    const trigger = { cancelled: !t || t.state === "cancelled", complete: () => this.completeIfDone(now) };
    let wakeAt = Number.POSITIVE_INFINITY;
    const results = ops.map((op): DeliveryOpResult => {
      // Digest holds are the ledger's to keep: it is what the watchdog and a cancellation read.
      if (op.kind === "hold") return { kind: "hold" };
      const applied = this.delivery.apply(op, trigger, now);
      wakeAt = Math.min(wakeAt, applied.wakeAt ?? wakeAt);
      return applied.result;
    });
    // Once finished, the alarm forgets the coordinator after the idempotency window.
    if (results.some((r) => r.kind === "done" && r.completed)) wakeAt = Math.min(wakeAt, now + ledgerTimings(this.env).retentionMs);
    if (wakeAt !== Number.POSITIVE_INFINITY) await wakeBy(this.ctx.storage, wakeAt);
    return results;
  }

  /** Marks the trigger completed once every recipient is through; answers whether it just did. */
  private completeIfDone(now: number): boolean {
    const t = this.trigger();
    if (t?.state !== "accepted" || this.delivery.doneCount(t.env, t.tx) < t.total) return false;
    this.sql.exec("UPDATE trigger SET state = 'completed', finished_at = ? WHERE id = 1", now);
    return true;
  }

  async counts(): Promise<ClaimCounts> {
    const t = this.trigger();
    return t ? this.delivery.claimCounts(t.env, t.tx) : { sentOrSending: 0, settled: 0 };
  }

  /** Refuses every later claim and puts parked steps back on the Queue so they are recorded cancelled. */
  async cancel(): Promise<ClaimCounts & { recipients: number }> {
    const t = this.trigger();
    if (!t) return { sentOrSending: 0, settled: 0, recipients: 0 };
    const counts = this.delivery.claimCounts(t.env, t.tx);
    if (t.state !== "accepted") return { ...counts, recipients: t.total };
    this.sql.exec("UPDATE trigger SET state = 'cancelled', finished_at = ? WHERE id = 1", Date.now());
    await this.send(this.delivery.takeWaits({ env: t.env, tx: t.tx }));
    await this.ctx.storage.setAlarm(Date.now() + ledgerTimings(this.env).retentionMs);
    return { ...counts, recipients: t.total };
  }

  /** A signal to the trigger's waits: those it ends, or whose `if` it is read against, run now (signals.ts). */
  async signal(s: TriggerSignal): Promise<SignalOutcome> {
    const t = this.trigger();
    if (t?.state !== "accepted") return { matched: 0, evaluating: 0 };
    const { jobs, ...woken } = this.delivery.wakes.signal(t.env, t.tx, s, Date.now());
    await this.send(jobs);
    return woken;
  }

  /** Messages that reached a status the trigger's waits may watch: the waits they end run on now. */
  async messagesReached(reached: MessageReached[]): Promise<void> {
    const t = this.trigger();
    if (t?.state !== "accepted") return;
    await this.send(this.delivery.wakes.messages(t.env, t.tx, reached, Date.now()));
  }

  /** Erasure of one subscriber: their parked steps leave the waits and run now marked `erased` (recorded cancelled). */
  async eraseSubscriber(subscriberId: string): Promise<number> {
    const t = this.trigger();
    if (t?.state !== "accepted") return 0;
    const jobs = this.delivery.eraseSubscriber({ env: t.env, tx: t.tx }, subscriberId);
    await this.send(jobs);
    return jobs.length;
  }

  /**
   * The ledger's watchdog asks: a trigger finished here says so; one that has made no progress
   * for `stallMs` and waits on nothing (no parked step, no open window among the `digests` it
   * joined) has its unfinished recipients enqueued again, each from where its run stands.
   */
  async poke(stallMs: number, digests: string[] = [], now = Date.now()): Promise<PokeOutcome> {
    const t = this.trigger();
    if (!t) return "running";
    if (t.state !== "accepted") return t.state;
    if (t.progress_at > now - stallMs || this.delivery.hasWaits(t.env, t.tx)) return "running";
    const fromDigests = await new TriggerStore(this.env).digestResumes(t.tx, digests);
    if (fromDigests.until) return "running";
    const jobs = pendingJobs(t, this.storedChunks(), t.ledger, this.delivery, fromDigests.jobs);
    await this.send(jobs);
    this.sql.exec("UPDATE trigger SET progress_at = ? WHERE id = 1", now);
    console.log(JSON.stringify({ level: "warn", event: "watchdog_resumed", transactionId: t.tx, jobs: jobs.length }));
    return "resumed";
  }

  private async send(jobs: RecipientsJob[]) {
    const t = this.trigger();
    if (!t || jobs.length === 0) return;
    const queue = deliveryQueueFor(this.env, t.tx);
    for (let i = 0; i < jobs.length; i += 100) await queue.sendBatch(jobs.slice(i, i + 100).map((body) => ({ body })));
  }

  async waitingSteps(limit: number): Promise<ParkedSteps> {
    const t = this.trigger();
    return t ? this.delivery.waitingSteps(t.env, t.tx, limit) : { steps: [], total: 0 };
  }

  /** Read-only: a page of the trigger's recipients with their recorded runs. */
  async recordedRuns(page: RunPage): Promise<RecordedRuns> {
    const t = this.trigger();
    if (!t) return { recipients: [], next: null, steps: [], waits: [] };
    return recordedRuns(this.delivery, t.env, t.tx, this.storedChunks(), page);
  }

  async waiting(): Promise<number[]> {
    const t = this.trigger();
    return t ? this.delivery.waiting(t.env, t.tx) : [];
  }

  override async alarm(): Promise<void> {
    await this.tick(Date.now());
  }

  async tick(now: number): Promise<void> {
    const t = this.trigger();
    if (!t) return;
    const finishedAt = this.sql.exec<{ at: number | null }>("SELECT finished_at AS at FROM trigger WHERE id = 1").one().at;
    const retentionMs = ledgerTimings(this.env).retentionMs;
    if (finishedAt !== null && finishedAt + retentionMs <= now) {
      await this.ctx.storage.deleteAll();
      this.delivery.forgetAll();
      this.chunks = undefined;
      this.sql.exec(SCHEMA + DELIVERY_SCHEMA);
      return;
    }
    await this.send(this.delivery.takeWaits({ dueBy: now }));
    const next = [this.delivery.nextWait(), finishedAt === null ? null : finishedAt + retentionMs].filter((x): x is number => x !== null);
    if (next.length) await this.ctx.storage.setAlarm(Math.max(now + 1, Math.min(...next)));
  }
}
