import { type Column, getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { TEXT_PART_ROWS } from "../lib/json-parts";
import { bound, rowsPerStatement } from "./batch";

type Insert<T extends SQLiteTable> = T["$inferInsert"];

/** A row as a RowInsert takes it: its columns and no other (a column left out of the insert would be lost silently). */
export type RowOf<R> = R extends RowInsert<infer T, infer K> ? Pick<Insert<T>, K> : never;

/** An identifier as SQL text. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The rows of one statement, as UTF-16 units of their JSON: at most 1.5 MB in UTF-8, under D1's
 * 2 MB per bound value.
 */
export const JSON_ROWS_BUDGET = 500_000;

/** A driver value JSON carries and json_extract gives back as the same SQL value (TEXT, INTEGER, REAL, NULL). */
const jsonSafe = (value: unknown) => value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));

/**
 * Multi-row INSERTs of one table's chosen columns, as D1 statements bound by hand. Built through
 * drizzle, a delivery phase's inserts cost the delivery isolate much of the 16-20 % of its CPU
 * that drizzle took in a profile of 2,000 single triggers (`is()` alone 7.9 % self, a Param per
 * value, `buildInsertQuery`). Here the SQL text is made once per row count, and each value goes
 * through its column's own drizzle mapper, so a row is stored as drizzle's insert stored it
 * (test/db/row-insert.test.ts writes the same rows both ways).
 *
 * The rows go as ONE bound JSON list (`WITH part(v) AS MATERIALIZED (SELECT value FROM
 * json_each(?)) INSERT … SELECT json_extract(v, '$[i]') … FROM part`, lib/json-parts.ts `TEXT_PART_ROWS`), so a
 * thousand rows are one statement, not one per 100 bound parameters: D1 counts statements, and
 * its single writer caps a deployment by them. Only a list past JSON_ROWS_BUDGET is split; a row
 * JSON cannot carry as its columns' values (a blob, a huge value) is bound value by value, as
 * before.
 */
export class RowInsert<T extends SQLiteTable, K extends keyof Insert<T> & string> {
  /** Rows per statement bound value by value: D1 binds at most 100 parameters. */
  readonly rowsPerStatement: number;
  private readonly columns: { key: K; column: Column; fallback: unknown }[];
  private readonly head: string;
  private readonly tail: string;
  /** The statement's text per number of rows. */
  private readonly texts = new Map<number, string>();
  /** The statement taking the rows as one JSON list. */
  private readonly jsonText: string;

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
    // `where true`: SQLite reads an ON CONFLICT after a bare FROM as a join's ON. The rows are
    // materialised first (TEXT_PART_ROWS): read from json_each, each value extracted renders its row's
    // JSON text again.
    const extracts = this.columns.map((_, i) => `json_extract(v, '$[${i}]')`).join(", ");
    this.jsonText = `${TEXT_PART_ROWS} ${this.head.slice(0, -" values ".length)} select ${extracts} from part where true${this.tail}`;
  }

  /** The rows in as few statements as D1's limits allow (one, but for a list of megabytes), in their order. */
  statements(d1: D1Database, rows: readonly Pick<Insert<T>, K>[]): D1PreparedStatement[] {
    const out: D1PreparedStatement[] = [];
    let list: string[] = [];
    let size = 0;
    const flush = () => {
      if (list.length) out.push(bound(d1, this.jsonText, [`[${list.join(",")}]`]));
      list = [];
      size = 0;
    };
    for (const row of rows) {
      const values = this.values(row);
      const json = values.every(jsonSafe) ? JSON.stringify(values) : null;
      if (json === null || json.length > JSON_ROWS_BUDGET) {
        // In its place in the order: a later row of the same key meets it as it would have.
        flush();
        out.push(bound(d1, this.text(1), values));
        continue;
      }
      if (size + json.length + 1 > JSON_ROWS_BUDGET) flush();
      list.push(json);
      size += json.length + 1;
    }
    flush();
    return out;
  }

  /** A row's driver values in the columns' order. */
  private values(row: Pick<Insert<T>, K>): unknown[] {
    return this.columns.map(({ key, column, fallback }) => {
      const value: unknown = row[key];
      // As drizzle binds them: undefined takes the default (or NULL), null stays NULL, the rest goes through the column's mapper.
      return value === undefined ? fallback : value === null ? null : column.mapToDriverValue(value);
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
