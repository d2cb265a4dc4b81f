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

/**
 * One statement of a batch: a drizzle query, whose result is its rows mapped as `db.batch` maps
 * them, or a D1 statement bound by hand (delivery's hot statements: ./row-insert.ts,
 * ./case-update.ts, ./queries/trigger-rows.ts, ./queries/fact-events.ts), whose result is D1's
 * own `D1Result`.
 */
export type Statement = BatchItem<"sqlite"> | D1PreparedStatement;

/** Drizzle's query builders have no `bind`. */
const isD1 = (statement: Statement): statement is D1PreparedStatement => "bind" in statement;

/**
 * A drizzle query as its own D1 batch prepares it (drizzle-orm/d1/session.js). `_prepare` is
 * internal to drizzle's types: test/db/batch.test.ts fails if an upgrade changes what it answers.
 */
interface Prepared {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(response: unknown, isFromBatch?: boolean): unknown;
}
const prepared = (item: BatchItem<"sqlite">) => (item as unknown as { _prepare(): Prepared })._prepare();

/**
 * Runs statements as one D1 batch (one round trip, atomic), drizzle's queries and hand-bound
 * D1 statements mixed, each answering at its own index; an empty list runs nothing.
 */
export async function runBatch(db: Db, statements: readonly Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const d1 = db.$client;
  const mappers: (Prepared | null)[] = [];
  const bound = statements.map((statement) => {
    if (isD1(statement)) {
      mappers.push(null);
      return statement;
    }
    const query = prepared(statement);
    mappers.push(query);
    const { sql: text, params } = query.getQuery();
    return d1.prepare(text).bind(...params);
  });
  const results = await d1.batch(bound);
  return results.map((result, i) => {
    const mapper = mappers[i];
    return mapper ? mapper.mapResult(result, true) : result;
  });
}

/** A statement as text and driver values (strings, numbers, NULLs): what an outbox stores to run it later. */
export interface SerializedStatement {
  sql: string;
  params: unknown[];
}

/** The text and values of the statements bound by `bound`: a D1PreparedStatement does not show its own. */
const boundTexts = new WeakMap<D1PreparedStatement, SerializedStatement>();

/** A D1 statement bound by hand that can be serialized (`serialized`); every hand-bound builder of db/ makes its statements so. */
export function bound(d1: D1Database, text: string, params: unknown[]): D1PreparedStatement {
  const statement = d1.prepare(text).bind(...params);
  boundTexts.set(statement, { sql: text, params });
  return statement;
}

/** A statement of a batch as text and values, for an outbox (the log shard's, `LogShard.write`) to run it later. */
export function serialized(statement: Statement): SerializedStatement {
  if (!isD1(statement)) {
    const { sql: text, params } = prepared(statement).getQuery();
    return { sql: text, params };
  }
  const kept = boundTexts.get(statement);
  if (!kept) throw new Error("a D1 statement bound without bound() cannot be serialized");
  return kept;
}
