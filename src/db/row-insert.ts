import { type Column, getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { bound, chunk, rowsPerStatement } from "./batch";

type Insert<T extends SQLiteTable> = T["$inferInsert"];

/** A row as a RowInsert takes it: its columns and no other (a column left out of the insert would be lost silently). */
export type RowOf<R> = R extends RowInsert<infer T, infer K> ? Pick<Insert<T>, K> : never;

/** An identifier as SQL text. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Multi-row INSERTs of one table's chosen columns, as D1 statements bound by hand. Built through
 * drizzle, a delivery phase's inserts cost the delivery isolate much of the 16-20 % of its CPU
 * that drizzle took in a profile of 2,000 single triggers (`is()` alone 7.9 % self, a Param per
 * value, `buildInsertQuery`). Here the SQL text is made once per row count, and each value goes
 * through its column's own drizzle mapper, so a row is stored as drizzle's insert stored it
 * (test/db/row-insert.test.ts writes the same rows both ways).
 */
export class RowInsert<T extends SQLiteTable, K extends keyof Insert<T> & string> {
  /** Rows per statement: D1 binds at most 100 parameters. */
  readonly rowsPerStatement: number;
  private readonly columns: { key: K; column: Column; fallback: unknown }[];
  private readonly head: string;
  private readonly tail: string;
  /** The statement's text per number of rows. */
  private readonly texts = new Map<number, string>();

  /** `onConflict`: the clause after ON CONFLICT, as SQL text (`do nothing`, or a target and its `do update set …`). */
  constructor(table: T, keys: readonly K[], options: { onConflict?: string } = {}) {
    const all: Record<string, Column> = getTableColumns(table);
    this.columns = keys.map((key) => {
      const column = all[key];
      if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
      // Drizzle fills an undefined value from the column's default; only a constant one is done the same here.
      if (column.defaultFn || column.onUpdateFn || is(column.default, SQL))
        throw new Error(`${getTableName(table)}.${key}: a default other than a constant is not written by RowInsert`);
      return { key, column, fallback: column.default == null ? null : column.mapToDriverValue(column.default) };
    });
    this.rowsPerStatement = rowsPerStatement(keys.length);
    this.head = `insert into ${quoted(getTableName(table))} (${this.columns.map((c) => quoted(c.column.name)).join(", ")}) values `;
    this.tail = options.onConflict ? ` on conflict ${options.onConflict}` : "";
  }

  /** The rows in as few statements as D1's 100 parameters allow, in their order. */
  statements(d1: D1Database, rows: readonly Pick<Insert<T>, K>[]): D1PreparedStatement[] {
    return chunk(rows, this.rowsPerStatement).map((part) => {
      const params: unknown[] = [];
      for (const row of part) {
        for (const { key, column, fallback } of this.columns) {
          const value: unknown = row[key];
          // As drizzle binds them: undefined takes the default (or NULL), null stays NULL, the rest goes through the column's mapper.
          params.push(value === undefined ? fallback : value === null ? null : column.mapToDriverValue(value));
        }
      }
      return bound(d1, this.text(part.length), params);
    });
  }

  private text(rows: number): string {
    let text = this.texts.get(rows);
    if (text === undefined) {
      const tuple = `(${this.columns.map(() => "?").join(", ")})`;
      text = this.head + Array.from({ length: rows }, () => tuple).join(", ") + this.tail;
      this.texts.set(rows, text);
    }
    return text;
  }
}
