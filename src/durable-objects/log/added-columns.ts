/**
 * Adds to `table` the `columns` it does not have yet: a shard created before a column was added
 * keeps its table as it was (CREATE TABLE IF NOT EXISTS leaves an existing table alone), and its
 * old rows read the column's default. Part of a shard's start (schema-version.ts hashes it).
 */
export function addColumnsMissingFrom(sql: SqlStorage, table: string, columns: readonly (readonly [string, string])[]): void {
  const present = new Set(
    sql
      .exec<{ name: string }>(`PRAGMA table_info(${table})`)
      .toArray()
      .map((c) => c.name),
  );
  for (const [name, type] of columns) if (!present.has(name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
}
