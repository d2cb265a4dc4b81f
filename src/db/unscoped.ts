import { createDb, type Db } from "./client";

/**
 * The one entry point to D1 for work that is not one environment's: the key lookup that finds a
 * request's environment, the environments and the admin API, dashboard and Inbox sessions,
 * `Idempotency-Key` answers (scoped by a string of their own), the admin audit log and
 * promotions, the cron's sweeps, and the batches and callbacks whose rows span environments or
 * name theirs (delivery's consumer batches, the webhook Queue, provider callbacks, tracking links).
 * Delivery and the Inbox socket object, below features/, cannot hold `Data`: each of their
 * statements takes the environment of its job or socket. Everything else that works inside one
 * environment holds that environment's `Data` (features/data.ts) instead: `c.var.data` in a
 * route, `dataOf(env, environmentId)` elsewhere. Only src/db/ and features/data.ts call
 * `createDb` (.dependency-cruiser.cjs, rule d1-handle-only-in-data).
 */
export const unscopedDb = (env: { DB: D1Database }): Db => createDb(env.DB);
