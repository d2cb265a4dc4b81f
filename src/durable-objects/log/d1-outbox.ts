import type { SerializedStatement } from "../../db/batch";
import { jsonParts } from "../../lib/json-parts";

/**
 * The D1 half of a delivery phase, kept by a log shard in the transaction that writes the phase's
 * log rows (`LogShard.write`): the outbound events of this shard's messages, described as the
 * write left them, and, in one shard of the phase, the rest (suppressions, captures, removed
 * addresses, legacy rows). The writer runs the same half itself and, once D1 took it, settles
 * the entry (`settle`, once per shard at the end of its invocation); an entry left unsettled (D1
 * refused it through every in-process retry, or the writer died) is run by the shard's alarm
 * until D1 takes it. Every statement of a D1 half is idempotent (fixed ids, `ON CONFLICT DO
 * NOTHING`, upserts, deletes), so an entry run by both adds nothing.
 */
export const D1_OUTBOX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS d1_outbox (
    id TEXT PRIMARY KEY, statements TEXT NOT NULL, created_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS d1_outbox_created ON d1_outbox (created_at);
`;

/** A stored part's row id: the entry's id, then `<id>/<n>` (zero-padded, so they sort in order, after the first). */
const partId = (id: string, i: number) => (i === 0 ? id : `${id}/${String(i).padStart(6, "0")}`);

/** Entries one alarm sends in one D1 batch at most. */
const ENTRIES_PER_PASS = 50;

export class D1Outbox {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Inside the caller's transaction; answers the entry's id, or null for an empty half. A half
   * past a Durable Object's 2 MB per string is kept in parts (lib/json-parts.ts), rows named
   * `<id>/<n>` after the first: each runs on D1 alone if need be, as entries do (every statement
   * is idempotent), in order.
   */
  store(statements: SerializedStatement[], now: number): string | null {
    if (statements.length === 0) return null;
    const id = crypto.randomUUID();
    for (const [i, part] of jsonParts(statements).entries())
      this.sql.exec("INSERT INTO d1_outbox (id, statements, created_at) VALUES (?, ?, ?)", partId(id, i), part, now);
    return id;
  }

  /** Entries the writer ran whole on D1: each with its parts. */
  settle(ids: readonly string[]): void {
    for (const id of ids) this.sql.exec("DELETE FROM d1_outbox WHERE id = ?1 OR (id > ?1 || '/' AND id < ?1 || '0')", id);
  }

  /** Rows the alarm ran: only those (a pass may stop between an entry's parts). */
  private settleRows(ids: readonly string[]): void {
    for (const id of ids) this.sql.exec("DELETE FROM d1_outbox WHERE id = ?", id);
  }

  get pending(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM d1_outbox").one().n;
  }

  /**
   * Runs the oldest entries on D1, all in one batch; if D1 refuses it, each entry alone, so one
   * it refuses for good does not hold back the others. Answers how many D1 took and how many it refused.
   */
  async send(d1: D1Database): Promise<{ sent: number; refused: number }> {
    const entries = this.sql
      .exec<{ id: string; statements: string }>("SELECT id, statements FROM d1_outbox ORDER BY created_at, id LIMIT ?", ENTRIES_PER_PASS)
      .toArray()
      .map((e) => ({ id: e.id, statements: JSON.parse(e.statements) as SerializedStatement[] }));
    if (entries.length === 0) return { sent: 0, refused: 0 };
    const prepare = (list: SerializedStatement[]) => list.map((s) => d1.prepare(s.sql).bind(...s.params));
    try {
      await d1.batch(entries.flatMap((e) => prepare(e.statements)));
      this.settleRows(entries.map((e) => e.id));
      return { sent: entries.length, refused: 0 };
    } catch {
      let refused = 0;
      for (const e of entries) {
        try {
          await d1.batch(prepare(e.statements));
          this.settleRows([e.id]);
        } catch (error) {
          refused++;
          this.sql.exec("UPDATE d1_outbox SET attempts = attempts + 1 WHERE id = ?", e.id);
          console.log(JSON.stringify({ level: "error", event: "log_outbox_refused", entry: e.id, error: String(error) }));
        }
      }
      return { sent: entries.length - refused, refused };
    }
  }
}
