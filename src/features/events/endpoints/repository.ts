import { and, count, desc, eq, lt } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../db/client";
import { webhookAttempts, webhookEndpoints } from "../../../db/schema";
import { forgetEventsTaken } from "../../../db/queries/fact-events";
import { idCursor } from "../../../lib/cursor";
import { keysetPage } from "../../../lib/pagination";
import { type EndpointRow as Row, type SendableEndpoint, toWebhookEndpoint } from "./rows";
import type { WebhookEndpointList, WebhookEndpointQuery } from "./schemas";
import { type EndpointScope, endpointScope } from "./scope-repository";
import { endpointSecrets } from "./secrets-repository";
import { endpointWrites } from "./writes-repository";

export { type SendableEndpoint, takesEvent, takesTenant, toWebhookEndpoint } from "./rows";

/** Reading endpoints, for the API. */
function endpointReads({ db, environmentId, find }: EndpointScope) {
  return {
    find,

    async count(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.environmentId, environmentId));
      return row?.n ?? 0;
    },

    async list(query: WebhookEndpointQuery): Promise<WebhookEndpointList> {
      const [before] = idCursor.read(query.cursor) ?? [];
      const rows = await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.environmentId, environmentId), before ? lt(webhookEndpoints.id, before) : undefined))
        .orderBy(desc(webhookEndpoints.id))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => idCursor.encode([last.id]));
      return { data: page.rows.map(toWebhookEndpoint), nextCursor: page.nextCursor };
    },
  };
}

/** What the dispatcher needs: the endpoints that are on, the secrets that sign now, and the attempt log's writes. */
function endpointDelivery({ db, environmentId, byId, open, openPrevious }: EndpointScope) {
  return {
    /**
     * The statements that log one delivery attempt and, when its outcome changed the endpoint
     * (turned off, or failing since another time), record that too: for the caller's D1 batch.
     */
    attemptWrites(
      attempt: Omit<typeof webhookAttempts.$inferInsert, "environmentId">,
      endpointChange: Partial<Pick<Row, "enabled" | "disabledReason" | "failingSince" | "updatedAt">> | null,
    ): BatchItem<"sqlite">[] {
      const statements: BatchItem<"sqlite">[] = [db.insert(webhookAttempts).values({ ...attempt, environmentId })];
      if (endpointChange) {
        statements.push(db.update(webhookEndpoints).set(endpointChange).where(byId(attempt.endpointId)));
        forgetEventsTaken(environmentId);
      }
      return statements;
    },

    /** Every endpoint of the environment that is on; the dispatcher filters them by event type. */
    enabled: () =>
      db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.environmentId, environmentId), eq(webhookEndpoints.enabled, true))),

    /** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
    async sendable(row: Row, now = new Date()): Promise<SendableEndpoint> {
      const previous = await openPrevious(row, now);
      return { row, secrets: [await open(row.id, row.secret), ...(previous ? [previous.secret] : [])] };
    },
  };
}

/** The webhook endpoints of one environment; secrets are encrypted at rest, bound to their row. */
export function webhookEndpointsRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const scope = endpointScope(db, environmentId, encryptionKey);
  return { ...endpointReads(scope), ...endpointWrites(scope), ...endpointSecrets(scope), ...endpointDelivery(scope) };
}

export type WebhookEndpointsRepository = ReturnType<typeof webhookEndpointsRepository>;
