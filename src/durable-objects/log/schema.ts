import { addColumnsMissingFrom } from "./added-columns";
import { CAPTURES_SCHEMA } from "./captures-table";
import { FEED_SCHEMA } from "./feed-table";
import { D1_OUTBOX_SCHEMA } from "./d1-outbox";
import { TRIGGER_INDEX_SCHEMA } from "./trigger-index";
import { TRIGGERS_SCHEMA } from "./triggers-table";

/**
 * A log shard's tables. A message row carries `states`, the bits of every status its timeline
 * reached, kept as events are appended: the stats read one index range and no timeline.
 *
 * Every read of a timeline is by its message (the message's page, the latency rollup's seeks,
 * expiry, erasure), so `message_events` is stored by message: its key is `(message_id, id)` (an
 * entry is still one per id: a retried write's is kept as first stored, whatever its time), and
 * an appended entry writes one b-tree, not a row and an index. A message's few entries are
 * ordered by time when read. A message has no index by time alone either: expiry reads each
 * environment's range of `messages_env_created` (expiry.ts). Shards made before keep their `id`
 * key and get `message_events_message` (`addMissingColumns`), which serves the same reads.
 *
 * `messages` is a rowid table with a unique `id`, not a table keyed by `id`: within one
 * millisecond of ids a message id is random (a send's comes from its identity's hash, after its
 * trigger's time plus its chunk: message-writes.ts), so keyed by it a chunk's rows (about 800
 * bytes) would land on random pages among the others'. Rows go at the end, and only the small `id`
 * index takes inserts by id; the other indexes point at the rowid (8 bytes), not the id (36).
 * Shards made before keep their table keyed by `id`: every statement reads both the same.
 */
export const LOG_SCHEMA = `
  CREATE TABLE IF NOT EXISTS messages (
    id TEXT NOT NULL UNIQUE, env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, workflow TEXT NOT NULL,
    step TEXT NOT NULL, channel TEXT NOT NULL, provider TEXT, integration TEXT, status TEXT NOT NULL,
    provider_message_id TEXT, "to" TEXT, subject TEXT, preview TEXT, content TEXT, error_code TEXT, error_message TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, states INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    workflow_version INTEGER, layout_version INTEGER, tenant TEXT, context TEXT, watched INTEGER
  );
  CREATE UNIQUE INDEX IF NOT EXISTS messages_identity ON messages (env, tx, subscriber, step);
  CREATE INDEX IF NOT EXISTS messages_env_created ON messages (env, created_at, id);
  CREATE INDEX IF NOT EXISTS messages_env_subscriber ON messages (env, subscriber, created_at, id);
  CREATE INDEX IF NOT EXISTS messages_env_workflow ON messages (env, workflow, created_at, id);
  CREATE TABLE IF NOT EXISTS message_events (
    id TEXT NOT NULL, env TEXT NOT NULL, message_id TEXT NOT NULL, status TEXT NOT NULL, at INTEGER NOT NULL, detail TEXT,
    PRIMARY KEY (message_id, id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS provider_refs (
    provider_message_id TEXT NOT NULL, env TEXT NOT NULL, message_id TEXT NOT NULL, created_at INTEGER NOT NULL,
    PRIMARY KEY (provider_message_id, message_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS provider_refs_created ON provider_refs (created_at);
  CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
${FEED_SCHEMA}
${CAPTURES_SCHEMA}
${TRIGGERS_SCHEMA}
${TRIGGER_INDEX_SCHEMA}
${D1_OUTBOX_SCHEMA}
`;

/** A stored message row, as SQLite answers it. */
export interface MessageRecord extends Record<string, SqlStorageValue> {
  id: string;
  env: string;
  tx: string;
  subscriber: string;
  workflow: string;
  step: string;
  channel: string;
  provider: string | null;
  integration: string | null;
  status: string;
  provider_message_id: string | null;
  to: string | null;
  subject: string | null;
  preview: string | null;
  content: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  states: number;
  created_at: number;
  updated_at: number;
  /** Null in rows written before the column was added (and for a workflow saved before versions were kept). */
  workflow_version: number | null;
  layout_version: number | null;
  /** The trigger's tenant and other context ids (JSON object); null without (and in rows from before they were kept). */
  tenant: string | null;
  context: string | null;
  /** 1 when a wait step watches the message's step; null otherwise (and in rows from before). */
  watched: number | null;
}

/**
 * Columns added to `messages` after shards were created with it: a shard that lacks one gets it
 * (CREATE TABLE IF NOT EXISTS leaves an existing table as it was). Its old rows read null. The
 * CREATE TABLE above names them too, in this order (a new shard's columns are an upgraded one's):
 * an ALTER rewrites the schema, and five of them were two thirds of a new shard's start.
 */
export const ADDED_MESSAGE_COLUMNS = [
  ["workflow_version", "INTEGER"],
  ["layout_version", "INTEGER"],
  ["tenant", "TEXT"],
  ["context", "TEXT"],
  ["watched", "INTEGER"],
] as const;

/** Adds the columns of ADDED_MESSAGE_COLUMNS a shard's `messages` table does not have yet, and brings its indexes to this schema's. */
export function addMissingColumns(sql: SqlStorage): void {
  addColumnsMissingFrom(sql, "messages", ADDED_MESSAGE_COLUMNS);
  // After the column exists: `?tenant=` reads one index range.
  sql.exec("CREATE INDEX IF NOT EXISTS messages_env_tenant ON messages (env, tenant, created_at, id) WHERE tenant IS NOT NULL");
  // No read seeks timeline entries by time alone (a message's are read by its message, and expire
  // with it), nor messages by time across environments: those indexes only cost every write.
  // Shards made with them drop them.
  sql.exec("DROP INDEX IF EXISTS message_events_at");
  sql.exec("DROP INDEX IF EXISTS messages_created");
  // A shard made when a timeline entry's key was its id alone reads a message's entries by this index.
  const keyedById = sql
    .exec<{ name: string; pk: number }>("PRAGMA table_info(message_events)")
    .toArray()
    .some((c) => c.name === "id" && c.pk === 1);
  if (keyedById) sql.exec("CREATE INDEX IF NOT EXISTS message_events_message ON message_events (message_id, at, status)");
}

export interface EventRecord extends Record<string, SqlStorageValue> {
  id: string;
  env: string;
  message_id: string;
  status: string;
  at: number;
  detail: string | null;
}
