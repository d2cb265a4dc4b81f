import { and, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { isBroadcastRecipient } from "../../contract/recipients";
import type { Db } from "../../db/client";
import type { LogStore, LogTrigger, TriggerFilter } from "../../durable-objects/client/log-store";
import { subscriberMessages } from "../messages/log-rows";
import { olderThan } from "../../db/keyset-window";
import { triggers } from "../../db/schema";
import { compareCodePoints } from "../../lib/code-point-order";
import { keysetPage } from "../../lib/pagination";
import { MAX_RECIPIENT_LABELS, type TriggerQuery, type TriggerSummary, triggerCursor } from "./schemas";

/** A trigger record as the list shows it, from the log or from D1 (times in ms). */
type Row = Pick<LogTrigger, "transactionId" | "workflowKey" | "status" | "recipients" | "acceptedAt" | "updatedAt">;

const fromD1 = (row: typeof triggers.$inferSelect): Row => ({
  transactionId: row.transactionId,
  workflowKey: row.workflowKey,
  status: row.status,
  recipients: row.recipients as Row["recipients"],
  acceptedAt: row.acceptedAt.getTime(),
  updatedAt: row.updatedAt.getTime(),
});

/** Newest first by (acceptedAt, transactionId): the keyset of every page of triggers. */
const newestFirst = (a: Row, b: Row) => b.acceptedAt - a.acceptedAt || compareCodePoints(b.transactionId, a.transactionId);

/** A recipient as a person reads it; the stored inline subscriber carries addresses that a list does not need. */
function recipientLabel(recipient: unknown): string {
  if (typeof recipient === "string") return recipient;
  if (isBroadcastRecipient(recipient)) return "broadcast";
  const r = (recipient ?? {}) as Record<string, unknown>;
  if (typeof r.subscriberId === "string") return r.subscriberId;
  return typeof r.topic === "string" ? `topic:${r.topic}` : "unknown";
}

const toSummary = (row: Row): TriggerSummary => {
  const recipients = Array.isArray(row.recipients) ? row.recipients : [];
  return {
    transactionId: row.transactionId,
    workflow: row.workflowKey,
    status: row.status,
    recipients: recipients.slice(0, MAX_RECIPIENT_LABELS).map(recipientLabel),
    recipientCount: recipients.length,
    acceptedAt: new Date(row.acceptedAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
};

/** The page's query: newest first, one row more than asked for to know whether another page follows. */
export function listQuery(db: Db, environmentId: string, query: TriggerQuery, logged: readonly string[] = []) {
  const cursor = triggerCursor.read(query.cursor);
  // Subscribers are only known per message for topics and broadcasts: the triggers of the log's
  // messages (`logged`, one bound JSON list) and of D1's legacy ones. Named indexes, because
  // without table statistics SQLite would rather walk every message and trigger of the environment.
  const ofSubscriber = query.subscriberId
    ? sql`${triggers.transactionId} IN (SELECT value FROM json_each(${JSON.stringify(logged)}) UNION ALL SELECT transaction_id FROM messages INDEXED BY messages_env_subscriber_idx WHERE environment_id = ${environmentId} AND subscriber_id = ${query.subscriberId})`
    : undefined;
  const filters: (SQL | undefined)[] = [
    eq(triggers.environmentId, environmentId),
    query.workflow ? eq(triggers.workflowKey, query.workflow) : undefined,
    query.transactionId ? eq(triggers.transactionId, query.transactionId) : undefined,
    query.status ? eq(triggers.status, query.status) : undefined,
    query.since ? gte(triggers.acceptedAt, new Date(query.since)) : undefined,
    query.until ? lte(triggers.acceptedAt, new Date(query.until)) : undefined,
    ofSubscriber,
    cursor ? olderThan(triggers.acceptedAt, triggers.transactionId, cursor) : undefined,
  ];
  return (
    db
      .select()
      .from(triggers)
      .where(and(...filters))
      // With a subscriber, `+` keeps the sort off the time index, so the subscriber's triggers are found by transactionId and sorted.
      .orderBy(desc(ofSubscriber ? sql`+${triggers.acceptedAt}` : triggers.acceptedAt), desc(triggers.transactionId))
      .limit(query.limit + 1)
  );
}

/**
 * Triggers' records, newest first: the log's (placed by trigger, written by the Queue consumer,
 * never by the accept path) merged with D1's from before the log took them, until those expire.
 */
export function triggersRepository(db: Db, environmentId: string, logs: LogStore) {
  return {
    async list(query: TriggerQuery) {
      // A trigger's messages are made after it was accepted, but a delay may put them any time
      // later: no cursor of this list bounds the messages to read, only `since` does.
      const logged = query.subscriberId
        ? [...new Set((await subscriberMessages(logs, environmentId, query.subscriberId, query.since)).map((m) => m.transactionId))]
        : [];
      const cursor = triggerCursor.read(query.cursor);
      // Only the shards of the transactionIds asked for, when the query names them.
      const named = query.subscriberId
        ? logged.filter((tx) => query.transactionId === undefined || tx === query.transactionId)
        : query.transactionId !== undefined
          ? [query.transactionId]
          : undefined;
      const filter: TriggerFilter = {
        environmentId,
        limit: query.limit + 1,
        ...(query.workflow ? { workflowKey: query.workflow } : {}),
        ...(named ? { transactionIds: named } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.since ? { since: Date.parse(query.since) } : {}),
        ...(query.until ? { until: Date.parse(query.until) } : {}),
        ...(cursor ? { before: [cursor[0], cursor[1]] as [number, string] } : {}),
      };
      const [fromLog, legacy] = await Promise.all([
        named?.length === 0 ? [] : logs.listTriggers(filter),
        listQuery(db, environmentId, query, logged),
      ]);
      // The log's first: a trigger in both (in flight at the upgrade) shows the log's record.
      const seen = new Set<string>();
      const rows = [...fromLog, ...legacy.map(fromD1)]
        .sort(newestFirst)
        .filter((r) => !seen.has(r.transactionId) && seen.add(r.transactionId));
      const page = keysetPage(rows, query.limit, (last) => triggerCursor.encode([last.acceptedAt, last.transactionId]));
      return { data: page.rows.map(toSummary), nextCursor: page.nextCursor };
    },
  };
}
