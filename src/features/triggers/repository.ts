import { and, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { isBroadcastRecipient } from "../../contract/recipients";
import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import { subscriberMessages } from "../messages/log-rows";
import { olderThan } from "../../db/keyset-window";
import { triggers } from "../../db/schema";
import { keysetPage } from "../../lib/pagination";
import { MAX_RECIPIENT_LABELS, type TriggerQuery, type TriggerSummary, triggerCursor } from "./schemas";

type Row = typeof triggers.$inferSelect;

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
    acceptedAt: row.acceptedAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
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

/** The D1 records of triggers (written by the Queue consumer, never by the accept path), newest first. */
export function triggersRepository(db: Db, environmentId: string, logs: LogStore) {
  return {
    async list(query: TriggerQuery) {
      // A trigger's messages are made after it was accepted, but a delay may put them any time
      // later: no cursor of this list bounds the messages to read, only `since` does.
      const logged = query.subscriberId
        ? [...new Set((await subscriberMessages(logs, environmentId, query.subscriberId, query.since)).map((m) => m.transactionId))]
        : [];
      const rows = await listQuery(db, environmentId, query, logged);
      const page = keysetPage(rows, query.limit, (last) => triggerCursor.encode([last.acceptedAt.getTime(), last.transactionId]));
      return { data: page.rows.map(toSummary), nextCursor: page.nextCursor };
    },
  };
}
