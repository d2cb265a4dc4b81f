import type { AudienceRow, CountRow } from "../../durable-objects/client/log-store";
import type { Data } from "../data";
import { addCount, emptyTotals, publicTotals, ratesOf, type Totals, totalsOf } from "./figures";
import { type Range, rangeOf, rangeView } from "./range";
import type { Overview, OverviewQuery } from "./schemas";
import type { z } from "@hono/zod-openapi";

type Query = z.infer<typeof OverviewQuery>;

type Period = { counts: CountRow[]; audience: AudienceRow[]; optOuts: { at: number; n: number }[] | null };

/**
 * Both periods in one read of the shards (the previous one ends where the range starts, and both
 * are whole buckets), split by bucket: one call per shard instead of two. Opt-outs are not a
 * tenant's, so a tenant's are null.
 */
async function periods(data: Data, q: Query, r: Range, before: Range): Promise<[Period, Period]> {
  const filters = { tenantId: q.tenant, workflowKey: q.workflow, channel: q.channel };
  const whole = { since: before.since, until: r.until, bucketMs: r.bucketMs };
  const [part, optOuts] = await Promise.all([
    data.analytics.rollups({ ...whole, ...filters }, ["counts", "audience"]),
    q.tenant === undefined ? data.analytics.optOuts({ ...whole, workflowKey: q.workflow, channel: q.channel }) : null,
  ]);
  const split = (inRange: boolean): Period => {
    const mine = (row: { at: number }) => row.at >= r.since === inRange;
    return {
      counts: (part.counts ?? []).filter(mine),
      audience: (part.audience ?? []).filter(mine),
      optOuts: optOuts?.filter(mine) ?? null,
    };
  };
  return [split(true), split(false)];
}

const sum = <T>(rows: T[], of: (row: T) => number) => rows.reduce((n, r) => n + of(r), 0);

function shown(t: Totals, audience: { triggers: number; recipients: number }[], optOuts: number | null) {
  return {
    totals: {
      triggers: sum(audience, (a) => a.triggers),
      recipients: sum(audience, (a) => a.recipients),
      ...publicTotals(t),
      optOuts,
    },
    rates: ratesOf(t, optOuts),
  };
}

/** Totals and rates of the range and of the period of equal length before it, and the range's series. */
export async function overview(data: Data, q: Query): Promise<Overview> {
  const range = rangeOf(q);
  const length = range.until - range.since;
  const before: Range = { ...range, since: range.since - length, until: range.since };
  const [now, then] = await periods(data, q, range, before);

  const buckets = new Map<number, { totals: Totals; triggers: number; recipients: number; optOuts: number | null }>();
  for (let at = range.since; at < range.until; at += range.bucketMs)
    buckets.set(at, { totals: emptyTotals(), triggers: 0, recipients: 0, optOuts: now.optOuts ? 0 : null });
  for (const row of now.counts) {
    const b = buckets.get(row.at);
    if (b) addCount(b.totals, row);
  }
  for (const a of now.audience) {
    const b = buckets.get(a.at);
    if (!b) continue;
    b.triggers += a.triggers;
    b.recipients += a.recipients;
  }
  for (const o of now.optOuts ?? []) {
    const b = buckets.get(o.at);
    if (b && b.optOuts !== null) b.optOuts += o.n;
  }

  const optOutsOf = (p: typeof now) => (p.optOuts ? sum(p.optOuts, (o) => o.n) : null);
  const previous = shown(totalsOf(then.counts), then.audience, optOutsOf(then));
  return {
    range: rangeView(range),
    current: shown(totalsOf(now.counts), now.audience, optOutsOf(now)),
    previous: { ...previous, from: new Date(before.since).toISOString(), to: new Date(before.until).toISOString() },
    data: [...buckets].map(([at, b]) => ({
      at: new Date(at).toISOString(),
      triggers: b.triggers,
      recipients: b.recipients,
      ...publicTotals(b.totals),
      optOuts: b.optOuts,
    })),
  };
}
