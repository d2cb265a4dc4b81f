import { createDb, type Db } from "./client";

/**
 * The one entry point to D1 for work that is not one environment's: the key lookup that finds a
 * request's environment, the environments and the admin API, dashboard and Inbox sessions,
 * `Idempotency-Key` answers (scoped by a string of their own), the cron's sweeps, and the jobs
 * and callbacks whose rows span environments or name theirs (delivery's consumer batches, the
 * webhook Queue, provider callbacks, tracking links). Everything that works inside one
 * environment holds that environment's `Data` (features/data.ts) instead: `c.var.data` in a
 * route, `dataOf(env, environmentId)` elsewhere. Only src/db/ and features/data.ts call
 * `createDb` (.dependency-cruiser.cjs).
 */
export const unscopedDb = (env: { DB: D1Database }): Db => createDb(env.DB);
