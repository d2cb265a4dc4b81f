import { and, count, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../../db/client";
import type { BatchItem } from "drizzle-orm/batch";
import { webhookAttempts, webhookEndpoints } from "../../../db/schema";
import { newId } from "../../../lib/ids";
import { keysetPage } from "../../../lib/pagination";
import { maskedUrl, withoutPassword } from "./masked-url";
import { decryptJson, encryptJson, webhookEndpointAad } from "../../../lib/secrets";
import type { EventType } from "../../../contract/event-types";
import { idCursor } from "../../../lib/cursor";
import { newWebhookSecret } from "./signature";
import { type AuditContext, auditStatement } from "../../../db/queries/audit";
import type {
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointInput,
  WebhookEndpointList,
  WebhookEndpointQuery,
  WebhookEndpointSecret,
  WebhookEndpointUpdate,
} from "./schemas";

type Row = typeof webhookEndpoints.$inferSelect;

export const toWebhookEndpoint = (row: Row): WebhookEndpoint => ({
  id: row.id,
  // Endpoints saved before credentials in URLs were refused may hold one: never shown again.
  url: withoutPassword(row.url),
  events: row.events ?? null,
  tenants: row.tenants ?? null,
  description: row.description ?? null,
  enabled: row.enabled,
  disabledReason: row.disabledReason === "gone" || row.disabledReason === "failing" ? row.disabledReason : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * What the audit log keeps of an endpoint: its API view (which never holds the secret), without
 * the timestamps, and its URL without query values (receivers put tokens there; the log keeps a year).
 */
const audited = (row: Row) => {
  const { createdAt: _c, updatedAt: _u, ...view } = toWebhookEndpoint(row);
  return { ...view, url: maskedUrl(view.url) };
};

/** Whether an endpoint takes events of `type`: null subscribes to every type. */
export const takesEvent = (row: Pick<Row, "events">, type: EventType) => row.events === null || row.events.includes(type);

/** Whether an endpoint takes an event of this tenant (null: an event of none): an endpoint without a tenant list takes all. */
export const takesTenant = (row: Pick<Row, "tenants">, tenant: string | null) =>
  row.tenants === null || (tenant !== null && row.tenants.includes(tenant));

/** An endpoint ready to send to: its row and the secrets that sign right now (the newest first). */
export interface SendableEndpoint {
  row: Row;
  secrets: string[];
}

/** The webhook endpoints of one environment; secrets are encrypted at rest, bound to their row. */
export function webhookEndpointsRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byId = (id: string) => and(eq(webhookEndpoints.environmentId, environmentId), eq(webhookEndpoints.id, id));
  const aad = (id: string) => webhookEndpointAad(environmentId, id);
  const seal = (id: string, secret: string) => encryptJson(encryptionKey, secret, aad(id));
  const open = (id: string, sealed: string) => decryptJson<string>(encryptionKey, sealed, aad(id));

  async function find(id: string): Promise<Row | undefined> {
    const [row] = await db.select().from(webhookEndpoints).where(byId(id)).limit(1);
    return row;
  }

  /** The old secret while its overlap lasts; null once it has ended. */
  async function openPrevious(row: Row, now: Date): Promise<{ secret: string; expiresAt: Date } | null> {
    if (!row.previousSecret || !row.previousSecretExpiresAt || row.previousSecretExpiresAt <= now) return null;
    return { secret: await open(row.id, row.previousSecret), expiresAt: row.previousSecretExpiresAt };
  }

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
      if (endpointChange) statements.push(db.update(webhookEndpoints).set(endpointChange).where(byId(attempt.endpointId)));
      return statements;
    },

    find,

    async count(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.environmentId, environmentId));
      return row?.n ?? 0;
    },

    async create(input: WebhookEndpointInput, context: AuditContext, now = new Date()): Promise<WebhookEndpointCreated> {
      const id = newId("ep");
      const secret = newWebhookSecret();
      const values: Row = {
        id,
        environmentId,
        url: input.url,
        events: input.events ?? null,
        tenants: input.tenants ?? null,
        description: input.description ?? null,
        enabled: input.enabled,
        secret: await seal(id, secret),
        previousSecret: null,
        previousSecretExpiresAt: null,
        disabledReason: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await db.batch([
        db.insert(webhookEndpoints).values(values),
        auditStatement(db, context, {
          environmentId,
          resource: "webhook_endpoint",
          resourceId: id,
          action: "created",
          before: null,
          after: audited(values),
        }),
      ]);
      return { ...toWebhookEndpoint(values), secret };
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

    /** Every endpoint of the environment that is on; the dispatcher filters them by event type. */
    enabled: () =>
      db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.environmentId, environmentId), eq(webhookEndpoints.enabled, true))),

    async update(id: string, input: WebhookEndpointUpdate, context: AuditContext, now = new Date()): Promise<WebhookEndpoint | undefined> {
      const current = await find(id);
      if (!current) return undefined;
      const changes: Partial<Row> = { updatedAt: now };
      if (input.url !== undefined) changes.url = input.url;
      if (input.events !== undefined) changes.events = input.events;
      if (input.tenants !== undefined) changes.tenants = input.tenants;
      if (input.description !== undefined) changes.description = input.description;
      if (input.enabled !== undefined) {
        changes.enabled = input.enabled;
        // Turned on again by hand: the failure clock and Clarion's reason start over.
        changes.disabledReason = null;
        if (input.enabled) changes.failingSince = null;
      }
      const [[row]] = await db.batch([
        db.update(webhookEndpoints).set(changes).where(byId(id)).returning(),
        auditStatement(db, context, {
          environmentId,
          resource: "webhook_endpoint",
          resourceId: id,
          action: "updated",
          before: audited(current),
          after: audited({ ...current, ...changes }),
        }),
      ]);
      return row ? toWebhookEndpoint(row) : undefined;
    },

    async remove(id: string, context: AuditContext): Promise<boolean> {
      const current = await find(id);
      if (!current) return false;
      const [deleted] = await db.batch([
        db.delete(webhookEndpoints).where(byId(id)).returning({ id: webhookEndpoints.id }),
        auditStatement(db, context, {
          environmentId,
          resource: "webhook_endpoint",
          resourceId: id,
          action: "deleted",
          before: audited(current),
          after: null,
        }),
      ]);
      return deleted.length > 0;
    },

    async secret(id: string, now = new Date()): Promise<WebhookEndpointSecret | undefined> {
      const row = await find(id);
      if (!row) return undefined;
      const previous = await openPrevious(row, now);
      return {
        secret: await open(row.id, row.secret),
        previousSecret: previous?.secret ?? null,
        previousSecretExpiresAt: previous?.expiresAt.toISOString() ?? null,
      };
    },

    /** A new secret; the current one keeps signing beside it for `overlapHours` (0: not at all). */
    async rotateSecret(
      id: string,
      overlapHours: number,
      context: AuditContext,
      now = new Date(),
    ): Promise<WebhookEndpointSecret | undefined> {
      const row = await find(id);
      if (!row) return undefined;
      const secret = newWebhookSecret();
      const expiresAt = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000) : null;
      await db.batch([
        db
          .update(webhookEndpoints)
          .set({
            secret: await seal(id, secret),
            previousSecret: expiresAt ? row.secret : null,
            previousSecretExpiresAt: expiresAt,
            updatedAt: now,
          })
          .where(byId(id)),
        auditStatement(db, context, {
          environmentId,
          resource: "webhook_endpoint",
          resourceId: id,
          action: "rotated",
          before: audited(row),
          after: { ...audited(row), secret: "rotated", previousSecretExpiresAt: expiresAt?.toISOString() ?? null },
        }),
      ]);
      return {
        secret,
        previousSecret: expiresAt ? await open(row.id, row.secret) : null,
        previousSecretExpiresAt: expiresAt?.toISOString() ?? null,
      };
    },

    /** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
    async sendable(row: Row, now = new Date()): Promise<SendableEndpoint> {
      const previous = await openPrevious(row, now);
      return { row, secrets: [await open(row.id, row.secret), ...(previous ? [previous.secret] : [])] };
    },
  };
}

export type WebhookEndpointsRepository = ReturnType<typeof webhookEndpointsRepository>;
