import type { z } from "@hono/zod-openapi";
import { and, asc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { MessageStatus } from "../../contract/statuses";
import type { Db } from "../../db/client";
import { messages } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { type MessageStats, type MessageStatsQuery, STATS_BUCKETS, STATS_MAX_RANGE } from "./schemas";

// A message's status is where it got to, so each figure counts the messages that reached at least that far.
const SENT: MessageStatus[] = ["sent", "delivered", "opened", "clicked", "bounced"];
const DELIVERED: MessageStatus[] = ["delivered", "opened", "clicked"];
const OPENED: MessageStatus[] = ["opened", "clicked"];
const FAILED: MessageStatus[] = ["failed", "bounced", "undeliverable"];

const DEFAULT_RANGE = { hour: 86_400_000, day: 30 * 86_400_000 } as const;

/** The range asked for, or a validation problem when it is backwards or wider than its bucket allows. */
export function statsRange(query: z.infer<typeof MessageStatsQuery>, now = Date.now()) {
  const until = query.until ? Date.parse(query.until) : now;
  const since = query.since ? Date.parse(query.since) : until - DEFAULT_RANGE[query.bucket];
  if (since >= until)
    throw new ApiError("validation_failed", "`since` must be before `until`.", [{ path: "since", message: "Must be before until." }]);
  if (until - since > STATS_MAX_RANGE[query.bucket]) {
    const days = STATS_MAX_RANGE[query.bucket] / 86_400_000;
    throw new ApiError("validation_failed", `With bucket=${query.bucket} the range spans at most ${days} days.`, [
      { path: "since", message: `At most ${days} days before until.` },
    ]);
  }
  return { since, until };
}

const countOf = (statuses: MessageStatus[]) => sql<number>`sum(case when ${inArray(messages.status, statuses)} then 1 else 0 end)`;

/**
 * Messages counted per bucket and channel (or provider) in one GROUP BY over the
 * (environment, created_at, channel, provider, status) index: no row is read, only the index.
 */
export function statsQuery(
  db: Db,
  environmentId: string,
  query: z.infer<typeof MessageStatsQuery>,
  range: { since: number; until: number },
) {
  const size = sql.raw(String(STATS_BUCKETS[query.bucket]));
  const at = sql<number>`(${messages.createdAt} / ${size}) * ${size}`;
  const group = query.groupBy === "channel" ? messages.channel : messages.provider;
  return db
    .select({
      at,
      group,
      total: sql<number>`count(*)`,
      sent: countOf(SENT),
      delivered: countOf(DELIVERED),
      opened: countOf(OPENED),
      failed: countOf(FAILED),
    })
    .from(messages)
    .where(
      and(
        eq(messages.environmentId, environmentId),
        gte(messages.createdAt, new Date(range.since)),
        lt(messages.createdAt, new Date(range.until)),
      ),
    )
    .groupBy(at, group)
    .orderBy(asc(at), asc(group));
}

export async function messageStats(db: Db, environmentId: string, query: z.infer<typeof MessageStatsQuery>): Promise<MessageStats> {
  const range = statsRange(query);
  const rows = await statsQuery(db, environmentId, query, range);
  return {
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
    bucket: query.bucket,
    groupBy: query.groupBy,
    data: rows.map((r) => ({
      at: new Date(Number(r.at)).toISOString(),
      group: r.group,
      total: Number(r.total),
      sent: Number(r.sent),
      delivered: Number(r.delivered),
      opened: Number(r.opened),
      failed: Number(r.failed),
    })),
  };
}
