import { integrations } from "../../db/schema";
import { sealCredentials } from "../../db/queries/integrations";
import type { ProviderChannel } from "../../engine/steps";
import { newId } from "../../lib/ids";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { audited, toIntegration } from "./rows";
import type { Integration, IntegrationInput } from "./schemas";
import type { IntegrationScope } from "./scope-repository";

/** Adding and deleting integrations, each with its audit entry in the same batch. */
export function integrationWrites({ db, environmentId, encryptionKey, byId, clearPrimary, findRow }: IntegrationScope) {
  return {
    /** `input` is validated (provider known, credentials of its form); `channel` is the provider's. */
    async create(input: IntegrationInput, channel: ProviderChannel, context: AuditContext, now = new Date()): Promise<Integration> {
      const id = newId("int");
      const values = {
        id,
        environmentId,
        provider: input.provider,
        channel,
        name: input.name ?? input.provider,
        active: input.active,
        primary: input.primary,
        priority: input.priority,
        credentials: await sealCredentials({ environmentId, id }, input.credentials, encryptionKey),
        settings: input.settings,
        baseUrl: input.baseUrl ?? null,
        tenantId: input.tenantId ?? null,
        createdAt: now,
        updatedAt: now,
      };
      const created = await toIntegration(values, encryptionKey);
      const insert = db.insert(integrations).values(values);
      const audit = auditStatement(db, context, {
        environmentId,
        resource: "integration",
        resourceId: id,
        action: "created",
        before: null,
        after: audited(created),
      });
      if (input.primary) await db.batch([clearPrimary(channel, values.tenantId, id, now), insert, audit]);
      else await db.batch([insert, audit]);
      return created;
    },

    async remove(id: string, context: AuditContext): Promise<boolean> {
      const row = await findRow(id);
      if (!row) return false;
      const [rows] = await db.batch([
        db.delete(integrations).where(byId(id)).returning({ id: integrations.id }),
        auditStatement(db, context, {
          environmentId,
          resource: "integration",
          resourceId: id,
          action: "deleted",
          before: audited(await toIntegration(row, encryptionKey)),
          after: null,
        }),
      ]);
      return rows.length > 0;
    },
  };
}
