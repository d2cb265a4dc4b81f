import { integrations } from "../../db/schema";
import { sealCredentials } from "../../db/queries/integrations";
import type { DestinationOptions } from "../../lib/destinations";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { credentialChange } from "./credential-change";
import { audited, type IntegrationUpdateOutcome, toIntegration } from "./rows";
import type { IntegrationUpdate } from "./schemas";
import type { IntegrationScope } from "./scope-repository";

/** Changing an integration: its credentials only as `credentialChange` allows. */
export function integrationUpdates({ db, environmentId, encryptionKey, byId, clearPrimary, findRow }: IntegrationScope) {
  return {
    /** See `credentialChange` for when stored secrets may follow a moved destination. */
    async update(
      id: string,
      input: IntegrationUpdate,
      policy: DestinationOptions,
      context: AuditContext,
      now = new Date(),
    ): Promise<IntegrationUpdateOutcome> {
      const row = await findRow(id);
      if (!row) return { status: "not_found" };
      const change = await credentialChange(row, input, policy, encryptionKey);
      if ("outcome" in change) return change.outcome;
      const { rewrite } = change;
      const credentials = rewrite !== undefined ? await sealCredentials({ environmentId, id }, rewrite, encryptionKey) : undefined;
      const changes = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.primary !== undefined ? { primary: input.primary } : {}),
        ...(input.priority !== undefined ? { priority: input.priority } : {}),
        ...(input.settings !== undefined ? { settings: input.settings } : {}),
        ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
        ...(input.tenantId !== undefined ? { tenantId: input.tenantId } : {}),
        ...(credentials !== undefined ? { credentials } : {}),
        updatedAt: now,
      };
      const after = { ...row, ...changes };
      const update = db.update(integrations).set(changes).where(byId(id)).returning();
      const audit = auditStatement(db, context, {
        environmentId,
        resource: "integration",
        resourceId: id,
        action: "updated",
        before: audited(await toIntegration(row, encryptionKey)),
        after: audited(await toIntegration(after, encryptionKey)),
      });
      // Moved to another owner as a primary: it takes that owner's primary role.
      const takesPrimary = input.primary === true || (after.primary && after.tenantId !== row.tenantId);
      const [updated] = takesPrimary
        ? (await db.batch([clearPrimary(row.channel, after.tenantId, id, now), update, audit]))[1]
        : (await db.batch([update, audit]))[0];
      return updated ? { status: "updated", integration: await toIntegration(updated, encryptionKey) } : { status: "not_found" };
    },
  };
}
