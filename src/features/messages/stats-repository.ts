import type { z } from "@hono/zod-openapi";
import { type AnyColumn, and, asc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { FIGURE_MASKS, FIGURES, type Figure, maskOf, STATS_FIGURES } from "../../contract/message-figures";
import { MESSAGE_STATUSES } from "../../contract/statuses";
import type { Db } from "../../db/client";
import { messageEvents, messages } from "../../db/schema";
import type { LogStore } from "../../durable-objects/client/log-store";
import { ApiError } from "../../lib/errors";
import { type MessageStats, type MessageStatsQuery, STATS_BUCKETS, STATS_MAX_RANGE } from "./schemas";

/** One bit per status, so the states a message reached fold into one integer. */
const bitOf = (column: AnyColumn) =>
  sql.join([
    sql`(case ${column}`,
    ...MESSAGE_STATUSES.map((s, i) => sql` when ${sql.raw(`'${s}'`)} then ${sql.raw(String(1 << i))}`),
    sql` else 0 end)`,
  ]);
const MASKS = FIGURE_MASKS;

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

/**
 * Messages counted per bucket and channel (or provider) in one statement: the range of the
 * (environment, created_at, channel, provider, status) index, and for each message one seek in the
 * (message_id, at, status) index of its timeline, both read without a row. Each event's status is a
 * distinct bit, so the sum of the distinct bits is the set of statuses it reached.
 */
export function statsQuery(
  db: Db,
  environmentId: string,
  query: z.infer<typeof MessageStatsQuery>,
  range: { since: number; until: number },
) {
  const size = sql.raw(String(STATS_BUCKETS[query.bucket]));
  const timeline = sql`(select coalesce(sum(distinct ${bitOf(messageEvents.status)}), 0) from ${messageEvents} where ${messageEvents.messageId} = ${messages.id})`;
  const reached = db
    .select({
      at: sql<number>`(${messages.createdAt} / ${size}) * ${size}`.as("at"),
      group: (query.groupBy === "channel" ? sql<string | null>`${messages.channel}` : sql<string | null>`${messages.provider}`).as("grp"),
      states: sql<number>`(${timeline} | ${bitOf(messages.status)})`.as("states"),
    })
    .from(messages)
    .where(
      and(
        eq(messages.environmentId, environmentId),
        gte(messages.createdAt, new Date(range.since)),
        lt(messages.createdAt, new Date(range.until)),
      ),
    )
    // A subquery with a LIMIT is never flattened into an aggregate: without one SQLite would copy
    // `states`, and its timeline seek, into each figure's sum (drizzle drops SQLite's `LIMIT -1`).
    .limit(Number.MAX_SAFE_INTEGER)
    .as("reached");
  const countOf = (figure: Figure) => sql<number>`sum((${reached.states} & ${sql.raw(String(maskOf(STATS_FIGURES[figure])))}) != 0)`;
  return db
    .select({
      at: reached.at,
      group: reached.group,
      total: sql<number>`count(*)`,
      ...(Object.fromEntries(FIGURES.map((f) => [f, countOf(f)])) as Record<Figure, SQL<number>>),
    })
    .from(reached)
    .groupBy(sql`${reached.at}`, sql`${reached.group}`)
    .orderBy(asc(reached.at), asc(reached.group));
}

type Counts = { total: number } & Record<Figure, number>;

/** Both stores' figures per (bucket, group), in the order D1 sorts them (a null group first). */
const byBucket = (a: { at: number; group: string | null }, b: { at: number; group: string | null }) =>
  a.at - b.at || (a.group === b.group ? 0 : a.group === null ? -1 : b.group === null ? 1 : a.group < b.group ? -1 : 1);

/**
 * The log's messages (their `states` already fold status and timeline, one bit each, so the same
 * masks apply) summed with D1's legacy ones, written before the log left D1 and kept until they expire.
 */
export async function messageStats(
  db: Db,
  logs: LogStore,
  environmentId: string,
  query: z.infer<typeof MessageStatsQuery>,
): Promise<MessageStats> {
  const range = statsRange(query);
  const [legacy, logged] = await Promise.all([
    // D1's legacy messages predate tenants: none is any tenant's.
    query.tenant ? [] : statsQuery(db, environmentId, query, range),
    logs.stats(environmentId, range.since, range.until, STATS_BUCKETS[query.bucket], query.groupBy, query.tenant),
  ]);
  const merged = new Map<string, { at: number; group: string | null; counts: Counts }>();
  const at = (bucket: number, group: string | null) => {
    const key = JSON.stringify([bucket, group]);
    let entry = merged.get(key);
    if (!entry) {
      const counts = { total: 0, ...(Object.fromEntries(FIGURES.map((f) => [f, 0])) as Record<Figure, number>) };
      entry = { at: bucket, group, counts };
      merged.set(key, entry);
    }
    return entry.counts;
  };
  for (const r of legacy) {
    const counts = at(Number(r.at), r.group);
    counts.total += Number(r.total);
    for (const f of FIGURES) counts[f] += Number(r[f]);
  }
  for (const r of logged) {
    const counts = at(r.at, r.group);
    counts.total += r.n;
    for (const f of FIGURES) if ((r.states & MASKS[f]) !== 0) counts[f] += r.n;
  }
  return {
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
    bucket: query.bucket,
    groupBy: query.groupBy,
    data: [...merged.values()].sort(byBucket).map((e) => ({ at: new Date(e.at).toISOString(), group: e.group, ...e.counts })),
  };
}
