import { jsonParts, PART_ROWS } from "../../lib/json-parts";

/**
 * Per-trigger index, kept in the trigger's own shard (`triggerPartition`): one row per message
 * of the trigger with its current status, so a trigger's counts (the trigger page,
 * `trigger.completed`, `trigger.cancelled`) read one shard instead of every shard its recipients
 * live in. Rows arrive with the phase's writes (`LogBatch`), in the same call as the messages when
 * the trigger's shard is the message's, else in the phase's call to the trigger's shard.
 *
 * Keyed by send identity, like `messages_identity`: a message inserted again for an identity that
 * already has one is ignored here as it is in its own shard, so the two agree on what exists. A
 * status change names the identity too, and seeks the key: no index by message id is kept for it
 * (one b-tree insert and about a hundred bytes a message less). Shards made with one drop it
 * (`upgradeTriggerIndex`).
 *
 * `trigger_counts` keeps each trigger's rows counted by status, by SQLite triggers on every insert
 * and status change, whichever statement makes them: the trigger page reads a few rows instead of
 * counting all of a large trigger's at every view (a 100,000-member topic's page, watched while it
 * ran, counted 100,000 rows four times a second). Rows leave the index only with their trigger's
 * (expiry by age, an environment's erasure, a generation emptied): `expire` takes its rows out of
 * the counts itself, so that emptying a table in one statement stays one statement. A shard
 * counts only triggers recorded after its counts began (`counts_since`); older ones are counted
 * from their rows, as before.
 */
export const TRIGGER_INDEX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS trigger_messages (
    env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, step TEXT NOT NULL, message_id TEXT NOT NULL,
    status TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (env, tx, subscriber, step)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS trigger_messages_created ON trigger_messages (created_at);
  CREATE TABLE IF NOT EXISTS trigger_counts (
    env TEXT NOT NULL, tx TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (env, tx, status)
  ) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS trigger_messages_counted AFTER INSERT ON trigger_messages BEGIN
    INSERT INTO trigger_counts (env, tx, status, n) VALUES (new.env, new.tx, new.status, 1) ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS trigger_messages_recounted AFTER UPDATE OF status ON trigger_messages WHEN old.status IS NOT new.status BEGIN
    UPDATE trigger_counts SET n = n - 1 WHERE env = old.env AND tx = old.tx AND status = old.status;
    INSERT INTO trigger_counts (env, tx, status, n) VALUES (new.env, new.tx, new.status, 1) ON CONFLICT DO UPDATE SET n = n + 1;
  END;
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

/** A message's trigger and send identity: the index's key. */
export interface IndexKey {
  environmentId: string;
  transactionId: string;
  subscriberId: string;
  stepId: string;
}

/**
 * A message's new status, for its trigger's index. Its identity is absent only from a write
 * sent by code from before the index was keyed for it (during a deploy's rollover).
 */
export interface IndexedStatus extends Omit<IndexKey, "subscriberId" | "stepId">, Partial<Pick<IndexKey, "subscriberId" | "stepId">> {
  messageId: string;
  status: string;
}

/** Brings a shard made with an index by message id to this schema (the shard's start). */
export function upgradeTriggerIndex(sql: SqlStorage): void {
  sql.exec("DROP INDEX IF EXISTS trigger_messages_message");
}

/** Changes by the key; the message id must match too (an identity inserted again under another id keeps its first). */
export const SET_BY_KEY = `${PART_ROWS} UPDATE trigger_messages SET status = c.v ->> 0 FROM part AS c
  WHERE env = c.v ->> 2 AND tx = c.v ->> 3 AND subscriber = c.v ->> 4 AND step = c.v ->> 5 AND message_id = c.v ->> 1`;
/** Changes from an older writer, without the identity: the trigger's rows, by message id. */
export const SET_IN_TRIGGER = `${PART_ROWS} UPDATE trigger_messages SET status = c.v ->> 0 FROM part AS c
  WHERE env = c.v ->> 2 AND tx = c.v ->> 3 AND message_id = c.v ->> 1`;

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
    const keyed = [...last.values()].filter((c) => c.subscriberId !== undefined && c.stepId !== undefined);
    const unkeyed = [...last.values()].filter((c) => c.subscriberId === undefined || c.stepId === undefined);
    for (const part of jsonParts(keyed.map((c) => [c.status, c.messageId, c.environmentId, c.transactionId, c.subscriberId, c.stepId])))
      this.sql.exec(SET_BY_KEY, part);
    for (const part of jsonParts(unkeyed.map((c) => [c.status, c.messageId, c.environmentId, c.transactionId])))
      this.sql.exec(SET_IN_TRIGGER, part);
  }

  /**
   * A trigger's messages counted by status: kept counts when `kept` (the trigger was recorded
   * after this shard's counts began), else its rows counted.
   */
  counts(environmentId: string, transactionId: string, kept = false): { status: string; n: number }[] {
    return this.sql
      .exec<{ status: string; n: number }>(
        kept
          ? "SELECT status, n FROM trigger_counts WHERE env = ? AND tx = ? AND n > 0"
          : "SELECT status, count(*) AS n FROM trigger_messages WHERE env = ? AND tx = ? GROUP BY status",
        environmentId,
        transactionId,
      )
      .toArray();
  }

  /**
   * Rows of messages created before `before` (their messages expire with the same age), at most
   * `max`, taken out of their triggers' counts; a trigger's counts go with its last row.
   */
  expire(before: number, max: number): number {
    const gone = this.sql
      .exec<{ env: string; tx: string; status: string }>(
        `DELETE FROM trigger_messages WHERE (env, tx, subscriber, step) IN
          (SELECT env, tx, subscriber, step FROM trigger_messages WHERE created_at < ? LIMIT ?) RETURNING env, tx, status`,
        before,
        max,
      )
      .toArray();
    if (gone.length === 0) return 0;
    const byCount = Map.groupBy(gone, (r) => JSON.stringify([r.env, r.tx, r.status]));
    for (const part of jsonParts([...byCount].map(([key, rows]) => [...(JSON.parse(key) as string[]), rows.length]))) {
      this.sql.exec(
        `${PART_ROWS} UPDATE trigger_counts SET n = n - c.v ->> 3 FROM part AS c
         WHERE env = c.v ->> 0 AND tx = c.v ->> 1 AND status = c.v ->> 2`,
        part,
      );
      this.sql.exec(
        `${PART_ROWS} DELETE FROM trigger_counts WHERE n <= 0 AND (env, tx, status) IN (SELECT v ->> 0, v ->> 1, v ->> 2 FROM part)`,
        part,
      );
    }
    return gone.length;
  }
}
