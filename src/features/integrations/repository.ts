import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations } from "../../db/schema";
import { toConfig } from "../../db/queries/integrations";
import type { ProviderChannel } from "../../engine/steps";
import { idCursor } from "../../lib/cursor";
import { keysetPage } from "../../lib/pagination";
import type { IntegrationConfig } from "../../providers/types";
import { toIntegration } from "./rows";
import type { Integration } from "./schemas";
import { type IntegrationScope, integrationScope } from "./scope-repository";
import { integrationUpdates } from "./update-repository";
import { integrationWrites } from "./writes-repository";

export type { IntegrationUpdateOutcome } from "./rows";

/** Reading integrations: for the API (secrets masked), or as an adapter sees them. */
function integrationReads({ db, environmentId, encryptionKey, findRow }: IntegrationScope) {
  return {
    async find(id: string): Promise<Integration | null> {
      const row = await findRow(id);
      return row ? toIntegration(row, encryptionKey) : null;
    },

    /** The integration as an adapter sees it (credentials in clear), for the check. */
    async config(id: string): Promise<IntegrationConfig | null> {
      const row = await findRow(id);
      return row ? toConfig(row, encryptionKey) : null;
    },

    /** Pages by id, which is time-ordered: oldest first. */
    async list(
      limit: number,
      cursor?: string,
      channel?: ProviderChannel,
      tenant?: string,
    ): Promise<{ data: Integration[]; nextCursor: string | null }> {
      const [after] = idCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(integrations)
        .where(
          and(
            eq(integrations.environmentId, environmentId),
            channel ? eq(integrations.channel, channel) : undefined,
            tenant ? eq(integrations.tenantId, tenant) : undefined,
            after ? gt(integrations.id, after) : undefined,
          ),
        )
        .orderBy(asc(integrations.id))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => idCursor.encode([last.id]));
      return { data: await Promise.all(page.rows.map((row) => toIntegration(row, encryptionKey))), nextCursor: page.nextCursor };
    },
  };
}

/** Integrations of one environment for the API: the environment is fixed once, so no query can forget it. */
export function integrationsRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const scope = integrationScope(db, environmentId, encryptionKey);
  return { ...integrationReads(scope), ...integrationWrites(scope), ...integrationUpdates(scope) };
}
