// The workflows an Inbox shows: a notification's workflow, and the ones its preferences list.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { inJsonList } from "../../db/batch";
import type { Db } from "../../db/client";
import { workflows } from "../../db/schema";
import { CHANNELS, type Channel, type Step } from "../../engine/steps";
import { allSteps } from "../../engine/workflow-tree";

export interface InboxWorkflowRow {
  key: string;
  name: string;
  critical: boolean;
  tags: string[];
  /** The channels its steps deliver on (inside branch paths too), in Clarion's order. */
  channels: Channel[];
}

/** How many workflows a preference list shows at most: an Inbox panel, not an export. */
const MAX_LISTED = 500;

const channelsOf = (tree: readonly Step[]): Channel[] => {
  const steps = allSteps(tree);
  return CHANNELS.filter((c) => steps.some((s) => s.type === c));
};

/** Live workflows of one environment (tombstones are not shown). */
export function inboxWorkflows(db: Db, environmentId: string) {
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  const columns = { key: workflows.key, name: workflows.name, critical: workflows.critical, tags: workflows.tags, steps: workflows.steps };
  const toRow = (r: { key: string; name: string; critical: boolean; tags: string[]; steps: Step[] }): InboxWorkflowRow => ({
    key: r.key,
    name: r.name,
    critical: r.critical,
    tags: r.tags,
    channels: channelsOf(r.steps),
  });
  return {
    /** The statement `byKeys` runs (its parameter count is what D1 limits). */
    byKeysStatement(keys: readonly string[]) {
      return db
        .select(columns)
        .from(workflows)
        .where(and(live, sql`${workflows.key} in ${inJsonList([...new Set(keys)])}`));
    },
    async byKeys(keys: readonly string[]): Promise<Map<string, InboxWorkflowRow>> {
      if (keys.length === 0) return new Map();
      const rows = await this.byKeysStatement(keys);
      return new Map(rows.map((r) => [r.key, toRow(r)]));
    },
    /** The active ones, by key. */
    async active(): Promise<InboxWorkflowRow[]> {
      const rows = await db
        .select(columns)
        .from(workflows)
        .where(and(live, eq(workflows.active, true)))
        .orderBy(asc(workflows.key))
        .limit(MAX_LISTED);
      return rows.map(toRow);
    },
  };
}
