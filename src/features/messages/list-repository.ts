import type { z } from "@hono/zod-openapi";
import { and, desc, eq, gte, lte, type SQL } from "drizzle-orm";
import { olderThan } from "../../db/keyset-window";
import { messages } from "../../db/schema";
import type { MessageFilter } from "../../durable-objects/client/log-store";
import { keysetPage } from "../../lib/pagination";
import { fromLog, NO_TENANCY, newestFirst, tenancyOf, toMessage } from "./log-rows";
import { type MessageQuery, messageCursor } from "./schemas";
import type { MessageScope } from "./scope-repository";

/** Listing messages across the log and D1's legacy rows. */
export function messageList({ environmentId, logs, versionsOf, withVersion }: MessageScope) {
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
  };
}
