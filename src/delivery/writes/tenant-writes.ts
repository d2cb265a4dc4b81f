import type { Db } from "../../db/client";
import { upsertTenantStatement } from "../../db/queries/tenants";
import type { TriggerRecord } from "../../jobs/trigger-record";

/**
 * Tenants given inline (`tenant: { id, name?, data? }`) are upserted with the triggers' inline
 * subscribers, before the run reads them; the last trigger of a batch naming a tenant wins.
 */
export function inlineTenantWrites(db: Db, records: readonly TriggerRecord[], now: Date) {
  const byKey = new Map<string, { environmentId: string; tenant: NonNullable<TriggerRecord["tenant"]> }>();
  for (const r of records) {
    const t = r.tenant;
    if (t && (t.name !== undefined || t.data !== undefined))
      byKey.set(`${r.environmentId}\u0000${t.id}`, { environmentId: r.environmentId, tenant: t });
  }
  return [...byKey.values()].map(({ environmentId, tenant }) => upsertTenantStatement(db, environmentId, tenant, now));
}
