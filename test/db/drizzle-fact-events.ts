// src/db/queries/fact-events.ts's statements as drizzle built them, before they were bound by
// hand, and how their results were read: the tests compare the two (test/db/fact-events.test.ts).
import { type SQL, sql } from "drizzle-orm";
import { EVENT_TYPES, type EventType } from "../../src/contract/event-types";
import type { Db } from "../../src/db/client";
import type { MessageDescription, MessageFact, SuppressionFact, WrittenEvent } from "../../src/db/queries/fact-events";
import { events } from "../../src/db/schema";

const typeIndex = (type: EventType) => EVENT_TYPES.indexOf(type);

/** `evt_` + 32 hex, time-ordered like `newId`: the fact's time (ms), the described row's rowid, the type. */
const stableId = (at: SQL, rowid: SQL, kind: SQL) => sql`'evt_' || printf('%012x%016x%04x', ${at}, ${rowid}, ${kind})`;

/** Whether the environment has an enabled endpoint that takes events of `type`. */
const taken = (environmentId: SQL, type: SQL) => sql`EXISTS (
  SELECT 1 FROM webhook_endpoints AS w WHERE w.environment_id = ${environmentId} AND w.enabled = 1
    AND (w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) AS t WHERE t.value = ${type})))`;

const insertSelect = (db: Db, select: SQL) =>
  db.insert(events).select(select).onConflictDoNothing().returning({ id: events.id, environmentId: events.environmentId });

/**
 * One statement for every message fact of a batch, run after the rows it reads were written. A
 * message the log holds is described by the fact (`described`); one recorded in D1 before the log
 * left it is read from `messages`.
 */
export function messageFactEvents(db: Db, facts: readonly MessageFact[], described: ReadonlyMap<string, MessageDescription> = new Map()) {
  const tuples = facts.map((f) => {
    const d = described.get(f.messageId);
    const head = [f.type, typeIndex(f.type), f.messageId, f.at.getTime(), f.status, f.reason, f.environmentId];
    return d
      ? [...head, 1, d.transactionId, d.workflowKey, d.subscriberId, d.stepId, d.channel, d.provider, d.tenantId ?? null]
      : [...head, 0];
  });
  // Columns in the table's order: id, environment_id, type, data, created_at, dispatched_at.
  // A log message's id's last 16 hex digits stand in for the rowid of the stable id.
  return insertSelect(
    db,
    sql`SELECT 'evt_' || printf('%012x', f.at) || (CASE WHEN f.d = 1 THEN substr(f.message_id, -16) ELSE printf('%016x', m.rowid) END)
        || printf('%04x', f.kind),
      f.environment_id, f.type,
      json_remove(json_object('messageId', f.message_id,
        'transactionId', CASE WHEN f.d = 1 THEN f.tx ELSE m.transaction_id END,
        'workflow', CASE WHEN f.d = 1 THEN f.workflow ELSE m.workflow_key END,
        'subscriberId', CASE WHEN f.d = 1 THEN f.subscriber ELSE m.subscriber_id END,
        'stepId', CASE WHEN f.d = 1 THEN f.step ELSE m.step_id END,
        'channel', CASE WHEN f.d = 1 THEN f.channel ELSE m.channel END,
        'provider', CASE WHEN f.d = 1 THEN f.provider ELSE m.provider END,
        'tenant', CASE WHEN f.d = 1 THEN f.tenant END,
        'status', f.status, 'reason', f.reason),
        CASE WHEN f.d = 1 AND f.tenant IS NOT NULL THEN '$.__kept' ELSE '$.tenant' END),
      f.at, NULL
    FROM (SELECT json_extract(value, '$[0]') AS type, json_extract(value, '$[1]') AS kind, json_extract(value, '$[2]') AS message_id,
        json_extract(value, '$[3]') AS at, json_extract(value, '$[4]') AS status, json_extract(value, '$[5]') AS reason,
        json_extract(value, '$[6]') AS environment_id, json_extract(value, '$[7]') AS d, json_extract(value, '$[8]') AS tx,
        json_extract(value, '$[9]') AS workflow, json_extract(value, '$[10]') AS subscriber, json_extract(value, '$[11]') AS step,
        json_extract(value, '$[12]') AS channel, json_extract(value, '$[13]') AS provider, json_extract(value, '$[14]') AS tenant
      FROM json_each(${JSON.stringify(tuples)})) AS f
    -- The list stays the outer loop of a LEFT JOIN: each legacy key is one index lookup
    LEFT JOIN messages AS m ON f.d = 0 AND m.environment_id = f.environment_id AND m.id = f.message_id
    WHERE (f.d = 1 OR m.id IS NOT NULL) AND ${taken(sql`f.environment_id`, sql`f.type`)}`,
  );
}

/**
 * `suppression.added` for each address the batch put on the list at the fact's time. Only an
 * email or phone is named: a chat address is a webhook URL (a credential), a push token no use.
 */
export function suppressionFactEvents(db: Db, facts: readonly SuppressionFact[]) {
  const type: EventType = "suppression.added";
  const tuples = facts.map((f) => [f.environmentId, f.address, f.at.getTime()]);
  return insertSelect(
    db,
    sql`SELECT ${stableId(sql`s.created_at`, sql`s.rowid`, sql`${typeIndex(type)}`)}, s.environment_id, ${type},
      json_object('address', CASE WHEN s.channel IN ('email', 'sms') THEN s.address END, 'channel', s.channel, 'reason', s.reason, 'provider', s.provider, 'messageId', s.message_id),
      s.created_at, NULL
    FROM json_each(${JSON.stringify(tuples)}) AS p
    -- CROSS JOIN keeps the list as the outer loop: each key is one index lookup (test/subscribers/json-list-joins.test.ts)
    CROSS JOIN suppressions AS s ON s.environment_id = json_extract(p.value, '$[0]') AND s.address = json_extract(p.value, '$[1]')
      AND s.created_at = json_extract(p.value, '$[2]')
    WHERE ${taken(sql`s.environment_id`, sql`${type}`)}`,
  );
}

/**
 * A trigger that reached a terminal status: `trigger.completed` (with its messages counted by
 * status: `counts` from the log, else D1's) or `trigger.cancelled`.
 */
export function triggerFactEvents(
  db: Db,
  type: Extract<EventType, "trigger.completed" | "trigger.cancelled">,
  items: readonly { environmentId: string; transactionId: string; counts?: Record<string, number> | null }[],
) {
  const tuples = items.map((i) => [
    i.environmentId,
    i.transactionId,
    i.counts && Object.keys(i.counts).length ? JSON.stringify(i.counts) : null,
  ]);
  const counts = sql`(SELECT json_group_object(c.status, c.n) FROM (
      SELECT m.status, count(*) AS n FROM messages AS m
      WHERE m.environment_id = t.environment_id AND m.transaction_id = t.transaction_id GROUP BY m.status) AS c)`;
  return insertSelect(
    db,
    sql`SELECT ${stableId(sql`t.accepted_at`, sql`t.rowid`, sql`${typeIndex(type)}`)}, t.environment_id, ${type},
      json_object('transactionId', t.transaction_id, 'workflow', t.workflow_key, 'status', t.status,
        'counts', json(coalesce(json_extract(p.value, '$[2]'), ${counts}, '{}'))${type === "trigger.cancelled" ? sql`, 'cancelledMessages', t.cancelled_messages` : sql``}),
      t.updated_at, NULL
    FROM json_each(${JSON.stringify(tuples)}) AS p
    -- CROSS JOIN keeps the list as the outer loop: each key is one index lookup (test/subscribers/json-list-joins.test.ts)
    CROSS JOIN triggers AS t ON t.environment_id = json_extract(p.value, '$[0]') AND t.transaction_id = json_extract(p.value, '$[1]')
    WHERE t.status IN ${type === "trigger.cancelled" ? sql`('cancelled')` : sql`('completed', 'failed')`}
      AND ${taken(sql`t.environment_id`, sql`${type}`)}`,
  );
}

/** The events written, from a batch's results, given where the statements built here sit in it. */
export const writtenEvents = (results: readonly unknown[], at: readonly number[]): WrittenEvent[] =>
  at.flatMap((i) => (results[i] as WrittenEvent[] | undefined) ?? []);
