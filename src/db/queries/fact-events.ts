// Events about facts other rows hold (a message's status, a finished trigger, a suppressed
// address), written by one INSERT … SELECT per batch that reads those rows as the batch left them.
// Two choices made here, for every type below:
// - Written only while an enabled endpoint of the environment takes the type: a send writes no
//   row nobody can receive, and the check is part of the same statement (no cache to go stale,
//   no extra round trip). The event log (`GET /v1/events`) therefore holds what was emitted.
// - The id is derived from the fact (its time, the described row, the type), so a retried write of
//   the same fact keeps its id and adds nothing (`ON CONFLICT DO NOTHING`).
//
// Each statement's text is fixed per type and made once; the facts are one bound JSON list. They
// are D1 statements bound by hand, not drizzle's (whose query building cost the delivery isolate
// CPU for each phase), and a batch answers each with its D1Result, which `writtenEvents` reads.
import { getTableColumns, getTableName } from "drizzle-orm";
import { EVENT_TYPES, type EventType } from "../../contract/event-types";
import { bound, type SerializedStatement } from "../batch";
import type { Db } from "../client";
import { quoted } from "../row-insert";
import { events } from "../schema";

/** What a written batch answers for each statement built here: the events it wrote. */
export type WrittenEvent = { id: string; environmentId: string };

const typeIndex = (type: EventType) => EVENT_TYPES.indexOf(type);

/** `evt_` + 32 hex, time-ordered like `newId`: the fact's time (ms), the described row's rowid, the type. */
const stableId = (at: string, rowid: string, kind: string) => `'evt_' || printf('%012x%016x%04x', ${at}, ${rowid}, ${kind})`;

/** Whether the environment has an enabled endpoint that takes events of `type`. */
const taken = (environmentId: string, type: string) => `EXISTS (
  SELECT 1 FROM webhook_endpoints AS w WHERE w.environment_id = ${environmentId} AND w.enabled = 1
    AND (w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) AS t WHERE t.value = ${type})))`;

/** The insert around a SELECT of the table's columns in its order; RETURNING what `writtenEvents` reads. */
const insertSelect = (select: string) =>
  `insert into ${quoted(getTableName(events))} (${Object.values(getTableColumns(events))
    .map((c) => quoted(c.name))
    .join(", ")}) ${select} on conflict do nothing returning ${quoted(events.id.name)}, ${quoted(events.environmentId.name)}`;

// Each JSON list is joined with CROSS JOIN, which keeps the list as the outer loop: each key is one
// index lookup (test/subscribers/json-list-joins.test.ts).

/** A message reached a state an event reports: the type, when, and why (a skip's or failure's code). */
export interface MessageFact {
  type: EventType;
  environmentId: string;
  messageId: string;
  at: Date;
  status: string;
  reason: string | null;
}

/** What an event says of the message it reports (the log's answer for a message the log holds). */
export interface MessageDescription {
  transactionId: string;
  workflowKey: string;
  subscriberId: string;
  stepId: string;
  channel: string;
  provider: string | null;
  /** The message's tenant (the log's rows only); absent or null: none. */
  tenantId?: string | null;
}

// A message of no tenant reports none (json_remove): its event's data is as before tenants.
// Columns in the table's order: id, environment_id, type, data, created_at, dispatched_at. A message
// the log holds is described by the fact itself (d = 1) and its id's last 16 hex digits stand in for
// a rowid; one recorded in D1 before the log left it is read from `messages` as the batch left it.
const MESSAGE_EVENTS = insertSelect(
  `SELECT 'evt_' || printf('%012x', f.at) || (CASE WHEN f.d = 1 THEN substr(f.message_id, -16) ELSE printf('%016x', m.rowid) END)
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
      FROM json_each(?)) AS f
    LEFT JOIN messages AS m ON f.d = 0 AND m.environment_id = f.environment_id AND m.id = f.message_id
    WHERE (f.d = 1 OR m.id IS NOT NULL) AND ${taken("f.environment_id", "f.type")}`,
);

/**
 * One statement for every message fact of a batch, run after the rows it reads were written.
 * `described` holds the log's messages as the write left them; a fact about any other message
 * is described by its D1 row (one recorded before the log left D1), or dropped if there is none.
 */
export function messageFactEvents(
  db: Db,
  facts: readonly MessageFact[],
  described: ReadonlyMap<string, MessageDescription> = new Map(),
): D1PreparedStatement {
  const { sql, params } = messageFactStatement(facts, described);
  return bound(db.$client, sql, params);
}

/** `messageFactEvents` as text and values: what a log shard keeps in its outbox, describing its own messages. */
export function messageFactStatement(
  facts: readonly MessageFact[],
  described: ReadonlyMap<string, MessageDescription>,
): SerializedStatement {
  const tuples = facts.map((f) => {
    const d = described.get(f.messageId);
    const head = [f.type, typeIndex(f.type), f.messageId, new Date(f.at).getTime(), f.status, f.reason, f.environmentId];
    return d
      ? [...head, 1, d.transactionId, d.workflowKey, d.subscriberId, d.stepId, d.channel, d.provider, d.tenantId ?? null]
      : [...head, 0];
  });
  return { sql: MESSAGE_EVENTS, params: [JSON.stringify(tuples)] };
}

/** An address put on the suppression list at `at` (a later report of a listed address is no news). */
export interface SuppressionFact {
  environmentId: string;
  /** As the list stores it (normalised). */
  address: string;
  at: Date;
}

/** Bound: the type's index, the type, the list, the type. */
const SUPPRESSION_EVENTS = insertSelect(
  `SELECT ${stableId("s.created_at", "s.rowid", "?")}, s.environment_id, ?,
      json_object('address', CASE WHEN s.channel IN ('email', 'sms') THEN s.address END, 'channel', s.channel, 'reason', s.reason, 'provider', s.provider, 'messageId', s.message_id),
      s.created_at, NULL
    FROM json_each(?) AS p
    CROSS JOIN suppressions AS s ON s.environment_id = json_extract(p.value, '$[0]') AND s.address = json_extract(p.value, '$[1]')
      AND s.created_at = json_extract(p.value, '$[2]')
    WHERE ${taken("s.environment_id", "?")}`,
);

/**
 * `suppression.added` for each address the batch put on the list at the fact's time. Only an
 * email or phone is named: a chat address is a webhook URL (a credential), a push token no use.
 */
export function suppressionFactEvents(db: Db, facts: readonly SuppressionFact[]): D1PreparedStatement {
  const type: EventType = "suppression.added";
  const tuples = facts.map((f) => [f.environmentId, f.address, f.at.getTime()]);
  return bound(db.$client, SUPPRESSION_EVENTS, [typeIndex(type), type, JSON.stringify(tuples), type]);
}

type TriggerEventType = Extract<EventType, "trigger.completed" | "trigger.cancelled">;

/**
 * Bound: the type's index, the type, the list, the type. A trigger's messages are counted by the
 * log (each item's `counts`); a trigger whose messages were recorded in D1 before the log left it
 * (no counts given) is counted there.
 */
const triggerEvents = (type: TriggerEventType) => {
  const counts = `(SELECT json_group_object(c.status, c.n) FROM (
      SELECT m.status, count(*) AS n FROM messages AS m
      WHERE m.environment_id = t.environment_id AND m.transaction_id = t.transaction_id GROUP BY m.status) AS c)`;
  return insertSelect(
    `SELECT ${stableId("t.accepted_at", "t.rowid", "?")}, t.environment_id, ?,
      json_object('transactionId', t.transaction_id, 'workflow', t.workflow_key, 'status', t.status,
        'counts', json(coalesce(json_extract(p.value, '$[2]'), ${counts}, '{}'))${type === "trigger.cancelled" ? ", 'cancelledMessages', t.cancelled_messages" : ""}),
      t.updated_at, NULL
    FROM json_each(?) AS p
    CROSS JOIN triggers AS t ON t.environment_id = json_extract(p.value, '$[0]') AND t.transaction_id = json_extract(p.value, '$[1]')
    WHERE t.status IN ${type === "trigger.cancelled" ? "('cancelled')" : "('completed', 'failed')"}
      AND ${taken("t.environment_id", "?")}`,
  );
};
const TRIGGER_EVENTS: Record<TriggerEventType, string> = {
  "trigger.completed": triggerEvents("trigger.completed"),
  "trigger.cancelled": triggerEvents("trigger.cancelled"),
};

/**
 * A trigger recorded in D1 (before the log took trigger records) that reached a terminal status:
 * `trigger.completed` (with its messages counted by status: `counts` from the log, when it has
 * any) or `trigger.cancelled`, read from its D1 row.
 */
export function triggerFactEvents(
  db: Db,
  type: TriggerEventType,
  items: readonly { environmentId: string; transactionId: string; counts?: Record<string, number> | null }[],
): D1PreparedStatement {
  const tuples = items.map((i) => [
    i.environmentId,
    i.transactionId,
    i.counts && Object.keys(i.counts).length ? JSON.stringify(i.counts) : null,
  ]);
  return bound(db.$client, TRIGGER_EVENTS[type], [typeIndex(type), type, JSON.stringify(tuples), type]);
}

/** 16 hex digits from a trigger's key: what stands in for the rowid of a record the log holds. */
function triggerHash(environmentId: string, transactionId: string): string {
  const fnv = (text: string) => {
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0).toString(16).padStart(8, "0");
  };
  return fnv(`${environmentId}:${transactionId}`) + fnv(`${transactionId}:${environmentId}`);
}

/**
 * Bound: the type's index, the type, the list, the type. Each item describes its trigger as the
 * log left it (no D1 row to join); its id is its acceptance time and a hash of its key, so a
 * retried write keeps it. Messages recorded in D1 before the log left it are counted there when
 * the log gave no counts.
 */
const loggedTriggerEvents = (type: TriggerEventType) =>
  insertSelect(
    `SELECT 'evt_' || printf('%012x', f.accepted_at) || f.h || printf('%04x', ?), f.environment_id, ?,
      json_object('transactionId', f.tx, 'workflow', f.workflow, 'status', f.status,
        'counts', json(coalesce(f.counts, (SELECT json_group_object(c.status, c.n) FROM (
          SELECT m.status, count(*) AS n FROM messages AS m
          WHERE m.environment_id = f.environment_id AND m.transaction_id = f.tx GROUP BY m.status) AS c), '{}'))${
            type === "trigger.cancelled" ? ", 'cancelledMessages', f.cancelled" : ""
          }),
      f.updated_at, NULL
    FROM (SELECT json_extract(value, '$[0]') AS environment_id, json_extract(value, '$[1]') AS tx, json_extract(value, '$[2]') AS counts,
        json_extract(value, '$[3]') AS accepted_at, json_extract(value, '$[4]') AS h, json_extract(value, '$[5]') AS workflow,
        json_extract(value, '$[6]') AS status, json_extract(value, '$[7]') AS cancelled, json_extract(value, '$[8]') AS updated_at
      FROM json_each(?)) AS f
    WHERE ${taken("f.environment_id", "?")}`,
  );
const LOGGED_TRIGGER_EVENTS: Record<TriggerEventType, string> = {
  "trigger.completed": loggedTriggerEvents("trigger.completed"),
  "trigger.cancelled": loggedTriggerEvents("trigger.cancelled"),
};

/** A trigger the log holds, as it left it, with its messages counted by the log. */
export interface TriggerDescription {
  environmentId: string;
  transactionId: string;
  workflowKey: string;
  status: string;
  acceptedAt: number;
  updatedAt: number;
  cancelledMessages: number | null;
  counts?: Record<string, number> | null;
}

/**
 * `trigger.completed` or `trigger.cancelled` for triggers the log holds, described by the bound
 * list (the caller passes only those whose status the type reports).
 */
export function loggedTriggerFactEvents(db: Db, type: TriggerEventType, items: readonly TriggerDescription[]): D1PreparedStatement {
  const tuples = items.map((i) => [
    i.environmentId,
    i.transactionId,
    i.counts && Object.keys(i.counts).length ? JSON.stringify(i.counts) : null,
    i.acceptedAt,
    triggerHash(i.environmentId, i.transactionId),
    i.workflowKey,
    i.status,
    i.cancelledMessages,
    i.updatedAt,
  ]);
  return bound(db.$client, LOGGED_TRIGGER_EVENTS[type], [typeIndex(type), type, JSON.stringify(tuples), type]);
}

/**
 * How long an isolate trusts its answer to `eventTaken`. A change through this isolate's API
 * clears the environment's answers at once (`forgetEventsTaken`); other isolates see it within
 * the TTL, as with workflow gates. Only the decision to count a trigger's messages for its event
 * rests on it: the event's own statement checks the endpoints again as it writes (`taken`), so a
 * stale "taken" costs one log read, a stale "not taken" the trigger events of those seconds.
 */
export const EVENT_TAKEN_TTL_MS = 5_000;
const MAX_TAKEN_ENTRIES = 10_000;
const takenCache = new Map<string, { taken: boolean; expiresAt: number }>();

/** Whether an enabled endpoint of the environment takes `type`: a trigger's counts are gathered from the log only then. */
export async function eventTaken(db: Db, environmentId: string, type: EventType, now = Date.now()): Promise<boolean> {
  const key = `${environmentId}\u0000${type}`;
  const hit = takenCache.get(key);
  if (hit && hit.expiresAt > now) return hit.taken;
  const row = await db.$client
    .prepare(`SELECT ${taken("?", "?")} AS taken`)
    .bind(environmentId, type)
    .first<{ taken: number }>();
  if (takenCache.size >= MAX_TAKEN_ENTRIES) takenCache.clear();
  takenCache.set(key, { taken: row?.taken === 1, expiresAt: now + EVENT_TAKEN_TTL_MS });
  return row?.taken === 1;
}

/** Endpoint changes made through this isolate: a read that found none before a change no longer stands. */
let endpointChanges = 0;

/** An environment's endpoints changed in this isolate: its cached answers go. */
export function forgetEventsTaken(environmentId: string): void {
  endpointChanges++;
  const prefix = `${environmentId}\u0000`;
  for (const key of takenCache.keys()) if (key.startsWith(prefix)) takenCache.delete(key);
}

/** A read that found no enabled endpoint in an environment: when, and after how many endpoint changes of this isolate. */
export interface NoEndpoints {
  at: number;
  changes: number;
}

/** Said by a read that found no enabled endpoint (`send-settings.ts` reads it with what delivery sends with). */
export const noEndpointsNow = (now = Date.now()): NoEndpoints => ({ at: now, changes: endpointChanges });

/**
 * Whether a read that found no enabled endpoint still lets a phase skip its message events'
 * statement (which would insert nothing): for EVENT_TAKEN_TTL_MS, as `eventTaken`'s answers, and
 * only while this isolate changed no endpoint since. An endpoint created in another isolate in
 * those seconds misses the message events written meanwhile, as it misses the trigger events.
 */
export const noEndpointsStands = (read: NoEndpoints | null | undefined, now = Date.now()) =>
  read != null && read.changes === endpointChanges && now - read.at < EVENT_TAKEN_TTL_MS;

/** A row of the statements' RETURNING, as D1 answers it: named by column. */
type Returned = { id: string; environment_id: string };

/**
 * The events written, from a batch's results, given where the statements built here sit in it:
 * their D1Results' rows, named as drizzle's `returning({ id, environmentId })` named them.
 */
export const writtenEvents = (results: readonly unknown[], at: readonly number[]): WrittenEvent[] =>
  at.flatMap((i) => {
    const result = results[i] as D1Result<Returned> | undefined;
    return (result?.results ?? []).map((row) => ({ id: row.id, environmentId: row.environment_id }));
  });
