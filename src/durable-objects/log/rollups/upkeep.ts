import type { Bindings } from "../../../env";
import { DAY_MS } from "./rows";
import { ROLLUP_TABLES } from "./schema";

/** How long rollups are kept: ANALYTICS_RETENTION_DAYS (default 400), past the messages they count. */
export const analyticsRetentionMs = (env: Pick<Bindings, "ANALYTICS_RETENTION_DAYS">) => {
  const days = Number(env.ANALYTICS_RETENTION_DAYS);
  return (Number.isInteger(days) && days > 0 ? days : 400) * DAY_MS;
};

/** Deletes rollup rows older than `before`; answers how many went. */
export function expireRollups(sql: SqlStorage, before: number): number {
  let removed = 0;
  for (const [table, time] of ROLLUP_TABLES) removed += sql.exec(`DELETE FROM ${table} WHERE ${time} < ?`, before).rowsWritten;
  return removed;
}

/**
 * Erasure keeps the counts and drops the person: a subscriber's daily volumes are kept under an
 * id that names no one (a fresh one per erasure, so two erased subscribers stay two in the figures).
 */
export function eraseRollupSubscriber(sql: SqlStorage, environmentId: string, subscriberId: string): void {
  sql.exec(
    "UPDATE rollup_fatigue SET subscriber = ? WHERE env = ? AND subscriber = ?",
    `erased:${crypto.randomUUID()}`,
    environmentId,
    subscriberId,
  );
}
