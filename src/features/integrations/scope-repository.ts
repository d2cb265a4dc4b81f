import { and, eq, isNull, ne } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations } from "../../db/schema";
import type { IntegrationRow as Row } from "./rows";

/** One environment's integrations: the predicate by id, the one-primary-per-channel rule, and the row by id. */
export function integrationScope(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byId = (id: string) => and(eq(integrations.environmentId, environmentId), eq(integrations.id, id));
  /**
   * Only one primary per channel and owner (the environment, or one tenant): clears it on the
   * others, in the same batch as the write that sets it.
   */
  const clearPrimary = (channel: string, tenantId: string | null, exceptId: string, now: Date) =>
    db
      .update(integrations)
      .set({ primary: false, updatedAt: now })
      .where(
        and(
          eq(integrations.environmentId, environmentId),
          eq(integrations.channel, channel),
          tenantId === null ? isNull(integrations.tenantId) : eq(integrations.tenantId, tenantId),
          eq(integrations.primary, true),
          ne(integrations.id, exceptId),
        ),
      );

  async function findRow(id: string): Promise<Row | undefined> {
    const [row] = await db.select().from(integrations).where(byId(id)).limit(1);
    return row;
  }

  return { db, environmentId, encryptionKey, byId, clearPrimary, findRow };
}

export type IntegrationScope = ReturnType<typeof integrationScope>;
