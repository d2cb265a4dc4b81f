import { and, notInArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { chunk, rowsPerStatement, runBatch } from "../db/batch";
import { triggers, type TriggerStatus } from "../db/schema";
import { triggerFactEvents, writtenEvents } from "../db/queries/fact-events";
import type { TriggerRecord } from "./trigger-record";

const COLUMNS = 13;

type TriggerWrite = { record: TriggerRecord; status: TriggerStatus; cancelledMessages?: number };

const row = ({ record, status, cancelledMessages }: TriggerWrite, now: Date) => ({
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
 * Writes the queryable D1 records of many triggers in one batch. A terminal status
 * (cancelled, completed, failed) is never replaced, so a cancellation recorded by
 * `DELETE /v1/trigger/` wins whichever of the two writes lands last, and a redelivered job
 * cannot move a finished trigger back.
 */
export function triggerRecordWrites(db: Db, items: TriggerWrite[], now: Date) {
  return chunk(items, rowsPerStatement(COLUMNS)).map((part) =>
    db
      .insert(triggers)
      .values(part.map((i) => row(i, now)))
      .onConflictDoUpdate({
        target: [triggers.environmentId, triggers.transactionId],
        set: {
          status: sql`CASE WHEN ${triggers.status} IN ('cancelled', 'completed', 'failed') THEN ${triggers.status} ELSE excluded.status END`,
          cancelledMessages: sql`coalesce(excluded.cancelled_messages, ${triggers.cancelledMessages})`,
          updatedAt: sql`excluded.updated_at`,
        },
      }),
  );
}

export async function recordTriggers(db: Db, items: TriggerWrite[], now = new Date()) {
  await runBatch(db, triggerRecordWrites(db, items, now));
}

/**
 * With how many messages the cancellation stopped, so the trigger's counts show them before each
 * one is recorded; `trigger.cancelled` is written in the same batch. Answers the events written.
 */
export async function recordCancellation(db: Db, record: TriggerRecord, cancelledMessages: number, now: number) {
  const statements = triggerRecordWrites(db, [{ record, status: "cancelled", cancelledMessages }], new Date(now));
  const results = await runBatch(db, [...statements, triggerFactEvents(db, "trigger.cancelled", [record])]);
  return writtenEvents(results, [statements.length]);
}

/** Triggers finished per statement: two bound parameters each, within D1's 100. */
const FINISHED_PER_STATEMENT = 45;

/** Moves recorded triggers to a terminal status unless they already have one: a few statements per status, not one per trigger. */
export function finishTriggers(
  db: Db,
  items: { environmentId: string; transactionId: string; status: "completed" | "failed" }[],
  now = new Date(),
) {
  return [...Map.groupBy(items, (i) => i.status)].flatMap(([status, group]) =>
    chunk(group, FINISHED_PER_STATEMENT).map((part) =>
      db
        .update(triggers)
        .set({ status, updatedAt: now })
        .where(
          and(
            sql`(${triggers.environmentId}, ${triggers.transactionId}) IN (VALUES ${sql.join(
              part.map((i) => sql`(${i.environmentId}, ${i.transactionId})`),
              sql`, `,
            )})`,
            notInArray(triggers.status, ["cancelled", "completed", "failed"]),
          ),
        ),
    ),
  );
}
