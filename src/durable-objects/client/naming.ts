import type { Bindings } from "../../env";
import { shardCounts } from "../settings";

/**
 * Ledger names carry their layout (`v1/<count>/<shard>`), so the shard count can grow: with
 * `LEDGER_SHARDS_PREVIOUS` set, lookups also ask the old layout until its triggers expire.
 */
const LAYOUT_VERSION = "v1";

type Layout = Pick<Bindings, "LEDGER_SHARDS" | "LEDGER_SHARDS_PREVIOUS">;

/** FNV-1a: its low bits mix every character, so shards fill evenly for any count. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export const ledgerNameIn = (shards: number, environmentId: string, transactionId: string) =>
  `${LAYOUT_VERSION}/${shards}/${fnv1a(`${environmentId}:${transactionId}`) % shards}`;

/** The ledger a new trigger goes to. */
export const ledgerNameFor = (env: Layout, environmentId: string, transactionId: string) =>
  ledgerNameIn(shardCounts(env).current, environmentId, transactionId);

/** Every ledger that may hold a trigger: the current layout first, then the previous one if configured. */
export function ledgerNamesFor(env: Layout, environmentId: string, transactionId: string): string[] {
  const { current, previous } = shardCounts(env);
  const names = [ledgerNameIn(current, environmentId, transactionId)];
  if (previous > 0) names.push(ledgerNameIn(previous, environmentId, transactionId));
  return [...new Set(names)];
}

/** Every shard of the current layout and, if configured, of the previous one: for work that concerns all triggers of an environment. */
export function allLedgerNames(env: Layout): string[] {
  const { current, previous } = shardCounts(env);
  const counts = new Set([current, previous].filter((n) => n > 0));
  return [...counts].flatMap((count) => Array.from({ length: count }, (_, shard) => `${LAYOUT_VERSION}/${count}/${shard}`));
}

/** A large fan-out's own coordinator. */
export const coordinatorName = (environmentId: string, transactionId: string) => `${environmentId}:${transactionId}`;

/** One digest per (environment, workflow, subscriber, digest key). */
export const digestName = (environmentId: string, workflowKey: string, subscriberId: string, key: string) =>
  JSON.stringify([environmentId, workflowKey, subscriberId, key]);

/** Whether a digest (by name) collects for this subscriber of this environment. */
export function digestCollectsFor(name: string, environmentId: string, subscriberId: string): boolean {
  try {
    const [env, , subscriber] = JSON.parse(name) as unknown[];
    return env === environmentId && subscriber === subscriberId;
  } catch {
    return false;
  }
}

/** One throttle per (environment, workflow, subscriber, throttle key): the same shape as a digest's. */
export const throttleName = digestName;
