import type { Data } from "../data";

/**
 * Tenant ids known to exist, per isolate: a trigger naming its tenant by id is checked here and
 * reads D1 only on a miss, in parallel with the workflow gate, so the accept path gains no round
 * trip in the common case. Only hits are kept: a tenant created a moment ago in another isolate
 * is found at once. A tenant deleted elsewhere is still accepted for up to TTL_MS; its messages
 * then render with the id alone (delivery reads the row).
 */
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const known = new Map<string, number>();
const keyOf = (environmentId: string, tenantId: string) => `${environmentId}\u0000${tenantId}`;

export function forgetTenant(environmentId: string, tenantId: string): void {
  known.delete(keyOf(environmentId, tenantId));
}

/** Which of `ids` are tenants of the environment. */
export async function knownTenants(data: Data, ids: Iterable<string>, now = Date.now()): Promise<Set<string>> {
  const found = new Set<string>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    if ((known.get(keyOf(data.environmentId, id)) ?? 0) > now) found.add(id);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const existing = await data.tenants.existing(missing);
  if (known.size + existing.size > MAX_ENTRIES) known.clear();
  for (const id of existing) {
    found.add(id);
    known.set(keyOf(data.environmentId, id), now + TTL_MS);
  }
  return found;
}
