import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import type { LogStore } from "../../durable-objects/client/log-store";
import { workflows } from "../../db/schema";
import { keysetPage } from "../../lib/pagination";
import { type WorkflowListFilter, type WorkflowSummary, workflowCursor } from "./schemas";
import type { WorkflowScope } from "./scope-repository";
import { toWorkflow } from "./shapes";

/** LIKE with `\\` as its escape, so a search for `50%` or `a_b` matches those characters. */
const likeEscaped = (column: typeof workflows.key | typeof workflows.name, pattern: string) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;

/** Reading workflows: one by key, and the list with when each was last triggered (from the log). */
export function workflowReads({ db, environmentId, live, find }: WorkflowScope, logs: LogStore) {
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
    find,

    listQuery,

    async list(
      limit: number,
      cursor?: string,
      filter: WorkflowListFilter = {},
    ): Promise<{ data: WorkflowSummary[]; nextCursor: string | null }> {
      const [after] = workflowCursor.read(cursor) ?? [];
      const rows = await listQuery(limit, after, filter);
      const page = keysetPage(rows, limit, (last) => workflowCursor.encode([last.row.key]));
      // The log's trigger records: one call per shard for the page's keys, each a seek per key
      // (a max over its workflow index). Chosen over a `last_triggered_at` kept in D1, which
      // would cost delivery a D1 write per consumer batch and workflow (for a single trigger, one
      // per trigger: what the log left D1 to save), for a read only this list makes.
      const logged = await logs.lastTriggered(
        environmentId,
        page.rows.map((r) => r.row.key),
      );
      const data = page.rows.map(({ row, lastTriggered: legacy }) => {
        // D1's records from before the log took them, until they expire.
        const at = Math.max(logged.get(row.key) ?? -1, legacy ?? -1);
        return { ...toWorkflow(row), lastTriggeredAt: at < 0 ? null : new Date(at).toISOString() };
      });
      return { data, nextCursor: page.nextCursor };
    },
  };
}
