import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { workflows } from "../../db/schema";
import type { Workflow } from "./schemas";
import { toWorkflow } from "./shapes";

/** One environment's live workflows, the predicate every read and write of them starts from. */
export function workflowScope(db: Db, environmentId: string) {
  // Tombstones (deleted workflows kept for the triggers accepted before) are invisible to the API.
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  const byKey = (key: string) => and(live, eq(workflows.key, key));
  const find = async (key: string): Promise<Workflow | null> => {
    const [row] = await db.select().from(workflows).where(byKey(key)).limit(1);
    return row ? toWorkflow(row) : null;
  };
  return { db, environmentId, live, byKey, find };
}

export type WorkflowScope = ReturnType<typeof workflowScope>;
