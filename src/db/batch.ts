import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";

/** D1 allows 100 bound parameters per statement: how many rows of `columns` fit in one. */
export const rowsPerStatement = (columns: number) => Math.max(1, Math.floor(100 / columns));

/**
 * A list as ONE bound parameter, for `x in ${inJsonList(values)}`: binding each value would make a
 * statement's parameter count grow with the input past D1's 100.
 */
export const inJsonList = (values: readonly unknown[]): SQL => sql`(select value from json_each(${JSON.stringify(values)}))`;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs statements as one D1 batch (one round trip, atomic); an empty list runs nothing. */
export async function runBatch(db: Db, statements: BatchItem<"sqlite">[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const [first, ...rest] = statements;
  return db.batch([first!, ...rest]);
}
