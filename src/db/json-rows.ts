import { type Column, getTableColumns } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { quoted } from "./row-insert";

/**
 * A table's rows packed as JSON inside another statement's answer, so that reads of several
 * tables are one statement (D1 counts statements, and its single writer caps a deployment by
 * them): `packedRow` is the SQL of one row as a JSON array of its stored values, `unpackedRow`
 * gives back the row drizzle's select would have (each value through its column's mapper: json
 * columns parsed, timestamps as dates, booleans). For tables without blob columns.
 */
export function packedRow(table: SQLiteTable, alias: string): string {
  return `json_array(${columnsOf(table)
    .map((c) => `${quoted(alias)}.${quoted(c.name)}`)
    .join(", ")})`;
}

/** A row packed by `packedRow`, as drizzle's select maps it. */
export function unpackedRow<T extends SQLiteTable>(table: T, values: readonly unknown[]): T["$inferSelect"] {
  const row: Record<string, unknown> = {};
  Object.entries(getTableColumns(table)).forEach(([key, column], i) => {
    const value = values[i];
    // Drizzle maps no NULL: it stays null whatever the column's mode.
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  });
  return row as T["$inferSelect"];
}

const columnsOf = (table: SQLiteTable): Column[] => Object.values(getTableColumns(table));
