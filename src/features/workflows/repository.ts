import { and, asc, eq, gt, inArray, isNull, lt, notExists, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { triggers, workflows } from "../../db/schema";
import { newId } from "../../lib/ids";
import { forgetGate } from "./gate-cache";
import type { Workflow, WorkflowInput, WorkflowListFilter, WorkflowSummary } from "./schemas";
import { keysetPage } from "../../lib/pagination";

type Row = typeof workflows.$inferSelect;

/** LIKE with `\\` as its escape, so a search for `50%` or `a_b` matches those characters. */
const likeEscaped = (column: typeof workflows.key | typeof workflows.name, pattern: string) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;

const toWorkflow = (row: Row): Workflow => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  active: row.active,
  critical: row.critical,
  tags: row.tags,
  payloadSchema: row.payloadSchema ?? null,
  steps: row.steps,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Workflows of one environment: the environment is fixed once, so no query can forget it. */
export function workflowsRepository(db: Db, environmentId: string) {
  // Tombstones (deleted workflows kept for the triggers accepted before) are invisible to the API.
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  const byKey = (key: string) => and(live, eq(workflows.key, key));
  const columns = (input: WorkflowInput) => ({
    name: input.name,
    description: input.description ?? null,
    active: input.active,
    critical: input.critical,
    tags: input.tags,
    payloadSchema: input.payloadSchema ?? null,
    steps: input.steps,
  });

  /** The list's query, unrun: `list` runs it, and a test reads its plan. */
  const listQuery = (limit: number, after?: string, filter: WorkflowListFilter = {}) => {
    // A read only: the trigger path writes nothing for it, and an index makes it one seek per workflow.
    // Spelt out: drizzle leaves a column unqualified here, and inside the subquery an unqualified
    // environment_id would be the trigger's own, matching every environment.
    const lastTriggered = sql<
      number | null
    >`(SELECT max(t.accepted_at) FROM triggers AS t WHERE t.environment_id = "workflows"."environment_id" AND t.workflow_key = "workflows"."key")`;
    const pattern = filter.q ? `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
    return db
      .select({ row: workflows, lastTriggered })
      .from(workflows)
      .where(
        and(
          live,
          after ? gt(workflows.key, after) : undefined,
          filter.active === undefined ? undefined : eq(workflows.active, filter.active),
          pattern ? or(likeEscaped(workflows.key, pattern), likeEscaped(workflows.name, pattern)) : undefined,
        ),
      )
      .orderBy(asc(workflows.key))
      .limit(limit + 1);
  };

  return {
    async find(key: string): Promise<Workflow | null> {
      const [row] = await db.select().from(workflows).where(byKey(key)).limit(1);
      return row ? toWorkflow(row) : null;
    },

    listQuery,

    async list(
      limit: number,
      after?: string,
      filter: WorkflowListFilter = {},
    ): Promise<{ data: WorkflowSummary[]; nextCursor: string | null }> {
      const rows = await listQuery(limit, after, filter);
      const page = keysetPage(rows, limit, (last) => last.row.key);
      const data = page.rows.map(({ row, lastTriggered: at }) => ({
        ...toWorkflow(row),
        lastTriggeredAt: at === null ? null : new Date(at).toISOString(),
      }));
      return { data, nextCursor: page.nextCursor };
    },

    /** Returns null when the key is already taken. */
    async create(input: WorkflowInput, now = new Date()): Promise<Workflow | null> {
      const [row] = await db
        .insert(workflows)
        .values({ id: newId("wf"), environmentId, key: input.key, ...columns(input), createdAt: now, updatedAt: now })
        .onConflictDoNothing()
        .returning();
      forgetGate(environmentId, input.key);
      return row ? toWorkflow(row) : null;
    },

    /** Everything but the key, which a workflow keeps for life. */
    async update(key: string, input: WorkflowInput, now = new Date()): Promise<Workflow | null> {
      const [row] = await db
        .update(workflows)
        .set({ ...columns(input), updatedAt: now })
        .where(byKey(key))
        .returning();
      forgetGate(environmentId, key);
      return row ? toWorkflow(row) : null;
    },

    /**
     * Soft delete: the row stays as a tombstone, so triggers accepted before now still run the
     * steps they were accepted for (the engine reads workflows by id); the key is free at once.
     */
    async remove(key: string, now = new Date()): Promise<boolean> {
      const rows = await db.update(workflows).set({ deletedAt: now }).where(byKey(key)).returning({ id: workflows.id });
      forgetGate(environmentId, key);
      return rows.length > 0;
    },

    /**
     * Hard-deletes tombstones deleted before `olderThan` that no unfinished trigger accepted before
     * the delete still needs; for a retention job. Returns how many went.
     */
    async purgeDeletedWorkflows(olderThan: Date): Promise<number> {
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
      const rows = await db
        .delete(workflows)
        .where(and(eq(workflows.environmentId, environmentId), lt(workflows.deletedAt, olderThan), notExists(stillNeeded)))
        .returning({ id: workflows.id });
      return rows.length;
    },
  };
}
