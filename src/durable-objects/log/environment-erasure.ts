/**
 * A deleted environment's rows, erased from a log shard in bounded passes. One shard may hold
 * millions of an environment's rows, far more than one call can delete inside a Durable Object's
 * CPU limit, so a pass deletes at most `eraseBound.rows` rows of each table and the shard's alarm
 * runs the next one until none are left (log-shard.ts). While an environment is being erased, and
 * for a day after, a write for it is dropped: a delivery that read the environment just before its
 * deletion may write after the erasure began, and must not bring its rows back.
 */
import { jsonParts } from "../../lib/json-parts";
import type { LogWrite } from "./rows";

export const ERASING_SCHEMA = `CREATE TABLE IF NOT EXISTS erasing_environments (
  env TEXT PRIMARY KEY, started_at INTEGER NOT NULL, refs_after TEXT, done_at INTEGER
) WITHOUT ROWID;`;

/**
 * Rows of each table one pass deletes. 5,000 messages with their timelines (a few entries each)
 * and as many rows of each other table are some 30,000 index seeks and deletes, about a quarter of
 * a second of a shard's CPU: well inside the limit per call, and an alarm that leaves the shard's
 * other calls room. Tests lower it to see several passes without thousands of rows.
 */
export const ERASE_ROWS_PER_PASS = 5_000;
export const eraseBound = { rows: ERASE_ROWS_PER_PASS };

/** How long a finished erasure is remembered, to drop late writes: a delivery writes seconds after its reads. */
const KEPT_MS = 86_400_000;

/** One pass's oldest messages of the environment, by its `messages_env_created` index. */
export const ERASE_MESSAGE_IDS = "SELECT id FROM messages WHERE env = ? ORDER BY created_at, id LIMIT ?";
export const ERASE_EVENTS = "DELETE FROM message_events WHERE message_id IN (SELECT value FROM json_each(?))";
export const ERASE_MESSAGES = "DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))";
/**
 * Provider refs live in the shard of their provider id, not with their messages, and have no index
 * by environment (one more on every sent message's ref): a pass walks the next rows of all refs by
 * `provider_refs_created`, after the last one the previous pass read, and deletes the
 * environment's among them. The whole walk reads each ref of the shard once.
 */
export const ERASE_REFS_WALK = `SELECT provider_message_id AS p, message_id AS m, env, created_at AS at FROM provider_refs
  WHERE (created_at, provider_message_id, message_id) > (?, ?, ?) ORDER BY created_at, provider_message_id, message_id LIMIT ?`;
const ERASE_REFS = `DELETE FROM provider_refs WHERE (provider_message_id, message_id) IN
  (SELECT value ->> 0, value ->> 1 FROM jsonb_each(?))`;

/**
 * Tables whose key leads with `env`, with their other key columns: a pass seeks the environment's
 * first rows. Every rollup table (rollups/schema.ts ROLLUP_TABLES) is here: a new one must be too.
 */
export const KEYED_TABLES: readonly (readonly [string, readonly string[]])[] = [
  ["trigger_messages", ["tx", "subscriber", "step"]],
  ["trigger_counts", ["tx", "status"]],
  ["triggers", ["tx"]],
  ["trigger_people", ["subscriber", "tx"]],
  ["sandbox_captures", ["created_at", "id"]],
  ["rollup_messages", ["hour", "workflow", "step", "channel", "provider", "tenant", "states", "reason"]],
  ["rollup_latency", ["hour", "channel", "provider", "tenant", "workflow", "bucket"]],
  ["rollup_audience", ["hour", "workflow", "tenant"]],
  ["rollup_errors", ["day", "workflow", "tenant", "channel", "provider", "code", "message"]],
  ["rollup_fatigue", ["day", "subscriber", "channel", "workflow", "tenant"]],
];

/** Deletes at most `?2` rows of environment `?1` from a table keyed by env first (its primary key's range). */
export const eraseKeyed = (table: string, key: readonly string[]) =>
  `DELETE FROM ${table} WHERE env = ?1 AND (${key.join(", ")}) IN (SELECT ${key.join(", ")} FROM ${table} WHERE env = ?1 LIMIT ?2)`;

/** The feed's rows by id, found by its (env, subscriber, id) index. */
export const ERASE_FEED = "DELETE FROM in_app_notifications WHERE id IN (SELECT id FROM in_app_notifications WHERE env = ? LIMIT ?)";

/** Every statement a pass runs, for tests that read their query plans. */
export const ERASE_STATEMENTS = [
  ERASE_MESSAGE_IDS,
  ERASE_EVENTS,
  ERASE_MESSAGES,
  ERASE_REFS_WALK,
  ERASE_FEED,
  ...KEYED_TABLES.map(([t, key]) => eraseKeyed(t, key)),
];

/** What one pass deleted; `more` while rows of the environment are left. */
export interface ErasePass {
  messages: number;
  triggers: number;
  more: boolean;
}

type RefCursor = [number, string, string];
const REFS_START: RefCursor = [Number.MIN_SAFE_INTEGER, "", ""];

export class ErasingEnvironments {
  /** Erasures remembered (running, or finished within a day): none, the usual case, costs a write no statement. */
  private remembered = 0;
  private running = 0;

  /** `sql` holds the table already (LogShard.prepare runs ERASING_SCHEMA with the rest of the schema). */
  constructor(private readonly sql: SqlStorage) {
    this.recount();
  }

  /** Counts again: after a pass, and after the shard was emptied whole and its schema made again. */
  recount(): void {
    const { n, running } = this.sql
      .exec<{ n: number; running: number | null }>("SELECT count(*) AS n, sum(done_at IS NULL) AS running FROM erasing_environments")
      .one();
    this.remembered = Number(n);
    this.running = Number(running ?? 0);
  }

  /** Environments whose erasure is not done yet, oldest first. */
  pending(): string[] {
    if (this.running === 0) return [];
    return this.sql
      .exec<{ env: string }>("SELECT env FROM erasing_environments WHERE done_at IS NULL ORDER BY started_at")
      .toArray()
      .map((r) => r.env);
  }

  /** One bounded pass over every table (the caller's transaction); remembers the erasure until it is done. */
  pass(environmentId: string, now: number): ErasePass {
    const bound = eraseBound.rows;
    this.sql.exec(
      "INSERT INTO erasing_environments (env, started_at) VALUES (?, ?) ON CONFLICT (env) DO UPDATE SET done_at = NULL",
      environmentId,
      now,
    );
    const ids = this.sql
      .exec<{ id: string }>(ERASE_MESSAGE_IDS, environmentId, bound)
      .toArray()
      .map((r) => r.id);
    for (const part of jsonParts(ids)) {
      this.sql.exec(ERASE_EVENTS, part);
      this.sql.exec(ERASE_MESSAGES, part);
    }
    let more = ids.length === bound || this.refs(environmentId, bound);
    if (this.sql.exec(ERASE_FEED, environmentId, bound).rowsWritten === bound) more = true;
    let triggers = 0;
    for (const [table, key] of KEYED_TABLES) {
      const n = this.sql.exec(eraseKeyed(table, key), environmentId, bound).rowsWritten;
      if (table === "triggers") triggers = n;
      if (n === bound) more = true;
    }
    if (!more) this.sql.exec("UPDATE erasing_environments SET done_at = ? WHERE env = ?", now, environmentId);
    this.recount();
    return { messages: ids.length, triggers, more };
  }

  /** The refs walk's next rows (module comment of ERASE_REFS_WALK); answers whether the walk has more. */
  private refs(environmentId: string, bound: number): boolean {
    const [row] = this.sql
      .exec<{ refs_after: string | null }>("SELECT refs_after FROM erasing_environments WHERE env = ?", environmentId)
      .toArray();
    const after = row?.refs_after ? (JSON.parse(row.refs_after) as RefCursor) : REFS_START;
    const read = this.sql.exec<{ p: string; m: string; env: string; at: number }>(ERASE_REFS_WALK, ...after, bound).toArray();
    const mine = read.filter((r) => r.env === environmentId).map((r) => [r.p, r.m]);
    for (const part of jsonParts(mine)) this.sql.exec(ERASE_REFS, part);
    const last = read.at(-1);
    const more = read.length === bound;
    // A finished walk starts over should the erasure be asked again (a retried job): refs written since are dropped anyway.
    const cursor = more && last ? JSON.stringify([last.at, last.p, last.m]) : null;
    this.sql.exec("UPDATE erasing_environments SET refs_after = ? WHERE env = ?", cursor, environmentId);
    return more;
  }

  /** Whether any environment is remembered: without, a write is not looked at. */
  get any(): boolean {
    return this.remembered > 0;
  }

  /** Of these environments, those being erased here or erased within the last day. */
  among(environmentIds: Iterable<string>): Set<string> {
    if (this.remembered === 0) return new Set();
    const ids = [...new Set(environmentIds)];
    if (ids.length === 0) return new Set();
    return new Set(
      this.sql
        .exec<{ env: string }>("SELECT env FROM erasing_environments WHERE env IN (SELECT value FROM json_each(?))", JSON.stringify(ids))
        .toArray()
        .map((r) => r.env),
    );
  }

  /** A write without the rows of environments being erased (or erased within the day). */
  dropErased(w: LogWrite): LogWrite {
    if (this.remembered === 0) return w;
    const gone = this.among([
      ...(w.inserts ?? []).map((m) => m.environmentId),
      ...(w.events ?? []).map((e) => e.environmentId),
      ...(w.refs ?? []).map((r) => r.environmentId),
      ...(w.feed ?? []).map((f) => f.environmentId),
      ...(w.captures ?? []).map((c) => c.environmentId),
      ...(w.indexed ?? []).map((m) => m.environmentId),
      ...(w.indexedStatus ?? []).map((m) => m.environmentId),
    ]);
    if (gone.size === 0) return w;
    const kept = <T extends { environmentId: string }>(rows: T[] | undefined) => rows?.filter((r) => !gone.has(r.environmentId));
    // A change to a message of an erased environment finds no row, or one the next pass deletes.
    return {
      ...w,
      inserts: kept(w.inserts),
      events: kept(w.events),
      refs: kept(w.refs),
      feed: kept(w.feed),
      captures: kept(w.captures),
      indexed: kept(w.indexed),
      indexedStatus: kept(w.indexedStatus),
    };
  }

  /** Forgets erasures finished more than a day ago (the shard's expiry pass). */
  prune(now: number): void {
    if (this.remembered === this.running) return;
    this.sql.exec("DELETE FROM erasing_environments WHERE done_at < ?", now - KEPT_MS);
    this.recount();
  }
}
