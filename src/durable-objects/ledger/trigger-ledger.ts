import { DurableObject } from "cloudflare:workers";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import type { Bindings } from "../../env";
import { MicroBatcher } from "../../lib/micro-batch";
import { TriggerStore } from "../client/trigger-store";
import { ledgerTimings } from "../settings";
import { type AcceptAnswer, acceptCalls, cancel } from "./accept-cancel";
import type { DeliveryOp, DeliveryOpResult, TriggerSignal } from "./claims";
import { DELIVERY_SCHEMA, DeliveryState, upgradeDeliverySchema } from "./delivery-state";
import { eraseSubscriber } from "./erasure";
import type {
  AcceptEntry,
  AcceptOutcome,
  CancelOutcome,
  FanOut,
  FanOutResult,
  LedgerRuns,
  LedgerWaits,
  RunPage,
  ShardErasure,
  SignalAnswer,
} from "./outcomes";
import { type Flushed, OUTBOX_SCHEMA, Outbox } from "./outbox";
import type { LedgerParts } from "./parts";
import { fanOut, finish, run, runs, snapshots, waits } from "./progress";
import { TRIGGERS_SCHEMA, TriggersTable } from "./triggers-table";
import type { MessageReached } from "./signals";
import { purge, scheduleNext, watchdog } from "./watchdog";
import { messagesReached, signal } from "./wake";

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
 *
 * This class is the RPC surface; each concern lives in its own module: accept-cancel.ts,
 * progress.ts (fan-out and the consumer's bookkeeping), outbox.ts, watchdog.ts (watchdog and
 * janitor) and erasure.ts.
 */
export class TriggerLedger extends DurableObject<Bindings> {
  private readonly parts: LedgerParts;
  /** This instance has stored its name (the first accept does). */
  private named = false;
  /**
   * Accepts that arrive together are written together: one storage transaction, so one commit,
   * for every accept call that came in while the previous group was being written (group
   * commit). A commit is most of what an accept costs the object; each call still gets its own
   * answers, and none before its triggers are durable (the output gate holds it until then).
   */
  private readonly accepts = new MicroBatcher<AcceptEntry[], AcceptAnswer>(
    (name, calls) => acceptCalls(this.parts, name, calls, Date.now()),
    true,
  );

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    const timings = ledgerTimings(env);
    ctx.storage.sql.exec(TRIGGERS_SCHEMA + OUTBOX_SCHEMA + DELIVERY_SCHEMA);
    upgradeDeliverySchema(ctx.storage.sql);
    this.parts = {
      triggers: new TriggersTable(ctx.storage.sql),
      delivery: new DeliveryState(ctx.storage.sql),
      outbox: new Outbox(ctx.storage, env, timings.flushMs),
      storage: ctx.storage,
      store: new TriggerStore(env),
      timings,
    };
  }

  async accept(name: string, items: AcceptEntry[]): Promise<AcceptOutcome[]> {
    // Once per instance, not per accept: a replay then writes nothing, and an accept one statement less.
    if (!this.named) {
      this.parts.triggers.nameOnce(name);
      this.named = true;
    }
    const answer = await this.accepts.call(name, items);
    if ("error" in answer) throw answer.error;
    return answer.outcomes;
  }

  async snapshots(keys: { environmentId: string; transactionId: string }[]): Promise<(TriggerSnapshot | null)[]> {
    return snapshots(this.parts, keys);
  }

  /**
   * When the oldest trigger still waiting for the delivery consumer became due (accepted, or
   * released from its hold), or null: a live trigger not yet fanned out has no `enqueued_at`.
   * Only live triggers are read (the `triggers_live` index).
   */
  async oldestUnstarted(now: number): Promise<number | null> {
    const row = this.ctx.storage.sql
      .exec<{ due: number | null }>(
        "SELECT min(max(accepted_at, coalesce(hold_until, 0))) AS due FROM triggers WHERE state = 'accepted' AND enqueued_at IS NULL AND coalesce(hold_until, 0) <= ?",
        now,
      )
      .one();
    return row.due;
  }

  async fanOut(items: FanOut[]): Promise<FanOutResult[]> {
    return fanOut(this.parts, items, Date.now());
  }

  async run(ops: DeliveryOp[]): Promise<DeliveryOpResult[]> {
    return run(this.parts, ops, Date.now());
  }

  async finish(items: { environmentId: string; transactionId: string; state: "completed" | "failed" }[]): Promise<void> {
    return finish(this.parts, items, Date.now());
  }

  async cancel(environmentId: string, transactionId: string): Promise<CancelOutcome> {
    return cancel(this.parts, environmentId, transactionId);
  }

  /** A signal to one trigger's waits (wake.ts). */
  async signal(environmentId: string, transactionId: string, s: TriggerSignal): Promise<SignalAnswer> {
    return signal(this.parts, environmentId, transactionId, s);
  }

  /** Messages of one trigger that reached a status its waits may watch; false when the trigger is not here. */
  async messagesReached(environmentId: string, transactionId: string, reached: MessageReached[]): Promise<boolean> {
    return messagesReached(this.parts, environmentId, transactionId, reached);
  }

  async eraseSubscriber(environmentId: string, subscriberId: string): Promise<ShardErasure> {
    return eraseSubscriber(this.parts, environmentId, subscriberId);
  }

  async waitingSteps(environmentId: string, transactionId: string, limit: number): Promise<LedgerWaits | null> {
    return waits(this.parts, environmentId, transactionId, limit);
  }

  /** Read-only: a page of the trigger's recipients with their recorded runs; null when this shard does not hold it. */
  async recordedRuns(environmentId: string, transactionId: string, page: RunPage): Promise<LedgerRuns | null> {
    return runs(this.parts, environmentId, transactionId, page);
  }

  /** When each parked step of a trigger fires. */
  async waiting(environmentId: string, transactionId: string): Promise<number[]> {
    return this.parts.delivery.waiting(environmentId, transactionId);
  }

  override async alarm(): Promise<void> {
    await this.tick(Date.now());
  }

  /** One round of the alarm's duties at `now` (tests pass a later time instead of waiting). */
  async tick(now: number): Promise<{ flushed: number; messages: number; released: number; resumed: number; purged: number }> {
    const { delivery, outbox } = this.parts;
    const resumed = await watchdog(this.parts, now);
    const released = delivery.takeWaits({ dueBy: now });
    outbox.addAll(released.map((job) => ({ tx: job.transactionId, job })));
    const purged = purge(this.parts, now);
    let flushed: Flushed = { jobs: 0, messages: 0 };
    let failed = false;
    try {
      flushed = await outbox.flush();
    } catch (error) {
      failed = true;
      log({ level: "warn", event: "outbox_flush_failed", error: String(error) });
    }
    outbox.forgetSent();
    await scheduleNext(this.parts, now, failed);
    return { flushed: flushed.jobs, messages: flushed.messages, released: released.length, resumed, purged };
  }
}
