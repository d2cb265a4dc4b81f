import type { Bindings } from "../env";

export const DEFAULT_LEDGER_SHARDS = 32;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** The ledger layouts in use: the shard count of new triggers, and the one before it (0: none). */
export const shardCounts = (env: Pick<Bindings, "LEDGER_SHARDS" | "LEDGER_SHARDS_PREVIOUS">) => ({
  current: positive(env.LEDGER_SHARDS, DEFAULT_LEDGER_SHARDS),
  previous: positive(env.LEDGER_SHARDS_PREVIOUS, 0),
});

/** Timing knobs, from wrangler vars; tests and the chaos script shorten them. */
export function ledgerTimings(env: Pick<Bindings, "OUTBOX_FLUSH_MS" | "WATCHDOG_STALL_SECONDS" | "IDEMPOTENCY_WINDOW_HOURS">) {
  return {
    /** How long accepted jobs gather in the outbox before one sendBatch takes them to the Queue. */
    flushMs: positive(env.OUTBOX_FLUSH_MS, 20),
    /** A live trigger with no sign of progress for this long has its unfinished work enqueued again. */
    stallMs: positive(env.WATCHDOG_STALL_SECONDS, 120) * 1000,
    /** Finished triggers are forgotten after this long; until then a replayed transactionId answers as before. */
    retentionMs: positive(env.IDEMPOTENCY_WINDOW_HOURS, 24) * 3_600_000,
  };
}

export type LedgerTimings = ReturnType<typeof ledgerTimings>;
