import type { Bindings } from "../../env";
import type { Expired } from "./rows";
import { type FeedRecord, toFeedRow } from "./feed-table";
import { toEvent, toMessage } from "./records";
import type { EventRecord, MessageRecord } from "./schema";

const DAY_MS = 86_400_000;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** How long the log keeps a sandbox capture (SANDBOX_RETENTION_DAYS, default 7): development output, kept shorter. */
export const sandboxRetentionMs = (env: Pick<Bindings, "SANDBOX_RETENTION_DAYS">) => positive(env.SANDBOX_RETENTION_DAYS, 7) * DAY_MS;

/** How long the log keeps a message (RETENTION_DAYS, default 30) and how many one pass removes. */
export const logRetention = (env: Pick<Bindings, "RETENTION_DAYS" | "RETENTION_MAX_ROWS">) => ({
  ms: positive(env.RETENTION_DAYS, 30) * DAY_MS,
  maxRows: positive(env.RETENTION_MAX_ROWS, 5000),
});

interface Pass {
  /** The shard's name, which the archive's keys carry. */
  shard: string;
  /** Messages created before this go, with their timelines. */
  before: number;
  maxRows: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The environments a shard holds messages of, each found by one seek (`messages_env_created`'s
 * next environment after the last): no index by time alone, and no scan of the rows.
 */
export const ENVIRONMENTS = `WITH RECURSIVE e(env) AS (
    SELECT min(env) FROM messages
    UNION ALL SELECT (SELECT min(env) FROM messages WHERE env > e.env) FROM e WHERE e.env IS NOT NULL
  ) SELECT env FROM e WHERE env IS NOT NULL`;

/** An environment's messages created before a time, oldest first: a range of `messages_env_created`. */
export const OLDEST_OF_ENVIRONMENT = "SELECT * FROM messages WHERE env = ? AND created_at < ? ORDER BY created_at, id LIMIT ?";

/**
 * Up to `limit` messages created before `before`, oldest first, over every environment: each
 * environment's oldest from its range of `messages_env_created`, merged. A shard holds a few
 * environments, and the index every write keeps for them serves expiry too (one by time alone
 * cost every message a write).
 */
function oldestMessages(sql: SqlStorage, before: number, limit: number): MessageRecord[] {
  const envs = sql.exec<{ env: string }>(ENVIRONMENTS).toArray();
  const each = envs.flatMap(({ env }) => sql.exec<MessageRecord>(OLDEST_OF_ENVIRONMENT, env, before, limit).toArray());
  if (envs.length <= 1) return each;
  return each.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
}

/**
 * Removes up to `maxRows` expired messages, oldest first, with their timelines; with an archive
 * bucket they are written to it first as NDJSON, one object per environment, table, day (of the
 * message) and shard: `<environment>/<table>/<yyyy-mm-dd>/<shard>.ndjson`, then `<shard>.<n>.ndjson`
 * for a day that took more than one pass. The part number moves on in the transaction that deletes
 * the rows: a pass that dies between the upload and the delete writes the same object again.
 */
export async function archiveAndExpire(storage: DurableObjectStorage, archive: R2Bucket | undefined, pass: Pass) {
  const sql = storage.sql;
  const messages = oldestMessages(sql, pass.before, pass.maxRows);
  const ids = messages.map((m) => m.id);
  const events = ids.flatMap((id) =>
    sql.exec<EventRecord>("SELECT * FROM message_events WHERE message_id = ? ORDER BY at, id", id).toArray(),
  );
  // A notification is made with its message, so it goes with it (by the same age: one made for a
  // message still in D1 has none here).
  const feed = sql
    .exec<FeedRecord>("SELECT * FROM in_app_notifications WHERE created_at < ? ORDER BY created_at, id LIMIT ?", pass.before, pass.maxRows)
    .toArray();
  const createdOf = new Map(messages.map((m) => [m.id, m.created_at]));
  const files = new Map<string, string[]>();
  const add = (env: string, table: string, at: number, line: unknown) => {
    const key = `${env}/${table}/${day(at)}`;
    const lines = files.get(key) ?? [];
    lines.push(JSON.stringify(line));
    files.set(key, lines);
  };
  if (archive) {
    for (const m of messages) add(m.env, "messages", m.created_at, toMessage(m));
    for (const e of events) add(e.env, "message_events", createdOf.get(e.message_id) ?? e.at, toEvent(e));
    for (const f of feed) add(f.env, "in_app_notifications", f.created_at, toFeedRow(f));
  }
  const parts = [...files].map(([prefix, lines]) => {
    const setting = `part:${prefix}`;
    const part = Number(sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", setting).toArray()[0]?.value ?? 0);
    const shard = pass.shard.replaceAll("/", "-");
    return { setting, part, key: `${prefix}/${part === 0 ? shard : `${shard}.${part}`}.ndjson`, body: `${lines.join("\n")}\n` };
  });
  if (archive) {
    await Promise.all(parts.map((p) => archive.put(p.key, p.body, { httpMetadata: { contentType: "application/x-ndjson" } })));
  }
  const refs = storage.transactionSync(() => {
    for (const id of ids) {
      sql.exec("DELETE FROM message_events WHERE message_id = ?", id);
      sql.exec("DELETE FROM messages WHERE id = ?", id);
    }
    for (const f of feed) sql.exec("DELETE FROM in_app_notifications WHERE id = ?", f.id);
    for (const p of parts)
      sql.exec(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        p.setting,
        String(p.part + 1),
      );
    return sql.exec("DELETE FROM provider_refs WHERE created_at < ?", pass.before).rowsWritten;
  });
  return {
    messages: ids.length,
    events: events.length,
    refs,
    feed: feed.length,
    archived: archive ? ids.length + events.length + feed.length : 0,
    more: ids.length === pass.maxRows || feed.length === pass.maxRows,
  };
}

/** The tables of a generation's rows that retention removes; the rollups (`rollup_*`) stay for ANALYTICS_RETENTION_DAYS. */
const ROW_TABLES = [
  "messages",
  "message_events",
  "provider_refs",
  "in_app_notifications",
  "sandbox_captures",
  "triggers",
  "trigger_people",
  "trigger_messages",
  "trigger_counts",
];

const count = (sql: SqlStorage, table: string) => sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;

/**
 * Empties a shard of a generation wholly past retention in one go, not row by row: the whole
 * object (`deleteAll`) once its rollups are past ANALYTICS_RETENTION_DAYS too (`deleted`), else
 * every table of rows with one statement each, keeping the rollups. Archiving, when on, is done
 * before by the ordinary passes (the caller's), which read the rows in bounded batches.
 */
export async function emptyGeneration(
  storage: DurableObjectStorage,
  rollupsExpired: boolean,
): Promise<Omit<Expired, "archived"> & { deleted: boolean }> {
  const sql = storage.sql;
  const gone = {
    messages: count(sql, "messages"),
    events: count(sql, "message_events"),
    refs: count(sql, "provider_refs"),
    feed: count(sql, "in_app_notifications"),
    triggers: count(sql, "triggers"),
  };
  if (rollupsExpired) {
    await storage.deleteAlarm();
    await storage.deleteAll();
    return { ...gone, deleted: true };
  }
  storage.transactionSync(() => {
    for (const table of ROW_TABLES) sql.exec(`DELETE FROM ${table}`);
  });
  return { ...gone, deleted: false };
}
