import type { Bindings } from "../../env";
import { fnv1a } from "./naming";

/**
 * Log shards are named `log/v1/<count>/<n>`. A row's place is its partition hash mod the count,
 * and ids carry the hash (lib/ids.ts `newLogId`), so with `LOG_SHARDS_PREVIOUS` set a reader
 * asks the old layout too for as long as rows written under it are kept.
 */
const LAYOUT = "log/v1";

export const DEFAULT_LOG_SHARDS = 16;

type Layout = Pick<Bindings, "LOG_SHARDS" | "LOG_SHARDS_PREVIOUS">;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export const logShardCounts = (env: Layout) => ({
  current: positive(env.LOG_SHARDS, DEFAULT_LOG_SHARDS),
  previous: positive(env.LOG_SHARDS_PREVIOUS, 0),
});

/** A subscriber's partition: their messages and timelines live in one shard. */
export const subscriberPartition = (environmentId: string, subscriberId: string) => fnv1a(`${environmentId}:${subscriberId}`);

/** A provider message id's partition: where a provider's report finds the message it names. */
export const providerPartition = (providerMessageId: string) => fnv1a(`p:${providerMessageId}`);

/** A trigger's partition: its record lives in one shard, whoever its recipients are. */
export const triggerPartition = (environmentId: string, transactionId: string) => fnv1a(`t:${environmentId}:${transactionId}`);

export const logShardName = (count: number, partition: number) => `${LAYOUT}/${count}/${partition % count}`;

/** The shard a new row of this partition goes to. */
export const logShardFor = (env: Layout, partition: number) => logShardName(logShardCounts(env).current, partition);

/** Every shard that may hold rows of this partition: the current layout, then the previous one. */
export function logShardsFor(env: Layout, partition: number): string[] {
  const { current, previous } = logShardCounts(env);
  return [...new Set([current, previous].filter((n) => n > 0).map((n) => logShardName(n, partition)))];
}

/** Every shard of both layouts: for reads that concern the whole log (a page of all messages, stats). */
export function allLogShards(env: Layout): string[] {
  const { current, previous } = logShardCounts(env);
  return [...new Set([current, previous].filter((n) => n > 0))].flatMap((count) =>
    Array.from({ length: count }, (_, n) => `${LAYOUT}/${count}/${n}`),
  );
}
