import { and, asc, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { bumpContentStamp } from "../../db/queries/content-stamps";
import { workflows } from "../../db/schema";
import { toWorkflow } from "../workflows/shapes";

/** Live workflows of an environment beyond this are refused by a push rather than half-read. */
export const MAX_WORKFLOWS = 1000;

/** A push's reads and its one batch, on the environment's own handle (`Data.repository`). */
export function pushRepository(db: Db, environmentId: string) {
  return {
    /** Every live workflow, by key, without the log's last-triggered times a list page reads. */
    async workflows() {
      const rows = await db
        .select()
        .from(workflows)
        .where(and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt)))
        .orderBy(asc(workflows.key))
        .limit(MAX_WORKFLOWS);
      return rows.map(toWorkflow);
    },

    /** All the push's statements in one D1 batch: they land together or not at all. */
    async apply(statements: BatchItem<"sqlite">[], content: boolean) {
      const all = content ? [bumpContentStamp(db, environmentId), ...statements] : statements;
      const [first, ...rest] = all;
      if (first) await db.batch([first, ...rest]);
    },
  };
}
