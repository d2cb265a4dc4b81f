import type { Bindings } from "../../env";

/**
 * Ledger names carry their layout (`v1/<count>/<shard>`), so the shard count can grow: with
 * `LEDGER_SHARDS_PREVIOUS` set, lookups also ask the old layout until its triggers expire.
 */
const LAYOUT_VERSION = "v1";
export const DEFAULT_LEDGER_SHARDS = 32;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** FNV-1a: its low bits mix every character, so shards fill evenly for any count. */
function fnv1a(text: string): number {
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
export const ledgerNameFor = (env: Bindings, environmentId: string, transactionId: string) =>
  ledgerNameIn(positive(env.LEDGER_SHARDS, DEFAULT_LEDGER_SHARDS), environmentId, transactionId);

/** Every ledger that may hold a trigger: the current layout first, then the previous one if configured. */
export function ledgerNamesFor(env: Bindings, environmentId: string, transactionId: string): string[] {
  const names = [ledgerNameFor(env, environmentId, transactionId)];
  const previous = positive(env.LEDGER_SHARDS_PREVIOUS, 0);
  if (previous > 0) names.push(ledgerNameIn(previous, environmentId, transactionId));
  return [...new Set(names)];
}

/** Every shard of the current layout and, if configured, of the previous one: for work that concerns all triggers of an environment. */
export function allLedgerNames(env: Bindings): string[] {
  const counts = new Set([positive(env.LEDGER_SHARDS, DEFAULT_LEDGER_SHARDS), positive(env.LEDGER_SHARDS_PREVIOUS, 0)]);
  return [...counts].flatMap((count) => Array.from({ length: count }, (_, shard) => `${LAYOUT_VERSION}/${count}/${shard}`));
}

export const ledgerStub = (env: Bindings, name: string) => env.LEDGERS.get(env.LEDGERS.idFromName(name));

export const coordinatorName = (environmentId: string, transactionId: string) => `${environmentId}:${transactionId}`;

export const coordinatorStub = (env: Bindings, environmentId: string, transactionId: string) =>
  env.COORDINATORS.get(env.COORDINATORS.idFromName(coordinatorName(environmentId, transactionId)));

/** Timing knobs, from wrangler vars; tests and the chaos script shorten them. */
export function ledgerTimings(env: Bindings) {
  return {
    /** How long accepted jobs gather in the outbox before one sendBatch takes them to the Queue. */
    flushMs: positive(env.OUTBOX_FLUSH_MS, 20),
    /** A live trigger with no sign of progress for this long has its unfinished work enqueued again. */
    stallMs: positive(env.WATCHDOG_STALL_SECONDS, 120) * 1000,
    /** Finished triggers are forgotten after this long; until then a replayed transactionId answers as before. */
    retentionMs: positive(env.IDEMPOTENCY_WINDOW_HOURS, 24) * 3_600_000,
  };
}
