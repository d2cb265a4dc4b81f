import { and, asc, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { olderThan } from "../../db/keyset-window";
import { messageEvents, messages, sandboxMessages, triggers } from "../../db/schema";
import type { Message } from "./schemas";
import type { z } from "@hono/zod-openapi";
import { type MessageQuery, messageCursor } from "./schemas";
import { keysetPage } from "../../lib/pagination";

type Row = typeof messages.$inferSelect;

export const toMessage = (row: Row, workflowVersion: number | null): Message => ({
  id: row.id,
  transactionId: row.transactionId,
  subscriberId: row.subscriberId,
  workflow: row.workflowKey,
  workflowVersion,
  stepId: row.stepId,
  channel: row.channel as Message["channel"],
  provider: row.provider,
  status: row.status,
  providerMessageId: row.providerMessageId,
  to: row.to,
  subject: row.subject,
  preview: row.preview,
  error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
  attempts: row.attempts,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** A stored actor: a subscriberId or an inline profile; anything else reads as none. */
const actorOf = (actor: unknown): string | Record<string, unknown> | null =>
  typeof actor === "string" || (typeof actor === "object" && actor !== null && !Array.isArray(actor))
    ? (actor as string | Record<string, unknown>)
    : null;

export function messagesRepository(db: Db, environmentId: string) {
  /** A message's version is its trigger's: read with it through the trigger's unique index, in the same query. */
  const withVersion = () =>
    db
      .select({ message: messages, workflowVersion: triggers.workflowVersion })
      .from(messages)
      .leftJoin(triggers, and(eq(triggers.environmentId, messages.environmentId), eq(triggers.transactionId, messages.transactionId)));
  return {
    async list(query: z.infer<typeof MessageQuery>) {
      const filters: (SQL | undefined)[] = [
        eq(messages.environmentId, environmentId),
        query.transactionId ? eq(messages.transactionId, query.transactionId) : undefined,
        query.subscriberId ? eq(messages.subscriberId, query.subscriberId) : undefined,
        query.workflow ? eq(messages.workflowKey, query.workflow) : undefined,
        query.channel ? eq(messages.channel, query.channel) : undefined,
        query.status ? eq(messages.status, query.status) : undefined,
        query.provider ? eq(messages.provider, query.provider) : undefined,
        query.since ? gte(messages.createdAt, new Date(query.since)) : undefined,
        query.until ? lte(messages.createdAt, new Date(query.until)) : undefined,
      ];
      const cursor = messageCursor.read(query.cursor);
      if (cursor) filters.push(olderThan(messages.createdAt, messages.id, cursor));
      const rows = await withVersion()
        .where(and(...filters))
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, ({ message }) => messageCursor.encode([message.createdAt.getTime(), message.id]));
      return { data: page.rows.map((r) => toMessage(r.message, r.workflowVersion)), nextCursor: page.nextCursor };
    },

    async find(id: string) {
      const [rows, events] = await db.batch([
        withVersion()
          .where(and(eq(messages.environmentId, environmentId), eq(messages.id, id)))
          .limit(1),
        db
          .select()
          .from(messageEvents)
          .where(and(eq(messageEvents.environmentId, environmentId), eq(messageEvents.messageId, id)))
          .orderBy(asc(messageEvents.at), asc(messageEvents.id)),
      ]);
      const found = rows[0];
      if (!found) return null;
      return {
        ...toMessage(found.message, found.workflowVersion),
        content: found.message.content ?? null,
        events: events.map((e) => ({ status: e.status, at: e.at.toISOString(), detail: e.detail ?? null })),
      };
    },

    async triggerStatus(transactionId: string) {
      const [rows, counts] = await db.batch([
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
      ]);
      const row = rows[0];
      if (!row) return null;
      const byStatus: Record<string, number> = Object.fromEntries(counts.map((c) => [c.status, Number(c.count)]));
      let total = counts.reduce((n, c) => n + Number(c.count), 0);
      // The consumers record each stopped message moments after the cancel answered; until then they count as the cancel said.
      const unrecorded = row.status === "cancelled" ? (row.cancelledMessages ?? 0) - (byStatus.cancelled ?? 0) : 0;
      if (unrecorded > 0) {
        byStatus.cancelled = (byStatus.cancelled ?? 0) + unrecorded;
        total += unrecorded;
      }
      return {
        transactionId,
        workflow: row.workflowKey,
        workflowVersion: row.workflowVersion,
        status: row.status,
        acceptedAt: row.acceptedAt.toISOString(),
        payload: row.payload,
        actor: actorOf(row.actor),
        overrides: row.overrides ?? null,
        messages: { total, byStatus },
      };
    },

    async sandbox(limit: number, messageId?: string) {
      const rows = await db
        .select()
        .from(sandboxMessages)
        .where(and(eq(sandboxMessages.environmentId, environmentId), messageId ? eq(sandboxMessages.messageId, messageId) : undefined))
        .orderBy(desc(sandboxMessages.createdAt), desc(sandboxMessages.id))
        .limit(limit);
      return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
    },
  };
}
