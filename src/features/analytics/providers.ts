import type { z } from "@hono/zod-openapi";
import type { LatencyRow } from "../../durable-objects/client/log-store";
import { LATENCY_BUCKETS_MS } from "../../durable-objects/client/rollup-bounds";
import type { Data } from "../data";
import { byReason, MASKS, reaches } from "./figures";
import { rangeOf, rangeView, ratio, rollupQuery } from "./range";
import type { ProvidersQuery, ProvidersReport } from "./schemas";

/** The upper bound of the bucket holding the `p` quantile; null with no sample or above the last bound. */
export function quantileBound(histogram: { bucket: number; n: number }[], p: number): number | null {
  const total = histogram.reduce((n, h) => n + h.n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const h of [...histogram].sort((a, b) => a.bucket - b.bucket)) {
    seen += h.n;
    if (seen >= rank) return LATENCY_BUCKETS_MS[h.bucket] ?? null;
  }
  return null;
}

const keyOf = (channel: string, provider: string | null) => JSON.stringify([channel, provider]);

/** Per (channel, provider): volume, delivery and bounce rates, send latency from the histogram, failures by code. */
export async function providerFigures(data: Data, q: z.infer<typeof ProvidersQuery>): Promise<ProvidersReport> {
  const range = rangeOf(q);
  const part = await data.analytics.rollups(rollupQuery(range, q), ["counts", "latency"]);
  const counts = Map.groupBy(part.counts ?? [], (r) => keyOf(r.channel, r.provider));
  const latency = new Map<string, Map<number, number>>();
  for (const l of part.latency ?? ([] as LatencyRow[])) {
    const key = keyOf(l.channel, l.provider);
    const buckets = latency.get(key) ?? new Map<number, number>();
    buckets.set(l.bucket, (buckets.get(l.bucket) ?? 0) + l.n);
    latency.set(key, buckets);
  }
  const report = [...counts].map(([key, rows]) => {
    const [channel, provider] = JSON.parse(key) as [string, string | null];
    const count = (mask: number) => rows.reduce((n, r) => n + (reaches(r, mask) ? r.n : 0), 0);
    const histogram = [...(latency.get(key) ?? new Map<number, number>())].map(([bucket, n]) => ({ bucket, n }));
    histogram.sort((a, b) => a.bucket - b.bucket);
    const sent = count(MASKS.sent);
    const delivered = count(MASKS.delivered);
    const bounced = count(MASKS.bounced);
    return {
      channel,
      provider,
      messages: rows.reduce((n, r) => n + r.n, 0),
      sent,
      delivered,
      bounced,
      failed: count(MASKS.failed),
      deliveryRate: ratio(delivered, sent),
      bounceRate: ratio(bounced, sent),
      latencyP50Ms: quantileBound(histogram, 0.5),
      latencyP95Ms: quantileBound(histogram, 0.95),
      latency: histogram.map((h) => ({ leMs: LATENCY_BUCKETS_MS[h.bucket] ?? null, n: h.n })),
      failedByReason: byReason(rows, MASKS.failed),
    };
  });
  report.sort((a, b) => b.messages - a.messages || keyOf(a.channel, a.provider).localeCompare(keyOf(b.channel, b.provider)));
  return { range: rangeView(range), data: report };
}
