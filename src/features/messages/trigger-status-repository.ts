import { and, eq, sql } from "drizzle-orm";
import { messages, triggers } from "../../db/schema";
import type { TriggerStatus } from "../../contract/statuses";
import type { TriggerSnapshot } from "../../jobs/trigger-record";
import type { MessageScope } from "./scope-repository";

/** A stored actor: a subscriberId or an inline profile; anything else reads as none. */
const actorOf = (actor: unknown): string | Record<string, unknown> | null =>
  typeof actor === "string" || (typeof actor === "object" && actor !== null && !Array.isArray(actor))
    ? (actor as string | Record<string, unknown>)
    : null;

/** What a trigger's status shows of its record, wherever that is kept: the log, D1's legacy rows, its ledger. */
interface ShownRecord {
  workflowKey: string;
  workflowVersion: number | null;
  status: TriggerStatus;
  acceptedAt: number;
  payload: Record<string, unknown>;
  actor: unknown;
  overrides: Record<string, unknown> | null;
  tenantId?: string | null;
  context?: Record<string, string> | null;
}

const statusView = (transactionId: string, row: ShownRecord, messages: { total: number; byStatus: Record<string, number> }) => ({
  transactionId,
  workflow: row.workflowKey,
  workflowVersion: row.workflowVersion,
  status: row.status,
  acceptedAt: new Date(row.acceptedAt).toISOString(),
  payload: row.payload,
  actor: actorOf(row.actor),
  overrides: row.overrides ?? null,
  tenant: row.tenantId ?? null,
  context: row.context ?? null,
  messages,
});

/**
 * A trigger its ledger holds that no log shard has recorded yet: the consumer records it as it
 * starts the run, moments after the accept, or later while the Queue has a backlog. Shown as its
 * ledger keeps it (accepted, until then), with no messages, rather than as unknown.
 */
export const unrecordedTriggerStatus = (s: TriggerSnapshot) =>
  statusView(
    s.transactionId,
    {
      ...s,
      // 0 marks a workflow saved before versions were kept: no version to show (as the log's record).
      workflowVersion: s.workflowVersion || null,
      status: s.state,
      tenantId: s.tenant?.id ?? null,
    },
    { total: 0, byStatus: {} },
  );

/** A trigger's status and its messages counted by status, from the log and D1's legacy rows. */
export function triggerStatusReads({ db, environmentId, logs }: MessageScope) {
  return {
    async triggerStatus(transactionId: string) {
      const [[rows, legacy], logged, [inLog]] = await Promise.all([
        db.batch([
          db
            .select()
            .from(triggers)
            .where(and(eq(triggers.environmentId, environmentId), eq(triggers.transactionId, transactionId)))
            .limit(1),
          db
            .select({ status: messages.status, count: sql<number>`count(*)` })
            .from(messages)
            .where(and(eq(messages.environmentId, environmentId), eq(messages.transactionId, transactionId)))
            .groupBy(messages.status),
        ]),
        logs.counts(environmentId, transactionId),
        logs.findTriggers(environmentId, [transactionId]),
      ]);
      // The log's record (one shard) first; D1's for a trigger recorded before the log took them.
      const d1Row = rows[0];
      const row = inLog ?? (d1Row ? { ...d1Row, acceptedAt: d1Row.acceptedAt.getTime() } : undefined);
      if (!row) return null;
      // The log's messages and D1's legacy ones (a trigger accepted before the upgrade may have both).
      const byStatus: Record<string, number> = Object.fromEntries(logged);
      for (const c of legacy) byStatus[c.status] = (byStatus[c.status] ?? 0) + Number(c.count);
      let total = Object.values(byStatus).reduce((n, c) => n + c, 0);
      // The consumers record each stopped message moments after the cancel answered; until then they count as the cancel said.
      const unrecorded = row.status === "cancelled" ? (row.cancelledMessages ?? 0) - (byStatus.cancelled ?? 0) : 0;
      if (unrecorded > 0) {
        byStatus.cancelled = (byStatus.cancelled ?? 0) + unrecorded;
        total += unrecorded;
      }
      // Tenant and context are the log's only: D1's legacy rows are from before they were kept.
      return statusView(transactionId, { ...row, tenantId: inLog?.tenantId, context: inLog?.context }, { total, byStatus });
    },
  };
}
