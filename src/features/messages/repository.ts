import { and, asc, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { olderThan } from "../../db/keyset-window";
import { messageEvents, messages, sandboxMessages, triggers } from "../../db/schema";
import type { Message } from "./schemas";
import type { z } from "@hono/zod-openapi";
import { type MessageQuery, messageCursor } from "./schemas";
import { keysetPage } from "../../lib/pagination";
import { partitionOfId } from "../../lib/ids";
import type { LogStore, MessageFilter } from "../../durable-objects/client/log-store";
import { fromLog, type MessageRow, newestFirst } from "./log-rows";

/** A message's tenant and context, kept on log rows only (D1's legacy rows predate tenants). */
export interface Tenancy {
  tenant: string | null;
  context: Record<string, string> | null;
}
const NO_TENANCY: Tenancy = { tenant: null, context: null };
const tenancyOf = (m: { tenantId?: string | null; context?: Record<string, string> | null }): Tenancy => ({
  tenant: m.tenantId ?? null,
  context: m.context ?? null,
});

export const toMessage = (
  row: MessageRow,
  workflowVersion: number | null,
  layoutVersion: number | null,
  tenancy: Tenancy = NO_TENANCY,
): Message => ({
  id: row.id,
  transactionId: row.transactionId,
  subscriberId: row.subscriberId,
  workflow: row.workflowKey,
  workflowVersion,
  layoutVersion,
  tenant: tenancy.tenant,
  context: tenancy.context,
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

export function messagesRepository(db: Db, environmentId: string, logs: LogStore) {
  /**
   * The versions of these triggers, in one query: a message's version is its trigger's. Only for
   * messages written before their row kept it (the column is null): asking the triggers' shards
   * is a round trip a page should not pay.
   */
  const versionsOf = async (transactionIds: string[]): Promise<Map<string, number | null>> => {
    const wanted = [...new Set(transactionIds)];
    if (wanted.length === 0) return new Map();
    // The log's records first; D1's for triggers recorded before the log took them.
    const logged = new Map((await logs.findTriggers(environmentId, wanted)).map((t) => [t.transactionId, t.workflowVersion]));
    const rest = wanted.filter((tx) => !logged.has(tx));
    if (rest.length === 0) return logged;
    const rows = await db
      .select({ transactionId: triggers.transactionId, workflowVersion: triggers.workflowVersion })
      .from(triggers)
      .where(
        and(
          eq(triggers.environmentId, environmentId),
          // One bound JSON list: a page of 200 triggers would pass D1's 100 parameters.
          sql`${triggers.transactionId} IN (SELECT value FROM json_each(${JSON.stringify(rest)}))`,
        ),
      );
    for (const r of rows) logged.set(r.transactionId, r.workflowVersion);
    return logged;
  };
  /** A legacy message's version is its trigger's: read with it through the trigger's unique index, in the same query. */
  const withVersion = () =>
    db
      .select({ message: messages, workflowVersion: triggers.workflowVersion })
      .from(messages)
      .leftJoin(triggers, and(eq(triggers.environmentId, messages.environmentId), eq(triggers.transactionId, messages.transactionId)));
  const findLogged = async (id: string) => {
    const [found] = await logs.find(environmentId, [id]);
    if (!found) return null;
    const kept = found.message.workflowVersion ?? null;
    const versions = kept === null ? await versionsOf([found.message.transactionId]) : new Map<string, number | null>();
    return {
      message: fromLog(found.message),
      workflowVersion: kept ?? versions.get(found.message.transactionId) ?? null,
      layoutVersion: found.message.layoutVersion ?? null,
      tenancy: tenancyOf(found.message),
      events: found.events.map((e) => ({ ...e, at: new Date(e.at) })),
    };
  };
  const findLegacy = async (id: string) => {
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
    return rows[0] ? { ...rows[0], layoutVersion: null, tenancy: NO_TENANCY, events } : null;
  };
  return {
    /**
     * A page of the log's messages and D1's legacy ones (written before the log left D1, kept until
     * they expire), each store asked for one more than the page below the cursor and merged by time.
     */
    async list(query: z.infer<typeof MessageQuery>) {
      const cursor = messageCursor.read(query.cursor) ?? undefined;
      const since = query.since ? Date.parse(query.since) : undefined;
      const until = query.until ? Date.parse(query.until) : undefined;
      const split = query.context?.indexOf(":") ?? -1;
      const context: [string, string] | undefined =
        query.context && split > 0 ? [query.context.slice(0, split), query.context.slice(split + 1)] : undefined;
      const filter: MessageFilter = {
        environmentId,
        limit: query.limit + 1,
        ...(query.transactionId ? { transactionId: query.transactionId } : {}),
        ...(query.subscriberId ? { subscriberId: query.subscriberId } : {}),
        ...(query.workflow ? { workflowKey: query.workflow } : {}),
        ...(query.channel ? { channel: query.channel } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.provider ? { provider: query.provider } : {}),
        ...(query.tenant ? { tenantId: query.tenant } : {}),
        ...(context ? { context } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(cursor ? { before: [cursor[0], cursor[1]] as [number, string] } : {}),
      };
      const filters: (SQL | undefined)[] = [
        eq(messages.environmentId, environmentId),
        query.transactionId ? eq(messages.transactionId, query.transactionId) : undefined,
        query.subscriberId ? eq(messages.subscriberId, query.subscriberId) : undefined,
        query.workflow ? eq(messages.workflowKey, query.workflow) : undefined,
        query.channel ? eq(messages.channel, query.channel) : undefined,
        query.status ? eq(messages.status, query.status) : undefined,
        query.provider ? eq(messages.provider, query.provider) : undefined,
        since !== undefined ? gte(messages.createdAt, new Date(since)) : undefined,
        until !== undefined ? lte(messages.createdAt, new Date(until)) : undefined,
      ];
      if (cursor) filters.push(olderThan(messages.createdAt, messages.id, cursor));
      const [logged, legacy] = await Promise.all([
        logs.list(filter),
        // D1's legacy messages predate tenants and context: none matches a filter on them.
        query.tenant || context
          ? []
          : withVersion()
              .where(and(...filters))
              .orderBy(desc(messages.createdAt), desc(messages.id))
              .limit(query.limit + 1),
      ]);
      // A log row keeps its versions; one written before it did (null) reads its trigger's below.
      const rows = [
        ...logged.map((m) => ({
          message: fromLog(m),
          workflowVersion: m.workflowVersion ?? undefined,
          layoutVersion: m.layoutVersion ?? null,
          tenancy: tenancyOf(m),
        })),
        ...legacy.map((r) => ({ ...r, layoutVersion: null, tenancy: NO_TENANCY })),
      ].sort((a, b) => newestFirst(a.message, b.message));
      const page = keysetPage(rows, query.limit, ({ message }) => messageCursor.encode([message.createdAt.getTime(), message.id]));
      // Only the older log rows' versions, in one more query, and none when every row kept its own.
      const versions = await versionsOf(page.rows.filter((r) => r.workflowVersion === undefined).map((r) => r.message.transactionId));
      return {
        data: page.rows.map(({ message, workflowVersion, layoutVersion, tenancy }) =>
          toMessage(
            message,
            workflowVersion === undefined ? (versions.get(message.transactionId) ?? null) : workflowVersion,
            layoutVersion,
            tenancy,
          ),
        ),
        nextCursor: page.nextCursor,
      };
    },

    /** A message with its timeline: from the log when its id carries a partition, else D1's legacy rows. */
    async find(id: string) {
      const found = partitionOfId(id) !== null ? await findLogged(id) : await findLegacy(id);
      if (!found) return null;
      return {
        ...toMessage(found.message, found.workflowVersion, found.layoutVersion, found.tenancy),
        content: found.message.content ?? null,
        events: found.events.map((e) => ({ status: e.status, at: e.at.toISOString(), detail: e.detail ?? null })),
      };
    },

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
      return {
        transactionId,
        workflow: row.workflowKey,
        workflowVersion: row.workflowVersion,
        status: row.status,
        acceptedAt: new Date(row.acceptedAt).toISOString(),
        payload: row.payload,
        actor: actorOf(row.actor),
        overrides: row.overrides ?? null,
        tenant: inLog?.tenantId ?? null,
        context: inLog?.context ?? null,
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
