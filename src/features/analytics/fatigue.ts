import type { z } from "@hono/zod-openapi";
import { DAY_MS } from "../../durable-objects/client/rollup-bounds";
import type { Data } from "../data";
import { rangeOf, rangeView, rollupQuery } from "./range";
import type { FatigueQuery, FatigueReport } from "./schemas";

/** How the opt-outs are bucketed by the messages their subscriber got that day and the day before. */
export const OPT_OUT_VOLUMES: [number, number | null][] = [
  [0, 0],
  [1, 2],
  [3, 5],
  [6, 10],
  [11, 20],
  [21, null],
];

/** The smallest per-day count at or above the `p` quantile of the (subscriber, day) pairs. */
function quantile(distribution: { messages: number; subscriberDays: number }[], total: number, p: number): number | null {
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const d of distribution) {
    seen += d.subscriberDays;
    if (seen >= rank) return d.messages;
  }
  return null;
}

const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** Messages sent per subscriber per UTC day, the heaviest subscribers, and what preceded opt-outs. */
export async function fatigue(data: Data, q: z.infer<typeof FatigueQuery>): Promise<FatigueReport> {
  // Kept per UTC day: the range is whole days whatever the granularity.
  const range = rangeOf({ ...q, granularity: "day" });
  const [part, optOuts] = await Promise.all([
    data.analytics.rollups(rollupQuery({ ...range, bucketMs: DAY_MS }, { ...q, provider: undefined }), ["fatigue"], q.top),
    q.tenant === undefined
      ? data.analytics.optOutEvents({ since: range.since, until: range.until, workflowKey: q.workflow, channel: q.channel })
      : [],
  ]);
  const distribution = part.fatigue?.distribution ?? [];
  const subscriberDays = distribution.reduce((n, d) => n + d.subscriberDays, 0);
  const messages = distribution.reduce((n, d) => n + d.messages * d.subscriberDays, 0);

  const pairs = optOuts.flatMap((o) => [
    { subscriberId: o.subscriberId, day: dayOf(o.at) },
    { subscriberId: o.subscriberId, day: dayOf(o.at) - DAY_MS },
  ]);
  const unique = [...new Map(pairs.map((p) => [JSON.stringify([p.subscriberId, p.day]), p])).values()];
  const volumes = new Map(
    (await (unique.length ? data.analytics.dayVolumes(unique) : [])).map((v) => [JSON.stringify([v.subscriberId, v.day]), v.messages]),
  );
  const volumeOf = (subscriberId: string, day: number) => volumes.get(JSON.stringify([subscriberId, day])) ?? 0;
  const optOutsAfterVolume = OPT_OUT_VOLUMES.map(([min, max]) => ({ min, max, optOuts: 0 }));
  for (const o of optOuts) {
    const n = volumeOf(o.subscriberId, dayOf(o.at)) + volumeOf(o.subscriberId, dayOf(o.at) - DAY_MS);
    const bucket = optOutsAfterVolume.find((b) => n >= b.min && (b.max === null || n <= b.max));
    if (bucket) bucket.optOuts++;
  }

  return {
    range: rangeView(range),
    data: distribution,
    subscriberDays,
    meanPerDay: subscriberDays === 0 ? null : messages / subscriberDays,
    p50PerDay: quantile(distribution, subscriberDays, 0.5),
    p95PerDay: quantile(distribution, subscriberDays, 0.95),
    maxPerDay: distribution.at(-1)?.messages ?? null,
    top: (part.fatigue?.top ?? []).map((t) => {
      const erased = t.subscriberId.startsWith("erased:");
      return { subscriberId: erased ? null : t.subscriberId, erased, messages: t.messages, days: t.days, maxPerDay: t.maxPerDay };
    }),
    optOutsAfterVolume,
  };
}
