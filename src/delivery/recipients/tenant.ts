import type { SubscriberPreferences } from "../../contract/preferences";
import type { Db } from "../../db/client";
import { findTenant, type LoadedTenant, subscriberTenantPreferencesOf } from "../../db/queries/tenants";
import type { TriggerRecord } from "../../jobs/trigger-record";

export type { LoadedTenant };

/**
 * The trigger's tenant as it is now, and the chunk's subscribers' preferences inside it: two
 * reads, beside the chunk's others, and none for a trigger without a tenant. A tenant deleted
 * since the trigger was accepted renders with what the trigger gave of it (its id at least).
 */
export async function tenantOfTrigger(
  db: Db,
  environmentId: string,
  trigger: TriggerRecord,
  subscriberIds: readonly string[],
): Promise<{ tenant: LoadedTenant; preferences: Map<string, SubscriberPreferences> } | null> {
  const given = trigger.tenant;
  if (!given) return null;
  const [row, preferences] = await Promise.all([
    findTenant(db, environmentId, given.id),
    subscriberTenantPreferencesOf(db, environmentId, given.id, subscriberIds),
  ]);
  const tenant = row ?? { id: given.id, name: given.name ?? null, data: given.data ?? {}, brand: null, preferences: null };
  return { tenant, preferences };
}
