import type { DeliveryJob } from "../../delivery/job";
import { sendPacked } from "../../delivery/pack";
import { deliveryQueueFor } from "../../delivery/queues";
import type { Bindings } from "../../env";
import { wakeBy } from "./delivery-state";

export const OUTBOX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, tx TEXT NOT NULL, job TEXT NOT NULL);
`;

/** What a flush sent: outbox jobs, and the Queue messages that carried them. */
export interface Flushed {
  jobs: number;
  messages: number;
}

/** Outbox rows read per round of a flush; they leave packed, so a round costs a few Queue messages. */
const FLUSH_BATCH = 1_000;
/**
 * The outbox is flushed from memory moments after an accept; the alarm is only the backstop
 * that flushes whatever a crash left, so it is armed this far out and rarely moved.
 */
export const BACKSTOP_MS = 5_000;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

/**
 * Jobs written in the same transaction as the state that makes them due, sent to the Queues
 * moments later: the request that wrote them never waits for a Queue.
 */
export class Outbox {
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<Flushed> | null = null;
  /**
   * The last outbox id sent since this instance started. Sent rows are deleted by the next
   * alarm, not at once, so a flush costs no write; an instance that dies before deleting them
   * sends them again (harmless: the consumer is idempotent).
   */
  private sentUpTo = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly queues: Pick<Bindings, "DELIVERY_QUEUE_0" | "DELIVERY_QUEUE_1">,
    private readonly flushMs: number,
  ) {}

  add(tx: string, job: DeliveryJob) {
    this.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", tx, JSON.stringify(job));
  }

  /** Sends what was just added within `flushMs`, and arms the alarm as the backstop should this instance die first. */
  async sendSoon(now: number): Promise<void> {
    this.flushSoon();
    await wakeBy(this.storage, now + BACKSTOP_MS);
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
      this.flush().catch((error) => log({ level: "warn", event: "outbox_flush_failed", error: String(error) }));
    }, this.flushMs);
  }

  /** One flush at a time: two running at once would send the same rows twice. */
  flush(): Promise<Flushed> {
    this.flushing ??= this.send().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /**
   * Sends the outbox to the Queues packed: a tick's jobs leave in as few messages as fit, not
   * one message each. A job sent twice is harmless (the consumer is idempotent).
   */
  private async send(): Promise<Flushed> {
    const flushed: Flushed = { jobs: 0, messages: 0 };
    for (;;) {
      const rows = this.storage.sql
        .exec<{ id: number; tx: string; job: string }>(
          "SELECT id, tx, job FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
          this.sentUpTo,
          FLUSH_BATCH,
        )
        .toArray();
      if (rows.length === 0) return flushed;
      // One queue per round, not one per job: a round's jobs then travel in one message, not two.
      const sent = await sendPacked(
        deliveryQueueFor(this.queues, rows[0]!.tx),
        rows.map((r) => JSON.parse(r.job) as DeliveryJob),
      );
      this.sentUpTo = rows.at(-1)!.id;
      flushed.jobs += rows.length;
      flushed.messages += sent;
    }
  }

  /** Deletes the rows this instance has sent (the alarm does, so a flush itself writes nothing). */
  forgetSent() {
    if (this.sentUpTo > 0) this.storage.sql.exec("DELETE FROM outbox WHERE id <= ?", this.sentUpTo);
  }

  pending(): number {
    return this.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
  }
}
