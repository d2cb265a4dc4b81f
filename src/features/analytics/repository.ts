import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { optOutsOf } from "../../db/queries/subscriber-activity";
import { analyticsOptOuts, subscriberActivity } from "../../db/schema";
import type { AnalyticsPartName, AnalyticsQuery, LogStore } from "../../durable-objects/client/log-store";

/** Opt-outs the fatigue report looks behind, at most: each costs a read of two days' volumes. */
export const OPT_OUT_EVENTS_MAX = 5_000;

export interface OptOutFilter {
  since: number;
  until: number;
  bucketMs: number;
  workflowKey?: string;
  channel?: string;
}

/**
 * What the analytics read, for one environment: the log shards' rollups, and D1's opt-out counts
 * and preference changes. No message row is read.
 */
export function analyticsRepository(db: Db, environmentId: string, logs: LogStore) {
  /** A workflow's opt-outs include the global ones, which turned the channel off for it too. */
  const optOutWhere = (f: OptOutFilter) =>
    and(
      eq(analyticsOptOuts.environmentId, environmentId),
      gte(analyticsOptOuts.hour, f.since),
      lt(analyticsOptOuts.hour, f.until),
      f.workflowKey === undefined ? undefined : inArray(analyticsOptOuts.workflow, ["", f.workflowKey]),
      f.channel === undefined ? undefined : eq(analyticsOptOuts.channel, f.channel),
    );

  return {
    rollups: (q: AnalyticsQuery, parts: AnalyticsPartName[], top?: number) => logs.analytics(environmentId, q, parts, top),

    dayVolumes: (pairs: { subscriberId: string; day: number }[]) => logs.dayVolumes(environmentId, pairs),

    /** Opt-outs per bucket (start of the bucket, epoch-aligned). */
    async optOuts(f: OptOutFilter): Promise<{ at: number; n: number }[]> {
      const at = sql<number>`(${analyticsOptOuts.hour} / ${sql.raw(String(f.bucketMs))}) * ${sql.raw(String(f.bucketMs))}`;
      const rows = await db
        .select({ at, n: sql<number>`sum(${analyticsOptOuts.n})` })
        .from(analyticsOptOuts)
        .where(optOutWhere(f))
        .groupBy(at);
      return rows.map((r) => ({ at: Number(r.at), n: Number(r.n) }));
    },

    /** Who opted out when in the range, from the subscribers' timelines (erased subscribers have none left). */
    async optOutEvents(f: Omit<OptOutFilter, "bucketMs">): Promise<{ subscriberId: string; at: number }[]> {
      const rows = await db
        .select({
          subscriberId: subscriberActivity.subscriberId,
          at: subscriberActivity.createdAt,
          preferences: subscriberActivity.preferences,
        })
        .from(subscriberActivity)
        .where(
          and(
            eq(subscriberActivity.environmentId, environmentId),
            eq(subscriberActivity.type, "preferences_changed"),
            gte(subscriberActivity.createdAt, new Date(f.since)),
            lt(subscriberActivity.createdAt, new Date(f.until)),
            // Only changes that turned a flag off carry a `false`.
            sql`${subscriberActivity.preferences} LIKE '%false%'`,
          ),
        )
        .limit(OPT_OUT_EVENTS_MAX);
      return rows.flatMap((r) =>
        optOutsOf(r.preferences ?? {})
          .filter(
            (o) =>
              (f.workflowKey === undefined || o.workflow === "" || o.workflow === f.workflowKey) &&
              (f.channel === undefined || o.channel === f.channel),
          )
          .map(() => ({ subscriberId: r.subscriberId, at: r.at.getTime() })),
      );
    },
  };
}
