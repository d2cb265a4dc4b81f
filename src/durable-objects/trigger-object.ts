import { DurableObject } from "cloudflare:workers";
import { triggerJob, type RecipientsJob } from "../delivery/job";
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
  /** Channel steps of the workflow when accepted: messages planned per recipient. */
  plannedSteps?: number;
}

export type TriggerState = "active" | "cancelled" | "completed";

interface Stored extends TriggerRecord {
  fingerprint: string;
  state: TriggerState;
  enqueued: boolean;
  cancelledAt: number | null;
  /** Set once recipients are resolved: the size of each recipient chunk. */
  chunkSizes?: number[];
  /** Digest objects this trigger's events wait in, so a cancellation can take them out. */
  digests?: string[];
}

export type AcceptOutcome = { outcome: "accepted" | "replayed"; enqueue: boolean } | { outcome: "conflict" };
export type CancelOutcome =
  | { status: "not_found" }
  | {
      status: "cancelled" | "already_cancelled" | "completed";
      record: TriggerRecord;
      /** Messages that will now never be sent. */
      cancelledMessages: number;
      /** Messages already handed to a provider (or being handed right now): not cancelled. */
      alreadySent: number;
      digests: string[];
    };

/** What a consumer may do with each send identity (`subscriberId` + step) it asked for. */
export interface ClaimResult {
  granted: string[];
  /** The trigger was cancelled: record these as cancelled, send nothing. */
  cancelled: string[];
  /** Claimed by another consumer that has not reported yet: try again later. */
  busy: string[];
  /**
   * Already sent: never sent again. The report is given back so a consumer whose D1 write was
   * lost after the send can still record the message as sent.
   */
  sent: { key: string; report: SentReport }[];
}

/** What the object keeps of a send, to repair the message's D1 record if that write was lost. */
export interface SentReport {
  providerMessageId: string;
  provider: string;
  integrationId: string;
  to: string;
  attempts: number;
}

export type ClaimReport = { key: string; outcome: "final" | "retry" } | { key: string; outcome: "sent"; report: SentReport };

/**
 * If the accepting Worker dies between making a trigger durable and enqueuing it, the alarm
 * enqueues it. The consumer marks the trigger enqueued when it fans it out, so the accept path
 * needs no second call; a job still queued after this long is simply enqueued again (the
 * consumer is idempotent).
 */
const ENQUEUE_GRACE_MS = 120_000;
/** A claim without a report for this long is presumed lost with its consumer and may be granted again. */
export const CLAIM_DEADLINE_MS = 60_000;
const KEY = "trigger";

/**
 * One object per (environment, transactionId). It makes the trigger durable and decides
 * idempotency atomically (the input gate serialises calls); afterwards it is the trigger's
 * coordinator: cancellation, exactly-once claims per message, delayed steps waiting on its
 * alarm, and completion. Triggers never share an object, so neither accepts nor sends of
 * different triggers contend; a large fan-out talks to it once per chunk and step.
 */
export class TriggerObject extends DurableObject<Bindings> {
  static nameFor(environmentId: string, transactionId: string) {
    return `${environmentId}:${transactionId}`;
  }

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec(`
        CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, state TEXT NOT NULL, at INTEGER NOT NULL, report TEXT);
        CREATE TABLE IF NOT EXISTS done (chunk INTEGER NOT NULL, subscriber_id TEXT NOT NULL, PRIMARY KEY (chunk, subscriber_id));
        CREATE TABLE IF NOT EXISTS waits (id INTEGER PRIMARY KEY AUTOINCREMENT, fire_at INTEGER NOT NULL, job TEXT NOT NULL);
      `);
    });
  }

  private load() {
    return this.ctx.storage.get<Stored>(KEY);
  }

  private save(stored: Stored) {
    return this.ctx.storage.put<Stored>(KEY, stored);
  }

  /** Stores the trigger unless its transactionId was seen: the same body replays, another conflicts. */
  async accept(record: TriggerRecord, fingerprint: string): Promise<AcceptOutcome> {
    const existing = await this.load();
    if (existing) {
      if (existing.fingerprint !== fingerprint) return { outcome: "conflict" };
      return { outcome: "replayed", enqueue: !existing.enqueued && existing.state === "active" };
    }
    await this.save({ ...record, fingerprint, state: "active", enqueued: false, cancelledAt: null });
    await this.ctx.storage.setAlarm(Date.now() + ENQUEUE_GRACE_MS);
    return { outcome: "accepted", enqueue: true };
  }

  async read(): Promise<(TriggerRecord & { state: TriggerState }) | null> {
    const stored = await this.load();
    return stored ? { ...recordOf(stored), state: stored.state } : null;
  }

  /**
   * Stops the trigger: no claim is granted from now on, waiting steps are released at once so
   * their consumers record them cancelled, and pending digest entries are named for removal.
   */
  async cancel(): Promise<CancelOutcome> {
    const stored = await this.load();
    if (!stored) return { status: "not_found" };
    const alreadySent = this.countClaims("state IN ('claimed', 'sent')");
    const base = { record: recordOf(stored), alreadySent, digests: stored.digests ?? [] };
    if (stored.state === "cancelled") return { status: "already_cancelled", cancelledMessages: 0, ...base };
    if (stored.state === "completed") return { status: "completed", cancelledMessages: 0, ...base };
    await this.save({ ...stored, state: "cancelled", cancelledAt: Date.now() });
    const planned = plannedMessages(stored);
    const settled = this.countClaims("1 = 1");
    const waiting = this.ctx.storage.sql.exec<{ job: string }>("SELECT job FROM waits").toArray();
    this.ctx.storage.sql.exec("DELETE FROM waits");
    if (waiting.length) {
      await deliveryQueueFor(this.env, stored.transactionId).sendBatch(waiting.map((w) => ({ body: JSON.parse(w.job) as RecipientsJob })));
    }
    return { status: "cancelled", cancelledMessages: Math.max(0, planned - settled), ...base };
  }

  /**
   * Records the recipient chunks the trigger fans out to (idempotent for redelivered trigger
   * jobs); its job has evidently reached the consumer, so the enqueue safety net stands down.
   */
  async expectChunks(chunkSizes: number[]): Promise<boolean> {
    const stored = await this.load();
    if (!stored) return false;
    if (stored.chunkSizes === undefined || !stored.enqueued) {
      await this.save({ ...stored, chunkSizes: stored.chunkSizes ?? chunkSizes, enqueued: true });
      await this.scheduleAlarm(true);
    }
    return this.finishIfDone();
  }

  /** Marks recipients of a chunk as through every step; answers whether the trigger just completed (once). */
  async recipientsDone(chunk: number, subscriberIds: string[]): Promise<boolean> {
    for (const id of subscriberIds) {
      this.ctx.storage.sql.exec("INSERT OR IGNORE INTO done (chunk, subscriber_id) VALUES (?, ?)", chunk, id);
    }
    return this.finishIfDone();
  }

  private async finishIfDone(): Promise<boolean> {
    const stored = await this.load();
    if (!stored || stored.state !== "active" || stored.chunkSizes === undefined) return false;
    const done = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM done").one().n;
    if (done < stored.chunkSizes.reduce((a, b) => a + b, 0)) return false;
    await this.save({ ...stored, state: "completed" });
    return true;
  }

  /**
   * Grants each send identity to at most one consumer at a time, and never twice once sent:
   * the consumer claims before calling the provider and reports after. `final` asks to record
   * an identity that needs no send (skipped, failed before sending).
   */
  async claim(send: string[], final: string[] = []): Promise<ClaimResult> {
    const stored = await this.load();
    const now = Date.now();
    const result: ClaimResult = { granted: [], cancelled: [], busy: [], sent: [] };
    if (!stored || stored.state === "cancelled") {
      result.cancelled = [...send, ...final];
      return result;
    }
    for (const key of final) {
      this.ctx.storage.sql.exec("INSERT OR IGNORE INTO claims (key, state, at) VALUES (?, 'final', ?)", key, now);
    }
    for (const key of send) {
      const row = this.ctx.storage.sql
        .exec<{ state: string; at: number; report: string | null }>("SELECT state, at, report FROM claims WHERE key = ?", key)
        .toArray()[0];
      if (row?.state === "sent" && row.report) {
        result.sent.push({ key, report: JSON.parse(row.report) as SentReport });
        continue;
      }
      if (row && (row.state !== "claimed" || row.at > now - CLAIM_DEADLINE_MS)) {
        result.busy.push(key);
        continue;
      }
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO claims (key, state, at) VALUES (?, 'claimed', ?)", key, now);
      result.granted.push(key);
    }
    return result;
  }

  /** Results of granted claims: `retry` frees the identity for a later attempt. */
  async report(reports: ClaimReport[]): Promise<void> {
    const now = Date.now();
    for (const r of reports) {
      if (r.outcome === "retry") this.ctx.storage.sql.exec("DELETE FROM claims WHERE key = ? AND state = 'claimed'", r.key);
      else {
        const report = r.outcome === "sent" ? JSON.stringify(r.report) : null;
        this.ctx.storage.sql.exec("UPDATE claims SET state = ?, at = ?, report = ? WHERE key = ?", r.outcome, now, report, r.key);
      }
    }
  }

  /** Holds jobs until their time (delays, quiet hours): the alarm puts them on the Queue. */
  async wait(entries: { fireAt: number; job: RecipientsJob }[]): Promise<"waiting" | "cancelled"> {
    const stored = await this.load();
    if (!stored || stored.state === "cancelled") return "cancelled";
    for (const e of entries) this.ctx.storage.sql.exec("INSERT INTO waits (fire_at, job) VALUES (?, ?)", e.fireAt, JSON.stringify(e.job));
    await this.scheduleAlarm(stored.enqueued);
    return "waiting";
  }

  /** Remembers a digest this trigger waits in, for cancellation. */
  async joinedDigest(name: string): Promise<void> {
    const stored = await this.load();
    if (!stored || stored.digests?.includes(name)) return;
    await this.save({ ...stored, digests: [...(stored.digests ?? []), name] });
  }

  private countClaims(where: string): number {
    return this.ctx.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM claims WHERE ${where}`).one().n;
  }

  private async scheduleAlarm(enqueued: boolean) {
    const next = this.ctx.storage.sql.exec<{ at: number | null }>("SELECT min(fire_at) AS at FROM waits").one().at;
    const candidates = [next, enqueued ? null : Date.now() + ENQUEUE_GRACE_MS].filter((t): t is number => t !== null);
    if (candidates.length) await this.ctx.storage.setAlarm(Math.min(...candidates));
    else await this.ctx.storage.deleteAlarm();
  }

  override async alarm(): Promise<void> {
    const stored = await this.load();
    if (!stored) return;
    const queue = deliveryQueueFor(this.env, stored.transactionId);
    if (!stored.enqueued && stored.state !== "completed") {
      await queue.send(triggerJob(stored.environmentId, stored.transactionId));
      await this.save({ ...stored, enqueued: true });
    }
    const due = this.ctx.storage.sql
      .exec<{ id: number; job: string }>("SELECT id, job FROM waits WHERE fire_at <= ? ORDER BY fire_at LIMIT 100", Date.now())
      .toArray();
    if (due.length) {
      await queue.sendBatch(due.map((w) => ({ body: JSON.parse(w.job) as RecipientsJob })));
      for (const w of due) this.ctx.storage.sql.exec("DELETE FROM waits WHERE id = ?", w.id);
    }
    await this.scheduleAlarm(true);
  }
}

function recordOf(stored: Stored): TriggerRecord {
  const { fingerprint: _f, enqueued: _e, cancelledAt: _c, chunkSizes: _s, digests: _d, state: _st, ...record } = stored;
  return record;
}

/** Messages the trigger plans: recipients (once resolved, else those named directly) times channel steps. */
function plannedMessages(stored: Stored): number {
  const recipients =
    stored.chunkSizes?.reduce((a, b) => a + b, 0) ??
    stored.recipients.filter((r) => typeof r === "string" || (typeof r === "object" && r !== null && "subscriberId" in r)).length;
  return recipients * (stored.plannedSteps ?? 0);
}
