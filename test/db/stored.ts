import { env } from "cloudflare:test";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * Every column of the rows whose `column` is one of `keys`, as SQL literals (`quote()`), ordered
 * by `column`: a value stored with another type or encoding shows.
 */
export async function storedRows(table: SQLiteTable, column: string, keys: readonly string[]) {
  const select = Object.values(getTableColumns(table))
    .map((c) => `quote("${c.name}") AS "${c.name}"`)
    .join(", ");
  const rows = await env.DB.prepare(
    `SELECT ${select} FROM "${getTableName(table)}" WHERE "${column}" IN (SELECT value FROM json_each(?)) ORDER BY "${column}"`,
  )
    .bind(JSON.stringify(keys))
    .all();
  return rows.results;
}
