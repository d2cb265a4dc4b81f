import type { DeliveryJob } from "../../jobs/job";
import { jobBytes, sendPacked } from "../../jobs/pack";
import { deliveryQueueFor } from "../../jobs/queues";
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
  /**
   * The jobs this instance wrote and has not sent yet, by row id, as written: a flush reads only
   * the ids of the table (still the truth of what is due) and takes these jobs instead of reading
   * and parsing each row back. A row left by an instance that died is read from storage.
   */
  private readonly written = new Map<number, { tx: string; job: DeliveryJob; bytes: number }>();
  /** Jobs added since this instance started: a flush reads again if any came while it sent. */
  private added = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly queues: Pick<Bindings, "DELIVERY_QUEUE_0">,
    private readonly flushMs: number,
  ) {}

  /**
   * Stores jobs to send, in their order, as ONE statement (the rows as one JSON list): a
   * statement per job was 15 % of the accepting isolate's CPU in a profile of bulk accepts.
   * The jobs are kept as objects, so the caller must not change them afterwards.
   */
  addAll(entries: readonly { tx: string; job: DeliveryJob }[]) {
    if (entries.length === 0) return;
    const jsons = entries.map(({ job }) => JSON.stringify(job));
    const ids = entries.length === 1 ? [this.insertOne(entries[0]!.tx, jsons[0]!)] : this.insertList(entries, jsons);
    ids.forEach((id, i) => {
      this.written.set(id, { tx: entries[i]!.tx, job: entries[i]!.job, bytes: jobBytes(jsons[i]!) });
    });
    this.added += entries.length;
  }

  /** One job (a single trigger's accept, the common call) bound as it is, not escaped into a list for SQLite to parse back. */
  private insertOne(tx: string, json: string): number {
    return this.storage.sql.exec<{ id: number }>("INSERT INTO outbox (tx, job) VALUES (?, ?) RETURNING id", tx, json).one().id;
  }

  private insertList(entries: readonly { tx: string }[], jsons: readonly string[]): number[] {
    const ids = this.storage.sql
      .exec<{ id: number }>(
        "INSERT INTO outbox (tx, job) SELECT value ->> 0, value ->> 1 FROM jsonb_each(?) RETURNING id",
        JSON.stringify(entries.map(({ tx }, i) => [tx, jsons[i]])),
      )
      .toArray()
      .map((r) => r.id);
    // json_each gives the rows in list order and they are inserted as given (no ORDER BY, which
    // would sort the jobs' text): the list takes rising ids. RETURNING's own order is not promised.
    return ids.sort((a, b) => a - b);
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
      const addedBefore = this.added;
      const rows = this.dueRows();
      if (rows.length === 0) return flushed;
      // One queue per round, not one per job: a round's jobs then travel in one message, not two.
      const sent = await sendPacked(
        deliveryQueueFor(this.queues, rows[0]!.tx),
        rows.map((r) => r.job),
        { sizes: rows.map((r) => r.bytes) },
      );
      this.sentUpTo = rows.at(-1)!.id;
      this.forgetWritten();
      flushed.jobs += rows.length;
      flushed.messages += sent;
      // The table holds nothing more unless a job came while this round was sending (the
      // alarm's jobs ask for no flush of their own): then read again, else stop without asking.
      if (rows.length < FLUSH_BATCH && this.added === addedBefore) return flushed;
    }
  }

  /**
   * The next rows due, in order: the jobs this instance wrote from memory, any other (left by an
   * instance that died) from storage, all such rows in one read. The table's ids stay the truth of
   * what is due: a row deleted by anything else is not sent.
   */
  private dueRows(): { id: number; tx: string; job: DeliveryJob; bytes: number }[] {
    const ids: number[] = [];
    // Raw rows: no object per id.
    for (const [id] of this.storage.sql
      .exec<{ id: number }>("SELECT id FROM outbox WHERE id > ? ORDER BY id LIMIT ?", this.sentUpTo, FLUSH_BATCH)
      .raw())
      ids.push(id as number);
    const missing = ids.filter((id) => !this.written.has(id));
    const stored = new Map<number, { tx: string; job: string }>();
    if (missing.length)
      for (const row of this.storage.sql.exec<{ id: number; tx: string; job: string }>(
        "SELECT id, tx, job FROM outbox WHERE id IN (SELECT value FROM json_each(?))",
        JSON.stringify(missing),
      ))
        stored.set(row.id, row);
    return ids.map((id) => {
      const known = this.written.get(id);
      if (known) return { id, ...known };
      const { tx, job } = stored.get(id)!;
      return { id, tx, job: JSON.parse(job) as DeliveryJob, bytes: jobBytes(job) };
    });
  }

  private forgetWritten() {
    for (const id of this.written.keys()) if (id <= this.sentUpTo) this.written.delete(id);
  }

  /** Deletes the rows this instance has sent (the alarm does, so a flush itself writes nothing). */
  forgetSent() {
    if (this.sentUpTo > 0) this.storage.sql.exec("DELETE FROM outbox WHERE id <= ?", this.sentUpTo);
  }

  pending(): number {
    return this.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
  }
}
