import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { SubscriberPreferences } from "../../contract/preferences";
import { subscribers, subscriberTenantPreferences, tenants } from "../../db/schema";
import { applyUpdate } from "../subscribers/preference-diff";
import type { SubscriberPreferencesUpdate } from "../subscribers/preferences-schemas";

const MAX_ATTEMPTS = 5;

export type ScopedPreferences =
  | { status: "ok"; preferences: SubscriberPreferences | null }
  | { status: "subscriber_not_found" }
  | { status: "tenant_not_found" };

/** A subscriber's preferences inside one tenant (they beat the subscriber's own for that tenant's messages). */
export function tenantPreferencesRepository(db: Db, environmentId: string) {
  const read = async (subscriberId: string, tenantId: string) => {
    const [subscriber, tenant, stored] = await db.batch([
      db
        .select({ id: subscribers.id })
        .from(subscribers)
        .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId))),
      db
        .select({ id: tenants.tenantId })
        .from(tenants)
        .where(and(eq(tenants.environmentId, environmentId), eq(tenants.tenantId, tenantId))),
      db
        .select({ preferences: subscriberTenantPreferences.preferences, raw: sql<string>`${subscriberTenantPreferences.preferences}` })
        .from(subscriberTenantPreferences)
        .where(
          and(
            eq(subscriberTenantPreferences.environmentId, environmentId),
            eq(subscriberTenantPreferences.subscriberId, subscriberId),
            eq(subscriberTenantPreferences.tenantId, tenantId),
          ),
        ),
    ]);
    if (!subscriber[0]) return { status: "subscriber_not_found" as const };
    if (!tenant[0]) return { status: "tenant_not_found" as const };
    return { status: "ok" as const, row: stored[0] };
  };

  return {
    async find(subscriberId: string, tenantId: string): Promise<ScopedPreferences> {
      const found = await read(subscriberId, tenantId);
      return found.status === "ok" ? { status: "ok", preferences: found.row?.preferences ?? null } : found;
    },

    /** Merges `update` as the subscriber's own preferences are merged; the write holds only if nothing changed them since they were read. */
    async change(
      subscriberId: string,
      tenantId: string,
      update: SubscriberPreferencesUpdate,
      now = new Date(),
    ): Promise<ScopedPreferences> {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const found = await read(subscriberId, tenantId);
        if (found.status !== "ok") return found;
        const after = applyUpdate(found.row?.preferences ?? null, update);
        const written = await db
          .insert(subscriberTenantPreferences)
          .values({ environmentId, subscriberId, tenantId, preferences: after, updatedAt: now })
          .onConflictDoUpdate({
            target: [
              subscriberTenantPreferences.environmentId,
              subscriberTenantPreferences.subscriberId,
              subscriberTenantPreferences.tenantId,
            ],
            set: { preferences: after, updatedAt: now },
            setWhere: found.row ? sql`${subscriberTenantPreferences.preferences} = ${found.row.raw}` : sql`0`,
          })
          .returning({ preferences: subscriberTenantPreferences.preferences });
        if (written[0]) return { status: "ok", preferences: written[0].preferences };
      }
      throw new Error(`tenant preferences of ${subscriberId} kept changing under ${MAX_ATTEMPTS} attempts`);
    },
  };
}
