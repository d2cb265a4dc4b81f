import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const made = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof made>;

/**
 * One drizzle instance per D1 binding and isolate: building one reads the whole schema's
 * relations, which cost the accept path about 5 % of its CPU when every request made its own.
 */
const instances = new WeakMap<D1Database, Db>();
export function createDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = made(d1);
    instances.set(d1, db);
  }
  return db;
}
