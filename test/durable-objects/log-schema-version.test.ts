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

  it("gets a new version when a schema text or an upgrade step changes", () => {
    const step = (sql: SqlStorage) => sql.exec("DROP INDEX IF EXISTS a");
    const otherStep = (sql: SqlStorage) => sql.exec("DROP INDEX IF EXISTS b");
    const base = schemaVersion(["CREATE TABLE t (a)", step]);
    expect(schemaVersion(["CREATE TABLE t (a)", step])).toBe(base);
    expect(schemaVersion(["CREATE TABLE t (a, b)", step])).not.toBe(base);
    expect(schemaVersion(["CREATE TABLE t (a)", otherStep])).not.toBe(base);
  });
});
