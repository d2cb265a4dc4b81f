import { and, asc, count, desc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

/**
 * The rows after a `[time, key]` cursor in a newest-first order by (time, key): older, or as old
 * with a lower key. The keyset predicate of the lists whose cursor is a time and a tie-breaker.
 */
export const olderThan = (time: SQLiteColumn, key: SQLiteColumn, [at, tie]: readonly [number, string]): SQL | undefined =>
  or(lt(time, new Date(at)), and(eq(time, new Date(at)), lt(key, tie)));

/** A page asked for by its neighbours: after one key, or before one, in either order. */
export interface KeysetWindow {
  after?: string;
  before?: string;
  limit: number;
  descending?: boolean;
  /** The row named by the cursor is part of the page. */
  includeCursor?: boolean;
}

export interface WindowPage<Row> {
  rows: Row[];
  next: string | null;
  previous: string | null;
}

/**
 * Keyset pagination both ways over one unique column. A page before a key is read in the
 * opposite order (so `LIMIT` keeps the rows nearest to it) and turned round; one extra row says
 * whether the scan has more. `previous` after a forward step is the page's first row, which may
 * turn out to have nothing before it if those rows were deleted in between.
 */
export function keysetWindow(column: SQLiteColumn, w: KeysetWindow) {
  const backward = w.before !== undefined && w.after === undefined;
  const anchor = backward ? w.before : w.after;
  const ascending = !w.descending !== backward;
  const compare = ascending ? (w.includeCursor ? gte : gt) : w.includeCursor ? lte : lt;
  return {
    where: anchor === undefined ? undefined : compare(column, anchor),
    orderBy: ascending ? asc(column) : desc(column),
    limit: w.limit + 1,
    page<Row>(fetched: readonly Row[], cursorOf: (row: Row) => string): WindowPage<Row> {
      const more = fetched.length > w.limit;
      const rows = fetched.slice(0, w.limit);
      if (backward) rows.reverse();
      const first = rows[0];
      const last = rows.at(-1);
      const cursor = (row: Row | undefined, when: boolean) => (row !== undefined && when ? cursorOf(row) : null);
      return backward
        ? { rows, next: cursor(last, true), previous: cursor(first, more) }
        : { rows, next: cursor(last, more), previous: cursor(first, anchor !== undefined) };
    },
  };
}

/** Counting stops here: a total over a whole environment would read every row. */
export const TOTAL_COUNT_CAP = 50_000;

/** A query counting the rows that match up to `cap + 1`, so the read stays bounded: batch it beside the page, then read it with `totalOf`. */
export const countUpTo = (db: Db, table: SQLiteTable, where: SQL | undefined, cap = TOTAL_COUNT_CAP) =>
  db.select({ n: count() }).from(
    db
      .select({ one: sql<number>`1`.as("one") })
      .from(table)
      .where(where)
      .limit(cap + 1)
      .as("matching"),
  );

/** A listing's total: the count up to `cap`, and whether there are more. */
export function totalOf(counted: readonly { n: number }[], cap = TOTAL_COUNT_CAP) {
  const n = counted[0]?.n ?? 0;
  return { totalCount: Math.min(n, cap), totalCountCapped: n > cap };
}
