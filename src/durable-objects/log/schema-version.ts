import { fnv1a } from "../client/naming";

/**
 * A log shard brings its tables to this code's schema when it starts: about twenty `CREATE … IF
 * NOT EXISTS`, three `PRAGMA table_info` and their upgrades, some 7 ms of a local start (a cold
 * 10,000-member topic started 16 shards, ~3 % of its busy time). An object starts again after
 * every eviction, so a deployment pays it all day. The shard keeps the version it was last
 * brought to in `settings`, and a start of the same code skips the work.
 *
 * The version hashes the schema texts and the upgrade functions' own source: a changed table,
 * column list or upgrade step (a dropped index, say) changes it without anyone remembering to.
 * A build that only renames an upgrade function's locals changes it too, which costs one full
 * start per shard, nothing more.
 */
export function schemaVersion(parts: readonly (string | ((...args: never[]) => unknown))[]): string {
  return fnv1a(parts.map((p) => (typeof p === "string" ? p : p.toString())).join("\n")).toString(36);
}

/** Whether this shard was brought to `version` already; false for a new shard (no `settings` yet) or one left by older code. */
export function schemaIsCurrent(sql: SqlStorage, version: string): boolean {
  const hasSettings = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").toArray().length > 0;
  if (!hasSettings) return false;
  return sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'schema'").toArray()[0]?.value === version;
}

/** Records that the shard's tables are at `version`: after every step of the full start ran. */
export function markSchemaCurrent(sql: SqlStorage, version: string): void {
  sql.exec("INSERT INTO settings (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", version);
}
