import { createDb } from "../../src/db/client";

/** What a hand-bound statement was prepared and bound with. */
export interface Recorded {
  sql: string;
  params: unknown[];
}

/**
 * A D1 binding whose statements record their text and bound values instead of running, and a
 * drizzle instance over it: what the hand-bound statements give D1 (the parameters a statement
 * binds, its SQL for EXPLAIN QUERY PLAN).
 */
export const recordingD1 = {
  prepare: (sql: string) => ({ bind: (...params: unknown[]): Recorded => ({ sql, params }) }),
} as unknown as D1Database;
export const recordingDb = createDb(recordingD1);

export const recorded = (statement: D1PreparedStatement) => statement as unknown as Recorded;
