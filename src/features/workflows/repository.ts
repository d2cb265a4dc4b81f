import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { workflows } from "../../db/schema";
import { newId } from "../../lib/ids";
import { forgetGate } from "./gate-cache";
import type { Workflow, WorkflowInput } from "./schemas";
import { keysetPage } from "../../lib/pagination";

type Row = typeof workflows.$inferSelect;

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
  const byKey = (key: string) => and(eq(workflows.environmentId, environmentId), eq(workflows.key, key));
  const columns = (input: WorkflowInput) => ({
    name: input.name,
    description: input.description ?? null,
    active: input.active,
    critical: input.critical,
    tags: input.tags,
    payloadSchema: input.payloadSchema ?? null,
    steps: input.steps,
  });

  return {
    async find(key: string): Promise<Workflow | null> {
      const [row] = await db.select().from(workflows).where(byKey(key)).limit(1);
      return row ? toWorkflow(row) : null;
    },

    async list(limit: number, after?: string): Promise<{ data: Workflow[]; nextCursor: string | null }> {
      const rows = await db
        .select()
        .from(workflows)
        .where(and(eq(workflows.environmentId, environmentId), after ? gt(workflows.key, after) : undefined))
        .orderBy(asc(workflows.key))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => last.key);
      return { data: page.rows.map(toWorkflow), nextCursor: page.nextCursor };
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

    async update(key: string, input: WorkflowInput, now = new Date()): Promise<Workflow | null> {
      const [row] = await db
        .update(workflows)
        .set({ key: input.key, ...columns(input), updatedAt: now })
        .where(byKey(key))
        .returning();
      forgetGate(environmentId, key);
      forgetGate(environmentId, input.key);
      return row ? toWorkflow(row) : null;
    },

    async remove(key: string): Promise<boolean> {
      const rows = await db.delete(workflows).where(byKey(key)).returning({ id: workflows.id });
      forgetGate(environmentId, key);
      return rows.length > 0;
    },
  };
}
