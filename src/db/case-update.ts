import { type Column, getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { bound } from "./batch";
import { quoted } from "./row-insert";

type Insert<T extends SQLiteTable> = T["$inferInsert"];

/** One row's new values, by the row's key; a column missing from `values` is set to NULL. */
export interface KeyedValues<K extends string> {
  key: string;
  values: Partial<Record<K, unknown>>;
}

/**
 * Many rows of one table updated by key, each with its own values, in few statements bound by hand:
 * values the rows share are set once, the others by `CASE key WHEN … THEN … END`, and
 * `WHERE key IN (…)`. The statement drizzle built for this (its update builder over `sql` CASE
 * chunks, a Param per value) cost the delivery isolate its query-building CPU for every sent
 * message; here the text is made once per shape, and each value goes through its column's own
 * drizzle mapper, so a row is stored as drizzle's update stored it (test/db/case-update.test.ts).
 */
export class CaseUpdate<T extends SQLiteTable> {
  /** The table's columns in its order, the order drizzle's update sets them in. */
  private readonly columns: [string, Column][];
  private readonly head: string;
  private readonly key: Column;
  private readonly keyColumn: string;
  /** The statement's text per shape: columns shared or varying, and the number of rows. */
  private readonly texts = new Map<string, string>();

  constructor(table: T, key: keyof Insert<T> & string) {
    this.columns = Object.entries(getTableColumns(table));
    const keyColumn = this.columns.find(([name]) => name === key)?.[1];
    if (!keyColumn) throw new Error(`${getTableName(table)} has no column ${key}`);
    // Drizzle's update also sets every column that has one; the statements here would not.
    const onUpdate = this.columns.find(([, column]) => column.onUpdateFn);
    if (onUpdate) throw new Error(`${getTableName(table)}.${onUpdate[0]}: a column updated by a function is not written by CaseUpdate`);
    this.key = keyColumn;
    this.head = `update ${quoted(getTableName(table))} set `;
    this.keyColumn = `${quoted(getTableName(table))}.${quoted(keyColumn.name)}`;
  }

  /**
   * Statements setting `columns` of each row of `rows` to its values, as few as D1's 100 bound
   * parameters allow (a shared value takes one, a varying one two per row, and each row its key).
   * Which values are shared is decided over all `rows`, as one drizzle statement per chunk did.
   */
  statements<K extends keyof Insert<T> & string>(
    d1: D1Database,
    columns: readonly K[],
    rows: readonly KeyedValues<K>[],
  ): D1PreparedStatement[] {
    if (rows.length === 0) return [];
    const set = this.columns.filter(([key]) => columns.includes(key as K));
    if (set.length !== new Set(columns).size) throw new Error(`not columns of the table: ${columns.join(", ")}`);
    // As drizzle binds them: null (or a missing value) stays NULL, the rest goes through the column's mapper.
    const values = rows.map((row) =>
      set.map(([key, column]) => {
        const value: unknown = row.values[key as K];
        return value == null ? null : column.mapToDriverValue(value);
      }),
    );
    const first = values[0]!;
    // Driver values are strings, numbers and NULLs, equal when identical.
    const shared = set.map((_, c) => values.every((v) => v[c] === first[c]));
    const sharedCount = shared.filter(Boolean).length;
    const perStatement = Math.max(1, Math.floor((100 - sharedCount) / (1 + 2 * (set.length - sharedCount))));
    const shape = set.map(([key], c) => (shared[c] ? "=" : "~") + key).join(",");
    const statements: D1PreparedStatement[] = [];
    for (let start = 0; start < rows.length; start += perStatement) {
      const end = Math.min(rows.length, start + perStatement);
      const params: unknown[] = [];
      for (let c = 0; c < set.length; c++) {
        if (shared[c]) params.push(first[c]);
        else for (let i = start; i < end; i++) params.push(rows[i]!.key, values[i]![c]);
      }
      // The CASE's keys are bound as they are, the IN list's through the key's mapper: as drizzle bound each.
      for (let i = start; i < end; i++) params.push(this.key.mapToDriverValue(rows[i]!.key));
      statements.push(bound(d1, this.text(set, shared, shape, end - start), params));
    }
    return statements;
  }

  private text(set: [string, Column][], shared: boolean[], shape: string, rows: number): string {
    const cacheKey = `${shape}/${rows}`;
    let text = this.texts.get(cacheKey);
    if (text === undefined) {
      const cases = `CASE ${this.keyColumn} ${Array.from({ length: rows }, () => "WHEN ? THEN ?").join(" ")} END`;
      const assignments = set.map(([, column], c) => `${quoted(column.name)} = ${shared[c] ? "?" : cases}`);
      const keys = Array.from({ length: rows }, () => "?").join(", ");
      text = `${this.head}${assignments.join(", ")} where ${this.keyColumn} in (${keys})`;
      this.texts.set(cacheKey, text);
    }
    return text;
  }
}
