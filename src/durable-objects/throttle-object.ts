import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/**
 * One object per (environment, workflow, subscriber, throttle key): counts the runs that
 * passed within the window. Each trigger's decision is kept, so a redelivered job gets the
 * same answer instead of using up the limit twice.
 */
export class ThrottleObject extends DurableObject<Bindings> {
  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS runs (transaction_id TEXT PRIMARY KEY, at INTEGER NOT NULL, passed INTEGER NOT NULL)");
  }

  async take(transactionId: string, windowMs: number, limit: number, now = Date.now()): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    const seen = sql.exec<{ passed: number }>("SELECT passed FROM runs WHERE transaction_id = ?", transactionId).toArray()[0];
    if (seen) return seen.passed === 1;
    sql.exec("DELETE FROM runs WHERE at <= ?", now - windowMs);
    const passedInWindow = sql.exec<{ n: number }>("SELECT count(*) AS n FROM runs WHERE passed = 1").one().n;
    const passed = passedInWindow < limit;
    sql.exec("INSERT INTO runs (transaction_id, at, passed) VALUES (?, ?, ?)", transactionId, now, passed ? 1 : 0);
    return passed;
  }
}
