import { createDb, type Db } from "../db/client";

interface RequestScope {
  env: { DB: D1Database; ENCRYPTION_KEY?: string };
  get: (key: "environmentId") => string;
}

/** A feature's repository bound to the environment of the request's API key: `const repo = scopedRepository(topicsRepository)`. */
export const scopedRepository =
  <R>(factory: (db: Db, environmentId: string, encryptionKey: string | undefined) => R) =>
  (c: RequestScope): R =>
    factory(createDb(c.env.DB), c.get("environmentId"), c.env.ENCRYPTION_KEY);
