import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import type { LogStore } from "../../durable-objects/client/log-store";
import { workflows } from "../../db/schema";
import { keysetPage } from "../../lib/pagination";
import { type WorkflowListFilter, type WorkflowSummary, workflowCursor } from "./schemas";
import type { WorkflowScope } from "./scope-repository";
import { toWorkflow } from "./shapes";

/** LIKE with `\\` as its escape, so a search for `50%` or `a_b` matches those characters. */
const likeEscaped = (column: typeof workflows.key | typeof workflows.name, pattern: string) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;

/** Reading workflows: one by key, and the list with when each was last triggered (its row's value; the log's for rows without one). */
export function workflowReads({ db, environmentId, live, find }: WorkflowScope, logs: LogStore) {
  /** The list's query, unrun: `list` runs it, and a test reads its plan. */
  const listQuery = (limit: number, after?: string, filter: WorkflowListFilter = {}) => {
    // D1's trigger records from before the log took them (0.12's): an index makes it one seek per workflow.
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
      // The row's own value (written by the accept path, at most a minute behind; 0 when created
      // never triggered) or D1's records from before the log took them, until they expire. Only a
      // row from before the column came (NULL) and not triggered since asks the log, whose trigger
      // records are spread over every shard: one call per shard for those keys alone.
      const unwritten = page.rows.filter((r) => r.row.lastTriggeredAt === null).map((r) => r.row.key);
      const logged = unwritten.length > 0 ? await logs.lastTriggered(environmentId, unwritten) : new Map<string, number>();
      const data = page.rows.map(({ row, lastTriggered: legacy }) => {
        const at = Math.max(row.lastTriggeredAt?.getTime() ?? 0, legacy ?? 0, logged.get(row.key) ?? 0);
        return { ...toWorkflow(row), lastTriggeredAt: at > 0 ? new Date(at).toISOString() : null };
      });
      return { data, nextCursor: page.nextCursor };
    },
  };
}
