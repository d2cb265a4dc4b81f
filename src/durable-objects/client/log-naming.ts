import type { Bindings } from "../../env";
import { fnv1a } from "./naming";

/**
 * Log shards are named `log/v1/<count>/<n>`. A row's place is its partition hash mod the count,
 * and ids carry the hash (lib/ids.ts `newLogId`), so with `LOG_SHARDS_PREVIOUS` set a reader
 * asks the old layout too for as long as rows written under it are kept.
 *
 * With `LOG_GENERATION_DAYS` = N the log is cut in time too: a row of time t goes to the shards
 * of generation G = floor(t / N days), `log/v1/g<N>d<G>/<count>/<n>`, so no shard holds more
 * than N days and a generation wholly past retention is emptied in one go (log/expiry.ts). The
 * name carries N so a shard knows its own span whatever the setting says later.
 */
const LAYOUT = "log/v1";

export const DEFAULT_LOG_SHARDS = 16;

const DAY_MS = 86_400_000;

/**
 * How far a row's sort time (createdAt) may stray from the time that placed it (its id's, made
 * in the same phase): reads that walk generations by time widen each bound by this much.
 */
export const GENERATION_SKEW_MS = 3_600_000;

/**
 * How far past its trigger's time a send's message id may be made (delivery/writes/message-writes.ts
 * `sendMessageId`: a millisecond per recipient chunk, so a large topic's ids are ordered). Such a
 * row may sit in the generation after now's for that long: reads look that far ahead.
 */
export const SEND_ID_AHEAD_MS = 65_535;

type Layout = Pick<Bindings, "LOG_SHARDS" | "LOG_SHARDS_PREVIOUS" | "LOG_GENERATION_DAYS">;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export const logShardCounts = (env: Layout) => ({
  current: positive(env.LOG_SHARDS, DEFAULT_LOG_SHARDS),
  previous: positive(env.LOG_SHARDS_PREVIOUS, 0),
});

/** Days one generation covers; 0 when the log is one set of shards for all its history. */
export const generationDays = (env: Pick<Bindings, "LOG_GENERATION_DAYS">) => positive(env.LOG_GENERATION_DAYS, 0);

/** A subscriber's partition: their messages and timelines live in one shard. */
export const subscriberPartition = (environmentId: string, subscriberId: string) => fnv1a(`${environmentId}:${subscriberId}`);

/** A provider message id's partition: where a provider's report finds the message it names. */
export const providerPartition = (providerMessageId: string) => fnv1a(`p:${providerMessageId}`);

/** A trigger's partition: its record lives in one shard, whoever its recipients are. */
export const triggerPartition = (environmentId: string, transactionId: string) => fnv1a(`t:${environmentId}:${transactionId}`);

/** A generation: the prefix of its shards' names and the time it covers, [start, end). */
export interface Generation {
  prefix: string;
  start: number;
  end: number;
}

/** The one generation of the layout without generations: all of time. */
const FLAT: Generation = { prefix: LAYOUT, start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY };

const generationNumbered = (days: number, g: number): Generation => ({
  prefix: `${LAYOUT}/g${days}d${g}`,
  start: g * days * DAY_MS,
  end: (g + 1) * days * DAY_MS,
});

/** The generation a row of time `at` goes to. */
export function generationAt(env: Layout, at: number): Generation {
  const days = generationDays(env);
  return days === 0 ? FLAT : generationNumbered(days, Math.floor(at / (days * DAY_MS)));
}

/**
 * The generations that may hold rows of [since, until], newest first: those from `now - keptMs`
 * (what retention keeps) to now (and SEND_ID_AHEAD_MS past it), narrowed by the bounds (each widened by the skew). One, the
 * flat layout, without generations.
 */
export function generationsWithin(env: Layout, now: number, keptMs: number, since?: number, until?: number): Generation[] {
  const days = generationDays(env);
  if (days === 0) return [FLAT];
  const span = days * DAY_MS;
  const ahead = now + SEND_ID_AHEAD_MS;
  const newest = Math.floor(Math.min(ahead, until === undefined ? ahead : until + GENERATION_SKEW_MS) / span);
  const oldest = Math.floor(Math.max(now - keptMs, since === undefined ? now - keptMs : since - GENERATION_SKEW_MS) / span);
  const out: Generation[] = [];
  for (let g = newest; g >= oldest; g--) out.push(generationNumbered(days, g));
  return out;
}

/** The generation a shard's name says it belongs to; null for a shard of the flat layout. */
export function generationOfShard(name: string): Generation | null {
  const m = /^log\/v1\/g(\d+)d(-?\d+)\//.exec(name);
  return m ? generationNumbered(Number(m[1]), Number(m[2])) : null;
}

export const logShardName = (count: number, partition: number, generation: Generation = FLAT) =>
  `${generation.prefix}/${count}/${partition % count}`;

/** The shard a new row of this partition and time goes to (`at` places it only with generations). */
export const logShardFor = (env: Layout, partition: number, at = Date.now()) =>
  logShardName(logShardCounts(env).current, partition, generationAt(env, at));

/** Every shard of a generation that may hold rows of this partition: the current layout, then the previous one. */
export function logShardsFor(env: Layout, partition: number, generation: Generation = generationAt(env, Date.now())): string[] {
  const { current, previous } = logShardCounts(env);
  return [...new Set([current, previous].filter((n) => n > 0).map((n) => logShardName(n, partition, generation)))];
}

/** Every shard of a generation in both layouts: for reads that concern the whole log (a page of all messages, stats). */
export function allLogShards(env: Layout, generation: Generation = generationAt(env, Date.now())): string[] {
  const { current, previous } = logShardCounts(env);
  return [...new Set([current, previous].filter((n) => n > 0))].flatMap((count) =>
    Array.from({ length: count }, (_, n) => logShardName(count, n, generation)),
  );
}

/** A run of one layout's shards of a generation, `<prefix>/<count>/<from>` to `<prefix>/<count>/<to - 1>`: what one erasure job asks. */
export interface ShardSlice {
  prefix: string;
  count: number;
  from: number;
  to: number;
}

/** Every shard of these generations in both layouts, in slices of at most `size` shards. */
export function shardSlices(env: Layout, generations: readonly Generation[], size: number): ShardSlice[] {
  const { current, previous } = logShardCounts(env);
  const counts = [...new Set([current, previous].filter((n) => n > 0))];
  return generations.flatMap((g) =>
    counts.flatMap((count) =>
      Array.from({ length: Math.ceil(count / size) }, (_, i) => ({
        prefix: g.prefix,
        count,
        from: i * size,
        to: Math.min(count, (i + 1) * size),
      })),
    ),
  );
}

export const shardsOfSlice = (s: ShardSlice): string[] =>
  Array.from({ length: s.to - s.from }, (_, i) => `${s.prefix}/${s.count}/${s.from + i}`);
