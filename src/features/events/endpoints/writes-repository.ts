import { webhookEndpoints } from "../../../db/schema";
import { type AuditContext, auditStatement } from "../../../db/queries/audit";
import { forgetEventsTaken } from "../../../db/queries/fact-events";
import { newId } from "../../../lib/ids";
import { audited, type EndpointRow as Row, toWebhookEndpoint } from "./rows";
import type { WebhookEndpoint, WebhookEndpointCreated, WebhookEndpointInput, WebhookEndpointUpdate } from "./schemas";
import type { EndpointScope } from "./scope-repository";
import { newWebhookSecret } from "./signature";

/** The columns an update sets. */
function changesOf(input: WebhookEndpointUpdate, now: Date): Partial<Row> {
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
  return changes;
}

/** Creating, changing and deleting endpoints, each with its audit entry in the same batch. */
export function endpointWrites({ db, environmentId, byId, seal, find }: EndpointScope) {
  return {
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
      forgetEventsTaken(environmentId);
      return { ...toWebhookEndpoint(values), secret };
    },

    async update(id: string, input: WebhookEndpointUpdate, context: AuditContext, now = new Date()): Promise<WebhookEndpoint | undefined> {
      const current = await find(id);
      if (!current) return undefined;
      const changes = changesOf(input, now);
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
      forgetEventsTaken(environmentId);
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
      forgetEventsTaken(environmentId);
      return deleted.length > 0;
    },
  };
}
