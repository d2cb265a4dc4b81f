import { and, asc, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { bound, runBatch, type Statement } from "../../db/batch";
import type { Db } from "../../db/client";
import { bumpContentStamp } from "../../db/queries/content-stamps";
import { workflows } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { toWorkflow } from "../workflows/shapes";
import type { PushChange } from "./schemas";

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

    /**
     * All the push's statements in one D1 batch: they land together or not at all. The batch opens
     * with a guard per change, so a save that landed since the push read the environment fails the
     * whole batch (409 `content_changed`) instead of leaving that one resource's write undone.
     */
    async apply(changes: PushChange[], statements: BatchItem<"sqlite">[], content: boolean) {
      const guards = changes.map((change) => versionGuard(db, environmentId, change));
      const all: Statement[] = [...guards, ...(content ? [bumpContentStamp(db, environmentId)] : []), ...statements];
      try {
        await runBatch(db, all);
      } catch (error) {
        if (!String(error).includes(GUARD_FAILED)) throw error;
        throw new ApiError("content_changed", "Another save changed what this push changes since it read it: nothing was changed.");
      }
    },
  };
}

/** What a failed guard's error says: `json_extract` of text that is not JSON is an error, which fails the batch. */
const GUARD_FAILED = "malformed JSON";

/** Where each resource's version is kept; a deleted workflow's row stays, so only live rows count. */
const VERSIONED = {
  workflow: "SELECT version FROM workflows WHERE environment_id = ?1 AND key = ?2 AND deleted_at IS NULL",
  layout: "SELECT version FROM layouts WHERE environment_id = ?1 AND key = ?2",
  partial: "SELECT version FROM partials WHERE environment_id = ?1 AND key = ?2",
  translations: "SELECT version FROM translations WHERE environment_id = ?1 AND locale = ?2",
  // One brand per environment (its key is "brand"); a version 0 row is one never saved: a push adds it.
  brand: "SELECT nullif(version, 0) FROM brands WHERE environment_id = ?1 AND ?2 = 'brand'",
} as const;

/** A statement that fails unless the resource is still at the version the push planned from (absent, for one it adds). */
export function versionGuard(db: Db, environmentId: string, change: PushChange) {
  const expected = change.change === "added" ? null : change.version - 1;
  return bound(db.$client, `SELECT CASE WHEN (${VERSIONED[change.resource]}) IS ?3 THEN 1 ELSE json_extract('stale', '$') END`, [
    environmentId,
    change.key,
    expected,
  ]);
}
