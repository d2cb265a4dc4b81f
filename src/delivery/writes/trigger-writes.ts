import type { Db } from "../../db/client";
import { runBatch } from "../../db/batch";
import type { TriggerStatus } from "../../db/schema";
import { finishedTriggers } from "../../db/queries/trigger-rows";
import { eventTaken, loggedTriggerFactEvents, writtenEvents } from "../../db/queries/fact-events";
import type { LogStore, LogTrigger } from "../../durable-objects/client/log-store";
import type { TriggerRecord } from "../../jobs/trigger-record";

export type TriggerWrite = { record: TriggerRecord; status: TriggerStatus; cancelledMessages?: number };

/** A trigger's queryable record as the log keeps it. */
export const logTrigger = ({ record, status, cancelledMessages }: TriggerWrite, now: number): LogTrigger => ({
  environmentId: record.environmentId,
  transactionId: record.transactionId,
  workflowKey: record.workflowKey,
  status,
  recipients: record.recipients,
  payload: record.payload,
  overrides: record.overrides,
  actor: record.actor ?? null,
  acceptedAt: record.acceptedAt,
  cancelledMessages: cancelledMessages ?? null,
  // 0 marks a workflow saved before versions were kept: no version to show.
  workflowVersion: record.workflowVersion || null,
  tenantId: record.tenant?.id ?? null,
  context: record.context ?? null,
  createdAt: now,
  updatedAt: now,
});

/**
 * Records triggers' queryable records in the log's shards (placed by trigger), one call per shard.
 * A terminal status (cancelled, completed, failed) is never replaced, so a cancellation recorded
 * by `DELETE /v1/trigger/` wins whichever of the two writes lands last, and a redelivered job
 * cannot move a finished trigger back. D1 gets none (its older records stay readable).
 */
export function recordTriggers(logs: LogStore, items: TriggerWrite[], now = Date.now()): Promise<LogTrigger[]> {
  return logs.recordTriggers(items.map((i) => logTrigger(i, now)));
}

/**
 * With how many messages the cancellation stopped, so the trigger's counts show them before each
 * one is recorded; `trigger.cancelled` is written from the record as the log left it. Answers the
 * events written.
 */
export async function recordCancellation(db: Db, logs: LogStore, record: TriggerRecord, cancelledMessages: number, now: number) {
  const [left] = await recordTriggers(logs, [{ record, status: "cancelled", cancelledMessages }], now);
  // A trigger finished before the cancel landed keeps its status, and reports no cancellation.
  if (left?.status !== "cancelled" || !(await eventTaken(db, record.environmentId, "trigger.cancelled"))) return [];
  // The messages recorded so far are in the log: counted there (every shard).
  const counts = Object.fromEntries(await logs.counts(record.environmentId, record.transactionId, record.acceptedAt));
  const results = await runBatch(db, [loggedTriggerFactEvents(db, "trigger.cancelled", [{ ...left, counts }])]);
  return writtenEvents(results, [0]);
}

/**
 * Moves D1's records of triggers to a terminal status unless they already have one: only for
 * triggers recorded there before the log took them (the log answers which it does not hold).
 */
export function finishTriggers(
  db: Db,
  items: { environmentId: string; transactionId: string; status: "completed" | "failed" }[],
  now = new Date(),
) {
  return [...Map.groupBy(items, (i) => i.status)].flatMap(([status, group]) => finishedTriggers(db.$client, status, now, group));
}
