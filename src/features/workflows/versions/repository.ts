import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type WorkflowDefinition, workflowVersions } from "../../../db/schema";
import type { Actor } from "../../../env";
import { newId } from "../../../lib/ids";
import { keysetPage } from "../../../lib/pagination";
import { versionCursor, type WorkflowVersion } from "./schemas";

type Row = typeof workflowVersions.$inferSelect;
export type VersionAction = Row["action"];

const toVersion = (row: Row): WorkflowVersion => ({
  version: row.version,
  action: row.action,
  author: { type: row.authorType, id: row.authorId, name: row.authorName },
  summary: row.summary,
  createdAt: row.createdAt.toISOString(),
  definition: row.definition,
});

export interface VersionWrite {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  action: VersionAction;
  actor: Actor;
  summary: string;
  at: Date;
}

/**
 * The version row, inserted only if the workflow's row now carries that version: put after the
 * workflow's own write in one batch, it is written exactly when that write happened, in the same
 * round trip. `OR IGNORE`: a concurrent writer that took the number first keeps it.
 */
export const insertVersion = (db: Db, environmentId: string, write: VersionWrite) =>
  db
    .insert(workflowVersions)
    // Columns in the table's order, as drizzle names them for an INSERT ... SELECT.
    .select(
      sql`SELECT ${newId("wfv")}, environment_id, id, key, version, ${JSON.stringify(write.definition)}, ${write.action},
        ${write.actor.type}, ${write.actor.id}, ${write.actor.name}, ${write.summary}, ${write.at.getTime()}
      FROM workflows WHERE environment_id = ${environmentId} AND id = ${write.workflowId} AND version = ${write.version}`,
    )
    .onConflictDoNothing();

/** The versions of one workflow (by its id, so a new workflow under a deleted one's key starts afresh). */
export function versionsRepository(db: Db, environmentId: string) {
  const of = (workflowId: string) => and(eq(workflowVersions.environmentId, environmentId), eq(workflowVersions.workflowId, workflowId));
  return {
    /** Newest first, from a cursor of this list. */
    async list(workflowId: string, limit: number, cursor?: string) {
      const [before] = versionCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(workflowVersions)
        .where(and(of(workflowId), before === undefined ? undefined : lt(workflowVersions.version, before)))
        .orderBy(desc(workflowVersions.version))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => versionCursor.encode([last.version]));
      return { data: page.rows.map(toVersion), nextCursor: page.nextCursor };
    },

    async find(workflowId: string, version: number): Promise<WorkflowVersion | null> {
      const [row] = await db
        .select()
        .from(workflowVersions)
        .where(and(of(workflowId), eq(workflowVersions.version, version)))
        .limit(1);
      return row ? toVersion(row) : null;
    },
  };
}
