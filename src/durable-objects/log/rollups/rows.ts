// What the analytics rollups of a log shard answer. They cross RPC as stored: times in epoch ms.

/** Which rows an analytics read takes: messages created in [since, until), narrowed by the given dimensions. */
export interface AnalyticsQuery {
  since: number;
  until: number;
  /** Rows are summed per bucket of this many ms (an hour or a day), aligned to the epoch (UTC). */
  bucketMs: number;
  tenantId?: string;
  workflowKey?: string;
  channel?: string;
  provider?: string;
}

/**
 * Messages created in one bucket with one set of dimensions and one set of states reached (a bit
 * per status, as `messages.states`): any figure (sent, delivered or further, failed ...) is a
 * mask over `states`, so a message counts once under each figure it reached. `reason` is the
 * message's error code when it failed, bounced, was undeliverable, skipped or cancelled.
 */
export interface CountRow {
  at: number;
  workflowKey: string;
  stepId: string;
  channel: string;
  provider: string | null;
  tenantId: string | null;
  states: number;
  reason: string | null;
  n: number;
}

/** Send latency (from the attempt's start to the provider's answer) of messages sent, per bucket, in LATENCY_BUCKETS_MS. */
export interface LatencyRow {
  at: number;
  channel: string;
  provider: string | null;
  /** Index into LATENCY_BUCKETS_MS; the last index is above the last bound. */
  bucket: number;
  n: number;
}

/** Triggers recorded (from the trigger's shard) and distinct recipients with a message (from theirs), per workflow. */
export interface AudienceRow {
  at: number;
  workflowKey: string;
  tenantId: string | null;
  triggers: number;
  recipients: number;
}

/** Failed messages grouped by provider, code and error text (addresses, numbers and ids masked), with an example. */
export interface ErrorGroupRow {
  provider: string | null;
  channel: string;
  code: string;
  message: string;
  n: number;
  firstAt: number;
  lastAt: number;
  exampleMessageId: string;
}

/**
 * Messages sent per subscriber per UTC day. Every message of a subscriber lives in one shard, so a
 * shard's distribution and top list are exact, and shards' answers add up.
 */
export interface FatigueSummary {
  /** How many (subscriber, day) pairs had exactly `messages` messages. */
  distribution: { messages: number; subscriberDays: number }[];
  /** The subscribers with the most messages in the range. */
  top: { subscriberId: string; messages: number; days: number; maxPerDay: number }[];
}

/** A subscriber's messages on one day (the day of an opt-out, or the one before). */
export interface DayVolume {
  subscriberId: string;
  day: number;
  messages: number;
}

/** What one shard holds for an analytics read; each part only when asked for. */
export interface AnalyticsPart {
  counts?: CountRow[];
  latency?: LatencyRow[];
  audience?: AudienceRow[];
  errors?: ErrorGroupRow[];
  fatigue?: FatigueSummary;
}

export type AnalyticsPartName = keyof AnalyticsPart;

/** Upper bounds of the send latency histogram, in ms (Prometheus-style `le`); above the last is the last bucket. */
export const LATENCY_BUCKETS_MS = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000] as const;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
