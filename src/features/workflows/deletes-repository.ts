import { and, eq, inArray, lt, notExists, sql } from "drizzle-orm";
import type { LogStore } from "../../durable-objects/client/log-store";
import { triggers, workflows } from "../../db/schema";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { forgetGate } from "./gate-cache";
import type { WorkflowScope } from "./scope-repository";
import type { Workflow } from "./schemas";
import { definitionOf, RACE_RETRIES, type WriteOutcome } from "./shapes";
import { insertVersion } from "./versions/repository";

/** Deleting a workflow: the soft delete that leaves a tombstone. */
export function workflowDeletes({ db, environmentId, byKey, find }: WorkflowScope) {
  /** A delete's statements: the tombstone (only from the version read), its last version, the audit entry. */
  const removeStatements = (current: Workflow, context: AuditContext, now: Date) => {
    const version = current.version + 1;
    const definition = definitionOf(current);
    return [
      db
        .update(workflows)
        .set({ deletedAt: now, version })
        .where(and(byKey(current.key), eq(workflows.id, current.id), eq(workflows.version, current.version)))
        .returning({ id: workflows.id }),
      insertVersion(db, environmentId, {
        workflowId: current.id,
        version,
        definition,
        action: "deleted",
        actor: context.actor,
        summary: "Deleted",
        at: now,
      }),
      auditStatement(db, context, {
        environmentId,
        resource: "workflow",
        resourceId: current.key,
        action: "deleted",
        before: definition,
        after: null,
      }),
    ] as const;
  };

  return {
    removeStatements,
    /**
     * Soft delete: the row stays as a tombstone, so triggers accepted before now still run the
     * steps they were accepted for (the engine reads workflows by id); the key is free at once.
     * Its last version says who deleted it.
     */
    async remove(key: string, context: AuditContext, ifMatch?: readonly number[], now = new Date()): Promise<WriteOutcome<true>> {
      for (let attempt = 0; ; attempt++) {
        const current = await find(key);
        if (!current) return { status: "missing" };
        if (ifMatch && !ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const [rows] = await db.batch(removeStatements(current, context, now));
        forgetGate(environmentId, key);
        if (rows.length > 0) return { status: "ok", value: true };
        if (ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: current.version + 1 };
      }
    },
  };
}

/** Purging tombstones: hard deletes of what no unfinished trigger needs any more, for the retention job. */
export function tombstonePurge({ db, environmentId }: WorkflowScope, logs: LogStore) {
  return {
    /**
     * Hard-deletes tombstones deleted before `olderThan` that no unfinished trigger accepted before
     * the delete still needs; for a retention job. Returns how many went.
     */
    async purgeDeletedWorkflows(olderThan: Date): Promise<number> {
      // D1's trigger records from before the log took them, until they expire.
      const stillNeeded = db
        .select({ one: sql`1` })
        .from(triggers)
        .where(
          and(
            eq(triggers.environmentId, workflows.environmentId),
            eq(triggers.workflowKey, workflows.key),
            sql`${triggers.acceptedAt} <= ${workflows.deletedAt}`,
            inArray(triggers.status, ["accepted", "processing"]),
          ),
        );
      const candidates = await db
        .select({ id: workflows.id, key: workflows.key, deletedAt: workflows.deletedAt })
        .from(workflows)
        .where(and(eq(workflows.environmentId, environmentId), lt(workflows.deletedAt, olderThan), notExists(stillNeeded)));
      if (candidates.length === 0) return 0;
      // The log's: one call per shard for every tombstone at once.
      const needed = await logs.unfinishedTriggers(
        environmentId,
        candidates.map((c) => [c.key, c.deletedAt?.getTime() ?? 0]),
      );
      const gone = candidates.filter((c) => !needed.has(`${c.deletedAt?.getTime() ?? 0}:${c.key}`)).map((c) => c.id);
      if (gone.length === 0) return 0;
      const rows = await db
        .delete(workflows)
        .where(and(eq(workflows.environmentId, environmentId), inArray(workflows.id, gone), notExists(stillNeeded)))
        .returning({ id: workflows.id });
      return rows.length;
    },
  };
}
