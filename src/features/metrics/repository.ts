import { count, gte, sql } from "drizzle-orm";
import { environments, webhookAttempts } from "../../db/schema";
import { unscopedDb } from "../../db/unscoped";

type D1Env = { DB: D1Database };

/** Every environment of the deployment: the `environment` label is its slug. */
export const allEnvironments = (env: D1Env) => unscopedDb(env).select({ id: environments.id, slug: environments.slug }).from(environments);

export interface AttemptCount {
  environmentId: string;
  status: "succeeded" | "failed";
  retry: boolean;
  n: number;
}

/**
 * Webhook delivery attempts made since `since`, per environment, outcome and whether it was a
 * retry: a range of the (created_at) index, so a scrape reads the window's attempts only.
 */
export function webhookAttemptCounts(env: D1Env, since: number): Promise<AttemptCount[]> {
  const retry = sql<number>`${webhookAttempts.attempt} > 1`;
  return unscopedDb(env)
    .select({ environmentId: webhookAttempts.environmentId, status: webhookAttempts.status, retry, n: count() })
    .from(webhookAttempts)
    .where(gte(webhookAttempts.createdAt, new Date(since)))
    .groupBy(webhookAttempts.environmentId, webhookAttempts.status, retry)
    .then((rows) => rows.map((r) => ({ ...r, retry: Boolean(r.retry) })));
}
