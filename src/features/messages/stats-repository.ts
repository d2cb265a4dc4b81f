import type { z } from "@hono/zod-openapi";
import { type AnyColumn, and, asc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { MESSAGE_STATUSES, type MessageStatus } from "../../contract/statuses";
import type { Db } from "../../db/client";
import { messageEvents, messages } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { type MessageStats, type MessageStatsQuery, STATS_BUCKETS, STATS_MAX_RANGE } from "./schemas";

/**
 * Each figure counts the messages that reached its state, whatever happened after: a state is
 * reached when it, or a state that implies it, is in the message's timeline or is its status.
 * An archived in-app message was sent and delivered (read only if it was), an opened email was
 * delivered, a message a provider failed after taking it was sent and failed.
 */
export const STATS_FIGURES = {
  sent: ["sent", "delivered", "opened", "clicked", "bounced", "seen", "read", "archived"],
  delivered: ["delivered", "opened", "clicked", "seen", "read", "archived"],
  opened: ["opened", "clicked"],
  clicked: ["clicked"],
  seen: ["seen", "read"],
  read: ["read"],
  archived: ["archived"],
  failed: ["failed", "bounced", "undeliverable"],
} as const satisfies Record<string, readonly MessageStatus[]>;
type Figure = keyof typeof STATS_FIGURES;
const FIGURES = Object.keys(STATS_FIGURES) as Figure[];

/** One bit per status, so the states a message reached fold into one integer. */
const bitOf = (column: AnyColumn) =>
  sql.join([
    sql`(case ${column}`,
    ...MESSAGE_STATUSES.map((s, i) => sql` when ${sql.raw(`'${s}'`)} then ${sql.raw(String(1 << i))}`),
    sql` else 0 end)`,
  ]);
const maskOf = (statuses: readonly MessageStatus[]) => statuses.reduce((m, s) => m | (1 << MESSAGE_STATUSES.indexOf(s)), 0);

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
      ...(Object.fromEntries(FIGURES.map((f) => [f, Number(r[f])])) as Record<Figure, number>),
    })),
  };
}
