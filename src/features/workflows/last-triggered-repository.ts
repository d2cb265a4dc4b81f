import { and, eq, sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { workflows } from "../../db/schema";

/**
 * Moves each workflow's `last_triggered_at` forward to `at`, never back (isolates write in any
 * order), in one D1 batch. Only that column: no version, `updated_at` or audit entry, since a
 * trigger changes nothing a save, a diff or an export compares.
 */
export async function recordLastTriggered(db: Db, environmentId: string, accepted: { workflowId: string; at: number }[]) {
  const statements = accepted.map(({ workflowId, at }) =>
    db
      .update(workflows)
      .set({ lastTriggeredAt: sql`max(coalesce(${workflows.lastTriggeredAt}, 0), ${at})` })
      .where(and(eq(workflows.environmentId, environmentId), eq(workflows.id, workflowId))),
  );
  if (statements.length > 0) await runBatch(db, statements);
}
