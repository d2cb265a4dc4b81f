/**
 * What the accept path needs to know about a workflow, cached in the isolate for a few seconds
 * so a burst of triggers does not read D1 for every request (D1 has one writer and the
 * consumer writes to it). A change through this isolate's API clears the entry at once; other
 * isolates see it within the TTL, as with API keys.
 */
export interface WorkflowGate {
  id: string;
  key: string;
  /** The version a trigger accepted now runs, to its last step. */
  version: number;
  active: boolean;
  payloadSchema: Record<string, unknown> | null;
  /** The environment's content stamp (layouts, partials) read with the gate: what a trigger accepted now renders with. */
  contentStamp: number;
  /** The messages each recipient is planned to get at most: channel steps along the longest way through its branches. */
  channelSteps: number;
  /** The environment's brand version and translations revision and default locale: a trigger renders with them. */
  brandVersion: number;
  translationsRevision: number;
  defaultLocale: string;
}

export const GATE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const cache = new Map<string, { gate: WorkflowGate | null; expiresAt: number }>();
const keyOf = (environmentId: string, workflowKey: string) => `${environmentId}\u0000${workflowKey}`;

export function cachedGate(environmentId: string, workflowKey: string, now = Date.now()): WorkflowGate | null | undefined {
  const hit = cache.get(keyOf(environmentId, workflowKey));
  return hit && hit.expiresAt > now ? hit.gate : undefined;
}

export function rememberGate(environmentId: string, workflowKey: string, gate: WorkflowGate | null, now = Date.now()): void {
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(keyOf(environmentId, workflowKey), { gate, expiresAt: now + GATE_TTL_MS });
}

export function forgetGate(environmentId: string, workflowKey: string): void {
  cache.delete(keyOf(environmentId, workflowKey));
}

/** A change to what every workflow of an environment renders with (a layout or partial, its brand, its translations) moves the pins its gates carry: all of its gates go. */
export function forgetEnvironmentGates(environmentId: string): void {
  const prefix = `${environmentId}\u0000`;
  for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
}
