// What delivery and the hosted pages read of tenants: below the features, so the queue consumer
// and the pages share them with the API.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { SubscriberPreferences } from "../../contract/preferences";
import type { TenantBrand, TenantPreferences, TenantView } from "../../contract/tenants";
import type { Db } from "../client";
import { subscriberTenantPreferences, tenants } from "../schema";

/** What delivery and the hosted pages need of a tenant. */
export interface LoadedTenant extends TenantView {
  brand: TenantBrand | null;
  preferences: TenantPreferences | null;
}

export async function findTenant(db: Db, environmentId: string, tenantId: string): Promise<LoadedTenant | null> {
  const [row] = await db
    .select()
    .from(tenants)
    .where(and(eq(tenants.environmentId, environmentId), eq(tenants.tenantId, tenantId)))
    .limit(1);
  return row ? { id: row.tenantId, name: row.name, data: row.data ?? {}, brand: row.brand, preferences: row.preferences } : null;
}

/** The subscribers' preferences for one tenant, by subscriberId (absent: none saved). */
export async function subscriberTenantPreferencesOf(
  db: Db,
  environmentId: string,
  tenantId: string,
  subscriberIds: readonly string[],
): Promise<Map<string, SubscriberPreferences>> {
  if (subscriberIds.length === 0) return new Map();
  const rows = await db
    .select({ subscriberId: subscriberTenantPreferences.subscriberId, preferences: subscriberTenantPreferences.preferences })
    .from(subscriberTenantPreferences)
    .where(
      and(
        eq(subscriberTenantPreferences.environmentId, environmentId),
        eq(subscriberTenantPreferences.tenantId, tenantId),
        // One bound parameter for the list: a chunk of 50 recipients stays far below D1's 100.
        inArray(subscriberTenantPreferences.subscriberId, sql`(select value from json_each(${JSON.stringify(subscriberIds)}))`),
      ),
    );
  return new Map(rows.map((r) => [r.subscriberId, r.preferences]));
}

/** A tenant named inline by triggers: created when missing, the fields given updated (like an inline subscriber). */
export interface InlineTenant {
  id: string;
  name?: string | undefined;
  data?: Record<string, unknown> | undefined;
}

/** One statement per tenant; the caller batches them with its other writes. */
export function upsertTenantStatement(db: Db, environmentId: string, tenant: InlineTenant, now: Date) {
  return db
    .insert(tenants)
    .values({
      environmentId,
      tenantId: tenant.id,
      name: tenant.name ?? null,
      data: tenant.data ?? null,
      brand: null,
      preferences: null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [tenants.environmentId, tenants.tenantId],
      set: {
        ...(tenant.name !== undefined ? { name: tenant.name } : {}),
        ...(tenant.data !== undefined ? { data: tenant.data } : {}),
        updatedAt: now,
      },
    });
}
