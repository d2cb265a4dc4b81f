import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../client";

/** Who wrote a version, as every versioned concept's version rows keep it. */
export interface VersionAuthorColumns {
  authorType: "key" | "admin" | "dashboard";
  authorId: string | null;
  authorName: string;
}

/** The author of a version row, as the API shows it. */
export const versionAuthorOf = (row: VersionAuthorColumns) => ({ type: row.authorType, id: row.authorId, name: row.authorName });

/**
 * The version rows of one versioned thing (a layout, a partial, a locale, the brand): newest
 * first, optionally below a version (a page's cursor), or one by its number. `scope` names the
 * thing's rows (its environment, and its id or locale); `Row` is the table's row type.
 */
export function versionHistory<Row>(db: Db, table: SQLiteTable, version: SQLiteColumn, scope: SQL | undefined) {
  return {
    async list(limit: number, before?: number): Promise<Row[]> {
      const rows = await db
        .select()
        .from(table)
        .where(and(scope, before === undefined ? undefined : lt(version, before)))
        .orderBy(desc(version))
        .limit(limit);
      return rows as Row[];
    },

    async at(n: number): Promise<Row | undefined> {
      const [row] = await db
        .select()
        .from(table)
        .where(and(scope, eq(version, n)))
        .limit(1);
      return row as Row | undefined;
    },
  };
}
