import { webhookEndpoints } from "../../../db/schema";
import { type AuditContext, auditStatement } from "../../../db/queries/audit";
import { audited } from "./rows";
import type { WebhookEndpointSecret } from "./schemas";
import type { EndpointScope } from "./scope-repository";
import { newWebhookSecret } from "./signature";

/** An endpoint's signing secrets as its owner sees them: read, and rotated with an overlap. */
export function endpointSecrets({ db, environmentId, byId, seal, open, find, openPrevious }: EndpointScope) {
  return {
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
  };
}
