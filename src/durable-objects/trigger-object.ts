import { DurableObject } from "cloudflare:workers";
import { triggerJob } from "../delivery/job";
import { deliveryQueueFor, type Bindings } from "../env";

/** Everything a trigger needs to run, as accepted; kept here because a Queue message cannot hold it. */
export interface TriggerRecord {
  environmentId: string;
  transactionId: string;
  workflowKey: string;
  recipients: unknown[];
  payload: Record<string, unknown>;
  overrides: Record<string, unknown> | null;
  actor: unknown;
  acceptedAt: number;
}

export type TriggerState = "active" | "cancelled" | "completed";

interface Stored extends TriggerRecord {
  fingerprint: string;
  state: TriggerState;
  enqueued: boolean;
  cancelledAt: number | null;
  /** Set once recipients are resolved: how many recipient chunks must finish. */
  chunks?: number;
  doneChunks?: number[];
}

export type AcceptOutcome = { outcome: "accepted" | "replayed"; enqueue: boolean } | { outcome: "conflict" };
export type CancelOutcome =
  | { status: "not_found" }
  | { status: "cancelled" | "already_cancelled" | "completed"; record: TriggerRecord; cancelledMessages: number };

/** If the accepting Worker dies between making a trigger durable and enqueuing it, the alarm enqueues it. */
const ENQUEUE_GRACE_MS = 30_000;
const KEY = "trigger";

/**
 * One object per (environment, transactionId): it makes the trigger durable, decides
 * idempotency atomically (the input gate serialises calls), and is the trigger's source of
 * truth for cancellation. Triggers never share an object, so accepts scale with the number
 * of triggers rather than with one writer.
 */
export class TriggerObject extends DurableObject<Bindings> {
  static nameFor(environmentId: string, transactionId: string) {
    return `${environmentId}:${transactionId}`;
  }

  private load() {
    return this.ctx.storage.get<Stored>(KEY);
  }

  /** Stores the trigger unless its transactionId was seen: the same body replays, another conflicts. */
  async accept(record: TriggerRecord, fingerprint: string): Promise<AcceptOutcome> {
    const existing = await this.load();
    if (existing) {
      if (existing.fingerprint !== fingerprint) return { outcome: "conflict" };
      return { outcome: "replayed", enqueue: !existing.enqueued && existing.state === "active" };
    }
    await this.ctx.storage.put<Stored>(KEY, { ...record, fingerprint, state: "active", enqueued: false, cancelledAt: null });
    await this.ctx.storage.setAlarm(Date.now() + ENQUEUE_GRACE_MS);
    return { outcome: "accepted", enqueue: true };
  }

  /** Called by the accepting Worker once the job is on the Queue. */
  async markEnqueued(): Promise<void> {
    const stored = await this.load();
    if (!stored || stored.enqueued) return;
    await this.ctx.storage.put<Stored>(KEY, { ...stored, enqueued: true });
    await this.ctx.storage.deleteAlarm();
  }

  async read(): Promise<(TriggerRecord & { state: TriggerState }) | null> {
    const stored = await this.load();
    if (!stored) return null;
    const { fingerprint: _f, enqueued: _e, cancelledAt: _c, chunks: _n, doneChunks: _d, ...rest } = stored;
    return rest;
  }

  async cancel(): Promise<CancelOutcome> {
    const stored = await this.load();
    if (!stored) return { status: "not_found" };
    const { fingerprint: _f, enqueued: _e, cancelledAt: _c, chunks: _n, doneChunks: _d, state, ...record } = stored;
    if (state === "cancelled") return { status: "already_cancelled", record, cancelledMessages: 0 };
    if (state === "completed") return { status: "completed", record, cancelledMessages: 0 };
    await this.ctx.storage.put<Stored>(KEY, { ...stored, state: "cancelled", cancelledAt: Date.now() });
    return { status: "cancelled", record, cancelledMessages: 0 };
  }

  /** Records how many recipient chunks the trigger fans out to (idempotent for redelivered trigger jobs). */
  async expectChunks(chunks: number): Promise<void> {
    const stored = await this.load();
    if (!stored || stored.chunks !== undefined) return;
    await this.ctx.storage.put<Stored>(KEY, { ...stored, chunks, doneChunks: [] });
    if (chunks === 0) await this.finishIfDone();
  }

  /** Marks one chunk finished; answers whether the whole trigger just completed (true only once). */
  async chunkDone(chunk: number): Promise<boolean> {
    const stored = await this.load();
    if (!stored) return false;
    const done = new Set(stored.doneChunks ?? []);
    if (done.has(chunk)) return false;
    done.add(chunk);
    await this.ctx.storage.put<Stored>(KEY, { ...stored, doneChunks: [...done] });
    return this.finishIfDone();
  }

  private async finishIfDone(): Promise<boolean> {
    const stored = await this.load();
    if (!stored || stored.state !== "active" || stored.chunks === undefined) return false;
    if ((stored.doneChunks ?? []).length < stored.chunks) return false;
    await this.ctx.storage.put<Stored>(KEY, { ...stored, state: "completed" });
    return true;
  }

  override async alarm(): Promise<void> {
    const stored = await this.load();
    if (!stored || stored.enqueued || stored.state !== "active") return;
    await deliveryQueueFor(this.env, stored.transactionId).send(triggerJob(stored.environmentId, stored.transactionId));
    await this.ctx.storage.put<Stored>(KEY, { ...stored, enqueued: true });
  }
}
