import { jsonParts, PART_ROWS } from "../../lib/json-parts";

/**
 * Per-trigger index, kept in the trigger's own shard (`triggerPartition`): one row per message
 * of the trigger with its current status, so a trigger's counts (the trigger page,
 * `trigger.completed`, `trigger.cancelled`) read one shard instead of every shard its recipients
 * live in. Rows arrive with the phase's writes (`LogBatch`), in the same call as the messages when
 * the trigger's shard is the message's, else in the phase's call to the trigger's shard.
 *
 * Keyed by send identity, like `messages_identity`: a message inserted again for an identity that
 * already has one is ignored here as it is in its own shard, so the two agree on what exists.
 */
export const TRIGGER_INDEX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS trigger_messages (
    env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, step TEXT NOT NULL, message_id TEXT NOT NULL,
    status TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (env, tx, subscriber, step)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS trigger_messages_message ON trigger_messages (message_id);
  CREATE INDEX IF NOT EXISTS trigger_messages_created ON trigger_messages (created_at);
`;

/** A message as the index keeps it: what a new message's row adds to its trigger's shard. */
export interface IndexedMessage {
  environmentId: string;
  transactionId: string;
  subscriberId: string;
  stepId: string;
  messageId: string;
  status: string;
  createdAt: number;
}

/** A message's new status, for its trigger's index. */
export interface IndexedStatus {
  environmentId: string;
  transactionId: string;
  messageId: string;
  status: string;
}

export class TriggerIndex {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Inside the caller's transaction: new messages first, then status changes (a phase may insert
   * and update one). One statement each for the whole write, rows as one JSON array; of several
   * changes to one message, the last is its status, as one statement per change left it.
   */
  apply(inserted: readonly IndexedMessage[], changed: readonly IndexedStatus[]): void {
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts), in order: one part, one statement.
    for (const part of jsonParts(
      inserted.map((m) => [m.environmentId, m.transactionId, m.subscriberId, m.stepId, m.messageId, m.status, m.createdAt]),
    ))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO trigger_messages (env, tx, subscriber, step, message_id, status, created_at)
         SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, v ->> 5, v ->> 6 FROM part WHERE true
         ON CONFLICT DO NOTHING`,
        part,
      );
    if (changed.length === 0) return;
    const last = new Map<string, IndexedStatus>();
    for (const c of changed) {
      const key = JSON.stringify([c.messageId, c.environmentId, c.transactionId]);
      last.delete(key);
      last.set(key, c);
    }
    // One change per message: parts touch distinct rows.
    for (const part of jsonParts([...last.values()].map((c) => [c.status, c.messageId, c.environmentId, c.transactionId])))
      this.sql.exec(
        `${PART_ROWS} UPDATE trigger_messages SET status = c.v ->> 0 FROM part AS c
         WHERE message_id = c.v ->> 1 AND env = c.v ->> 2 AND tx = c.v ->> 3`,
        part,
      );
  }

  /** A trigger's messages counted by status. */
  counts(environmentId: string, transactionId: string): { status: string; n: number }[] {
    return this.sql
      .exec<{ status: string; n: number }>(
        "SELECT status, count(*) AS n FROM trigger_messages WHERE env = ? AND tx = ? GROUP BY status",
        environmentId,
        transactionId,
      )
      .toArray();
  }

  /** Rows of messages created before `before` (their messages expire with the same age), at most `max`. */
  expire(before: number, max: number): number {
    return this.sql.exec(
      `DELETE FROM trigger_messages WHERE (env, tx, subscriber, step) IN
        (SELECT env, tx, subscriber, step FROM trigger_messages WHERE created_at < ? LIMIT ?)`,
      before,
      max,
    ).rowsWritten;
  }
}
