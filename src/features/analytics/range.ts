import type { AnalyticsQuery } from "../../durable-objects/client/log-store";
import { DAY_MS, HOUR_MS } from "../../durable-objects/client/rollup-bounds";
import { ApiError } from "../../lib/errors";
import { type AnalyticsRangeQuery, DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from "./schemas";

export const BUCKET_MS = { hour: HOUR_MS, day: DAY_MS } as const;

export interface Range {
  since: number;
  until: number;
  bucketMs: number;
  granularity: AnalyticsRangeQuery["granularity"];
}

/** The range asked for, aligned outwards to whole buckets (UTC), or a problem when it is backwards or too long. */
export function rangeOf(query: Pick<AnalyticsRangeQuery, "from" | "to" | "granularity">, now = Date.now()): Range {
  const bucketMs = BUCKET_MS[query.granularity];
  const rawUntil = query.to ? Date.parse(query.to) : now;
  const rawSince = query.from ? Date.parse(query.from) : rawUntil - DEFAULT_RANGE_DAYS * DAY_MS;
  if (rawSince >= rawUntil)
    throw new ApiError("validation_failed", "`from` must be before `to`.", [{ path: "from", message: "Must be before to." }]);
  const since = Math.floor(rawSince / bucketMs) * bucketMs;
  const until = Math.ceil(rawUntil / bucketMs) * bucketMs;
  if (until - since > MAX_RANGE_DAYS * DAY_MS)
    throw new ApiError(
      "range_too_long",
      `An analytics range spans at most ${MAX_RANGE_DAYS} days once aligned to whole ${query.granularity}s.`,
      [{ path: query.from ? "from" : "to", message: `At most ${MAX_RANGE_DAYS} days before to.` }],
    );
  return { since, until, bucketMs, granularity: query.granularity };
}

export const rangeView = (r: Range) => ({
  from: new Date(r.since).toISOString(),
  to: new Date(r.until).toISOString(),
  granularity: r.granularity,
});

/** a / b, or null when b is 0. */
export const ratio = (a: number, b: number) => (b === 0 ? null : a / b);

/** The filters an analytics query may carry, as the rollups name them. */
export interface RollupFilters {
  tenant?: string | undefined;
  workflow?: string | undefined;
  channel?: string | undefined;
  provider?: string | undefined;
}

/** The rollup read of a range, narrowed by the query's filters. */
export const rollupQuery = (r: Pick<Range, "since" | "until" | "bucketMs">, q: RollupFilters): AnalyticsQuery => ({
  since: r.since,
  until: r.until,
  bucketMs: r.bucketMs,
  tenantId: q.tenant,
  workflowKey: q.workflow,
  channel: q.channel,
  provider: q.provider,
});
