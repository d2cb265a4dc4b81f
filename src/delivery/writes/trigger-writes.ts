import type { Db } from "../../db/client";
import { runBatch } from "../../db/batch";
import type { TriggerStatus } from "../../db/schema";
import { finishedTriggers, triggerRecords } from "../../db/queries/trigger-rows";
import { eventTaken, triggerFactEvents, writtenEvents } from "../../db/queries/fact-events";
import type { LogStore } from "../../durable-objects/client/log-store";
import type { TriggerRecord } from "../../jobs/trigger-record";

export type TriggerWrite = { record: TriggerRecord; status: TriggerStatus; cancelledMessages?: number };

/** A trigger's queryable record as its columns (test/db/drizzle-statements.ts writes it through drizzle too, to compare). */
export const triggerRow = ({ record, status, cancelledMessages }: TriggerWrite, now: Date) => ({
  environmentId: record.environmentId,
  transactionId: record.transactionId,
  workflowKey: record.workflowKey,
  status,
  recipients: record.recipients,
  payload: record.payload,
  overrides: record.overrides,
  actor: record.actor,
  acceptedAt: new Date(record.acceptedAt),
  cancelledMessages: cancelledMessages ?? null,
  // 0 marks a workflow saved before versions were kept: no version to show.
  workflowVersion: record.workflowVersion || null,
  createdAt: now,
  updatedAt: now,
});

/**
 * Writes the queryable D1 records of many triggers in one batch, as few statements as D1's 100
 * parameters allow (bound by hand: db/queries/trigger-rows.ts). A terminal status (cancelled,
 * completed, failed) is never replaced, so a cancellation recorded by `DELETE /v1/trigger/`
 * wins whichever of the two writes lands last, and a redelivered job cannot move a finished
 * trigger back.
 */
export const triggerRecordWrites = (db: Db, items: TriggerWrite[], now: Date) =>
  triggerRecords.statements(
    db.$client,
    items.map((i) => triggerRow(i, now)),
  );

export async function recordTriggers(db: Db, items: TriggerWrite[], now = new Date()) {
  await runBatch(db, triggerRecordWrites(db, items, now));
}

/**
 * With how many messages the cancellation stopped, so the trigger's counts show them before each
 * one is recorded; `trigger.cancelled` is written in the same batch. Answers the events written.
 */
export async function recordCancellation(db: Db, logs: LogStore, record: TriggerRecord, cancelledMessages: number, now: number) {
  const statements = triggerRecordWrites(db, [{ record, status: "cancelled", cancelledMessages }], new Date(now));
  // The messages recorded so far are in the log: counted there (every shard) only if someone takes the event.
  const counts = (await eventTaken(db, record.environmentId, "trigger.cancelled"))
    ? Object.fromEntries(await logs.counts(record.environmentId, record.transactionId))
    : null;
  const results = await runBatch(db, [...statements, triggerFactEvents(db, "trigger.cancelled", [{ ...record, counts }])]);
  return writtenEvents(results, [statements.length]);
}

/** Moves recorded triggers to a terminal status unless they already have one: a few statements per status, not one per trigger. */
export function finishTriggers(
  db: Db,
  items: { environmentId: string; transactionId: string; status: "completed" | "failed" }[],
  now = new Date(),
) {
  return [...Map.groupBy(items, (i) => i.status)].flatMap(([status, group]) => finishedTriggers(db.$client, status, now, group));
}
