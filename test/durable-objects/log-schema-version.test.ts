// A log shard's start skips its schema work when the shard was brought to this code's schema
// already, and does it all for a shard left by older code (or emptied whole).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LogShard } from "../../src/durable-objects/log/log-shard";
import { schemaVersion } from "../../src/durable-objects/log/schema-version";
import { unique } from "../factories";

const indexNames = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'messages_created'")
    .toArray()
    .map((r) => r.name);

/** `messages` and `triggers` as shards made before their added columns (schema.ts, triggers-table.ts) have them. */
const MESSAGES_BEFORE_ADDED_COLUMNS = `CREATE TABLE messages (
    id TEXT NOT NULL UNIQUE, env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, workflow TEXT NOT NULL,
    step TEXT NOT NULL, channel TEXT NOT NULL, provider TEXT, integration TEXT, status TEXT NOT NULL,
    provider_message_id TEXT, "to" TEXT, subject TEXT, preview TEXT, content TEXT, error_code TEXT, error_message TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, states INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
  )`;
const TRIGGERS_BEFORE_ADDED_COLUMNS = `CREATE TABLE triggers (
    env TEXT NOT NULL, tx TEXT NOT NULL, workflow TEXT NOT NULL, status TEXT NOT NULL, recipients TEXT NOT NULL,
    payload TEXT NOT NULL, overrides TEXT, actor TEXT, accepted_at INTEGER NOT NULL, cancelled_messages INTEGER,
    workflow_version INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (env, tx)
  ) WITHOUT ROWID`;

const columnsOf = (sql: SqlStorage) =>
  Object.fromEntries(
    ["messages", "triggers", "in_app_notifications"].map((table) => [
      table,
      sql
        .exec<{ name: string }>(`PRAGMA table_info(${table})`)
        .toArray()
        .map((c) => c.name),
    ]),
  );

describe("a log shard's start", () => {
  it("records the schema version it brought the shard to", async () => {
    const stub = env.LOGS.get(env.LOGS.idFromName(unique("schema-version")));
    const stored = await runInDurableObject(stub, (_o: LogShard, state) =>
      state.storage.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'schema'").toArray(),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.value).toMatch(/^[0-9a-z]+$/);
  });

  it("skips the schema work at the version it recorded, and does it for a shard without one", async () => {
    const stub = env.LOGS.get(env.LOGS.idFromName(unique("schema-skip")));
    const seen = await runInDurableObject(stub, (_o: LogShard, state) => {
      const sql = state.storage.sql;
      // An index the start drops (schema.ts `addMissingColumns`): its fate says whether the work ran.
      sql.exec("CREATE INDEX messages_created ON messages (created_at)");
      new LogShard(state, env);
      const atVersion = indexNames(sql);
      // A shard left by code from before the version was kept has none.
      sql.exec("DELETE FROM settings WHERE key = 'schema'");
      new LogShard(state, env);
      const withoutVersion = indexNames(sql);
      const recorded = sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'schema'").toArray().length;
      // Another code's version: the work runs again.
      sql.exec("CREATE INDEX messages_created ON messages (created_at)");
      sql.exec("UPDATE settings SET value = 'older' WHERE key = 'schema'");
      new LogShard(state, env);
      return { atVersion, withoutVersion, recorded, otherVersion: indexNames(sql) };
    });
    expect(seen.atVersion).toEqual(["messages_created"]);
    expect(seen.withoutVersion).toEqual([]);
    expect(seen.recorded).toBe(1);
    expect(seen.otherVersion).toEqual([]);
  });

  it("creates a new shard's tables with every column at once: no ALTER, the same columns as an upgraded shard", async () => {
    const stub = env.LOGS.get(env.LOGS.idFromName(unique("schema-new")));
    const seen = await runInDurableObject(stub, async (_o: LogShard, state) => {
      // Emptied whole, as a new shard is (and as `deleteAll` leaves one: the schema goes too).
      await state.storage.deleteAll();
      const statements: string[] = [];
      const sql = state.storage.sql;
      // The start's statements, seen on the storage itself (the runtime takes only a real state).
      const exec = sql.exec.bind(sql);
      Object.defineProperty(sql, "exec", {
        configurable: true,
        value: (query: string, ...bindings: SqlStorageValue[]) => {
          statements.push(query);
          return exec(query, ...bindings);
        },
      });
      new LogShard(state, env);
      delete (sql as { exec?: unknown }).exec;
      const fresh = columnsOf(sql);
      // The same shard as older code left it: the added columns missing, then started again.
      sql.exec("DROP TABLE messages");
      sql.exec(MESSAGES_BEFORE_ADDED_COLUMNS);
      sql.exec("DROP TABLE triggers");
      sql.exec(TRIGGERS_BEFORE_ADDED_COLUMNS);
      sql.exec("DELETE FROM settings WHERE key = 'schema'");
      new LogShard(state, env);
      return { alters: statements.filter((q) => /ALTER TABLE/i.test(q)), fresh, upgraded: columnsOf(sql) };
    });
    expect(seen.alters).toEqual([]);
    expect(seen.fresh.messages).toEqual(expect.arrayContaining(["tenant", "context", "watched"]));
    expect(seen.fresh.triggers).toEqual(expect.arrayContaining(["tenant", "context"]));
    expect(seen.upgraded).toEqual(seen.fresh);
  });

  it("gets a new version when a schema text or an upgrade step changes", () => {
    const step = (sql: SqlStorage) => sql.exec("DROP INDEX IF EXISTS a");
    const otherStep = (sql: SqlStorage) => sql.exec("DROP INDEX IF EXISTS b");
    const base = schemaVersion(["CREATE TABLE t (a)", step]);
    expect(schemaVersion(["CREATE TABLE t (a)", step])).toBe(base);
    expect(schemaVersion(["CREATE TABLE t (a, b)", step])).not.toBe(base);
    expect(schemaVersion(["CREATE TABLE t (a)", otherStep])).not.toBe(base);
  });
});
