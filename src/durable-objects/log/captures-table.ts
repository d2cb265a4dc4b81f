import { jsonParts, PART_ROWS } from "../../lib/json-parts";
import type { LogCapture } from "./rows";

/**
 * What the sandbox providers captured (`GET /v1/sandbox/messages`), in the shard of the message
 * each captured, written in the write that records the send. Until 0.13 they went to D1, one row
 * per sandbox send: for a topic of 100,000 that was 100,000 rows through the one D1 writer, about
 * a tenth of the topic's CPU on a local Clarion, and D1's bytes grew with every development send.
 *
 * Keyed by (env, created_at, id): a write appends (its captures are made now), a page newest first
 * is one range of an environment, and expiry deletes from each environment's oldest. A capture's
 * message finds its own by `sandbox_captures_message`. A capture keeps its id when its write is
 * applied again (ON CONFLICT DO NOTHING); a send made again makes a capture of its own.
 */
export const CAPTURES_SCHEMA = `
  CREATE TABLE IF NOT EXISTS sandbox_captures (
    env TEXT NOT NULL, created_at INTEGER NOT NULL, id TEXT NOT NULL, message_id TEXT NOT NULL,
    channel TEXT NOT NULL, provider TEXT NOT NULL, "to" TEXT NOT NULL, content TEXT NOT NULL,
    PRIMARY KEY (env, created_at, id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS sandbox_captures_message ON sandbox_captures (message_id);
`;

interface CaptureRecord extends Record<string, SqlStorageValue> {
  env: string;
  created_at: number;
  id: string;
  message_id: string;
  channel: string;
  provider: string;
  to: string;
  content: string;
}

const toCapture = (r: CaptureRecord): LogCapture => ({
  id: r.id,
  environmentId: r.env,
  messageId: r.message_id,
  channel: r.channel,
  provider: r.provider,
  to: r.to,
  content: JSON.parse(r.content) as Record<string, unknown>,
  createdAt: r.created_at,
});

/** The environments holding captures, each found by one seek of the key's next environment. */
const ENVIRONMENTS = `WITH RECURSIVE e(env) AS (
    SELECT min(env) FROM sandbox_captures
    UNION ALL SELECT (SELECT min(env) FROM sandbox_captures WHERE env > e.env) FROM e WHERE e.env IS NOT NULL
  ) SELECT env FROM e WHERE env IS NOT NULL`;

export class CapturesTable {
  constructor(private readonly sql: SqlStorage) {}

  /** A write's captures in one statement per part (lib/json-parts.ts). */
  insert(captures: readonly LogCapture[]): void {
    if (captures.length === 0) return;
    const rows = captures.map((c) => [c.environmentId, c.createdAt, c.id, c.messageId, c.channel, c.provider, c.to, c.content]);
    // The content as the object: `v -> 7` is its JSON text, the row's own (lib/json-parts.ts `objectAt`).
    for (const part of jsonParts(rows))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO sandbox_captures (env, created_at, id, message_id, channel, provider, "to", content)
         SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, v ->> 5, v ->> 6, v -> 7 FROM part WHERE true ON CONFLICT DO NOTHING`,
        part,
      );
  }

  /** Up to `limit` captures of an environment newest first, below the keyset `before`; of one message with `messageId`. */
  list(environmentId: string, limit: number, messageId?: string, before?: [number, string]): LogCapture[] {
    const rows = messageId
      ? this.sql.exec<CaptureRecord>(
          "SELECT * FROM sandbox_captures WHERE message_id = ? AND env = ? ORDER BY created_at DESC, id DESC LIMIT ?",
          messageId,
          environmentId,
          limit,
        )
      : this.sql.exec<CaptureRecord>(
          `SELECT * FROM sandbox_captures WHERE env = ?1 AND (?2 IS NULL OR created_at < ?2 OR (created_at = ?2 AND id < ?3))
           ORDER BY created_at DESC, id DESC LIMIT ?4`,
          environmentId,
          before?.[0] ?? null,
          before?.[1] ?? "",
          limit,
        );
    return rows.toArray().map(toCapture);
  }

  /** Deletes up to `maxRows` captures made before `before`, each environment's oldest first; answers how many. */
  expire(before: number, maxRows: number): number {
    let left = maxRows;
    for (const { env } of this.sql.exec<{ env: string }>(ENVIRONMENTS).toArray()) {
      if (left <= 0) break;
      left -= this.sql
        .exec(
          `DELETE FROM sandbox_captures WHERE env = ?1 AND (created_at, id) IN
             (SELECT created_at, id FROM sandbox_captures WHERE env = ?1 AND created_at < ?2 ORDER BY created_at LIMIT ?3) RETURNING 1`,
          env,
          before,
          left,
        )
        .toArray().length;
    }
    return maxRows - left;
  }

  /** Erasure: the captures of these messages (what was sent to the subscriber, in clear). */
  eraseMessages(messageIds: readonly string[]): void {
    for (const part of jsonParts(messageIds))
      this.sql.exec("DELETE FROM sandbox_captures WHERE message_id IN (SELECT value FROM json_each(?))", part);
  }

  /** Erasure of one subscriber: the captures of their messages in this shard (a capture is in its message's). */
  eraseSubscriber(environmentId: string, subscriberId: string): void {
    this.sql.exec(
      "DELETE FROM sandbox_captures WHERE message_id IN (SELECT id FROM messages WHERE env = ? AND subscriber = ?)",
      environmentId,
      subscriberId,
    );
  }
}
