/**
 * Subscribers erased in this shard, remembered for a day. A delivery that read a subscriber just
 * before their erasure may write the message after it: a new email, SMS, push or chat message is
 * written once, after its send, with its content. That late write must not bring back what the
 * erasure removed, so the shard redacts any message it writes for a subscriber erased at or after
 * the message was made. A delivery reads the subscriber at most seconds before its write, so a day
 * is far more than the window; a subscriber made again later under the same id is messaged anew.
 */
import { jsonParts } from "../../lib/json-parts";

export const ERASED_SCHEMA = `CREATE TABLE IF NOT EXISTS erased_subscribers (
  env TEXT NOT NULL, subscriber TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (env, subscriber)
) WITHOUT ROWID;`;

const KEPT_MS = 86_400_000;

/** A message written for a subscriber who was erased after it was made. */
export interface LateForErased {
  id: string;
  env: string;
  subscriber: string;
}

export class ErasedSubscribers {
  /** How many are remembered: none (the usual case) costs a write no statement. */
  private remembered: number;

  /** The shard's start made ERASED_SCHEMA (log-shard.ts `prepare`). */
  constructor(private readonly sql: SqlStorage) {
    this.remembered = this.count();
  }

  private count(): number {
    return Number(this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM erased_subscribers").one().n);
  }

  mark(environmentId: string, subscriberId: string, at: number): void {
    this.sql.exec(
      "INSERT INTO erased_subscribers (env, subscriber, at) VALUES (?, ?, ?) ON CONFLICT (env, subscriber) DO UPDATE SET at = excluded.at",
      environmentId,
      subscriberId,
      at,
    );
    this.remembered = this.count();
  }

  /** Of these messages, those whose subscriber was erased at or after the message was made. */
  among(ids: readonly string[]): LateForErased[] {
    if (this.remembered === 0) return [];
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): one part, one statement.
    return jsonParts(ids).flatMap((part) =>
      this.sql
        .exec<{ id: string; env: string; subscriber: string }>(
          `SELECT m.id, m.env, m.subscriber FROM json_each(?) AS j CROSS JOIN messages AS m ON m.id = j.value
            JOIN erased_subscribers AS e ON e.env = m.env AND e.subscriber = m.subscriber WHERE e.at >= m.created_at`,
          part,
        )
        .toArray(),
    );
  }

  /** Forgets erasures older than a day (the shard's expiry pass). */
  prune(now: number): void {
    if (this.remembered === 0) return;
    this.sql.exec("DELETE FROM erased_subscribers WHERE at < ?", now - KEPT_MS);
    this.remembered = this.count();
  }
}
