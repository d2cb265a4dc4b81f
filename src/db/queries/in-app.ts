import { and, type Column, count, desc, eq, gt, gte, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunk, inJsonList, rowsPerStatement } from "../batch";
import type { Db } from "../client";
import { inAppNotifications, subscribers } from "../schema";

/**
 * A notification as the feed's callers know it. `context` and `tenantId` come from the log only: a
 * row D1 kept from before the feed left it has neither (no context).
 */
export type InAppRow = typeof inAppNotifications.$inferSelect & { context?: string; tenantId?: string | null };
export type InAppInsert = typeof inAppNotifications.$inferInsert;

/** Bound parameters per row of the multi-row insert (D1 allows 100 per statement). */
const INSERT_COLUMNS = 10;

/**
 * Stores in-app notifications in D1, as releases before the feed moved to the log shards did
 * (delivery writes none here now; tests seed an upgraded deployment's rows with it). A row
 * already there is left as it is; each statement answers the ids it inserted.
 */
export function insertNotifications(db: Db, rows: InAppInsert[]): BatchItem<"sqlite">[] {
  return chunk(rows, rowsPerStatement(INSERT_COLUMNS)).map((part) =>
    db.insert(inAppNotifications).values(part).onConflictDoNothing().returning({ id: inAppNotifications.id }),
  );
}

/** Which notifications a feed read or a bulk change applies to: every flag left out matches both ways. */
export interface InAppFilter {
  read?: boolean;
  seen?: boolean;
  archived?: boolean;
  /** Any of these tags. */
  tags?: string[];
  workflowKey?: string;
  /** Every group must match: a notification has one of each group's tags (an AND of ORs). */
  tagGroups?: string[][];
  /** Snoozed at `now` (its `snoozedUntil` is later) or not; a snooze that ran out is no snooze. */
  snoozed?: { value: boolean; now: Date };
  /** Each clause: the value at `path` in the notification's `data` is one of `anyOf`. */
  data?: InAppDataClause[];
  createdGte?: Date;
  createdLte?: Date;
  /** Only these notifications. */
  ids?: string[];
  /** Exactly this context key ('' for no context): an Inbox session's scope (contract/inbox-context.ts). */
  context?: string;
  /** Only this tenant's notifications. */
  tenantId?: string;
}

export type InAppDataScalar = string | number | boolean | null;
export interface InAppDataClause {
  path: string[];
  anyOf: InAppDataScalar[];
}

export interface InAppChange {
  read?: boolean;
  seen?: boolean;
  archived?: boolean;
  /** A moment to hide the notification until; null wakes it. */
  snoozedUntil?: Date | null;
  /** The action the subscriber completed; null reverts it. */
  completedAction?: "primary" | "secondary" | null;
}

/** The exact counts an Inbox badge shows: never capped. */
export interface InAppCounts {
  total: number;
  unread: number;
  unseen: number;
  archived: number;
}

const flag = (column: Column, wanted: boolean | undefined) =>
  wanted === undefined ? undefined : wanted ? isNotNull(column) : isNull(column);

/** Every group has a tag (each list bound as one JSON parameter, see `inJsonList`): the notification carries (an AND of ORs), in one parameter. */
const everyGroupTagged = (column: Column, groups: readonly (readonly string[])[]) =>
  sql`not exists (select 1 from json_each(${JSON.stringify(groups)}) as g where not exists (select 1 from json_each(${column}) as t where t.value in (select value from json_each(g.value))))`;

/** A JSON path into `data` with every key quoted, so no key is read as path syntax. */
const dataPath = (path: readonly string[]) => `$.data${path.map((key) => `."${key.replaceAll('"', "")}"`).join("")}`;

/**
 * Every clause matches: the value at its path is one of its values (null matches a missing
 * value too), all clauses in one parameter. json_extract and json_each both answer a JSON
 * boolean as 1 or 0, so `true` matches `true`; a missing value makes `in` NULL, hence the coalesce.
 */
const dataMatches = (column: Column, clauses: readonly InAppDataClause[]) => {
  const spec = clauses.map((c) => ({ p: dataPath(c.path), v: c.anyOf.filter((v) => v !== null), n: c.anyOf.includes(null) ? 1 : 0 }));
  const value = sql`json_extract(${column}, json_extract(c.value, '$.p'))`;
  return sql`not exists (select 1 from json_each(${JSON.stringify(spec)}) as c where not coalesce(
    (json_extract(c.value, '$.n') = 1 and ${value} is null)
    or ${value} in (select value from json_each(c.value, '$.v')), 0))`;
};

const t = inAppNotifications;

/** The rows of `owner` (one subscriber in one environment) that `filter` matches. */
const matching = (owner: SQL | undefined, filter: InAppFilter): SQL | undefined =>
  and(
    owner,
    // D1's rows are from before contexts were kept: none of them is in a context or tenant.
    filter.context || filter.tenantId !== undefined ? sql`0` : undefined,
    flag(t.readAt, filter.read),
    flag(t.seenAt, filter.seen),
    flag(t.archivedAt, filter.archived),
    filter.workflowKey === undefined ? undefined : eq(t.workflowKey, filter.workflowKey),
    filter.tags?.length ? everyGroupTagged(t.tags, [filter.tags]) : undefined,
    filter.tagGroups?.length ? everyGroupTagged(t.tags, filter.tagGroups) : undefined,
    filter.snoozed === undefined
      ? undefined
      : filter.snoozed.value
        ? gt(t.snoozedUntil, filter.snoozed.now)
        : or(isNull(t.snoozedUntil), lte(t.snoozedUntil, filter.snoozed.now)),
    filter.data?.length ? dataMatches(t.content, filter.data) : undefined,
    filter.createdGte === undefined ? undefined : gte(t.createdAt, filter.createdGte),
    filter.createdLte === undefined ? undefined : lte(t.createdAt, filter.createdLte),
    filter.ids === undefined ? undefined : filter.ids.length ? sql`${t.id} in ${inJsonList(filter.ids)}` : sql`0`,
  );

// Setting a moment keeps the first one; clearing it forgets it.
const moment = (column: Column, wanted: boolean | undefined, now: Date) =>
  wanted === undefined ? undefined : wanted ? sql`coalesce(${column}, ${now.getTime()})` : null;

/** The columns a change sets. */
function changes(change: InAppChange, now: Date) {
  // Reading a notification also sees it, as every Inbox does.
  const seen = change.seen ?? (change.read === true ? true : undefined);
  const set: Record<string, unknown> = { updatedAt: now };
  const read = moment(t.readAt, change.read, now);
  if (read !== undefined) set.readAt = read;
  const seenAt = moment(t.seenAt, seen, now);
  if (seenAt !== undefined) set.seenAt = seenAt;
  const archived = moment(t.archivedAt, change.archived, now);
  if (archived !== undefined) set.archivedAt = archived;
  if (change.snoozedUntil !== undefined) set.snoozedUntil = change.snoozedUntil;
  if (change.completedAction !== undefined) set.completedAction = change.completedAction;
  return set;
}

/** Reading one subscriber's feed: a page, one notification, the counts. */
function feedReads(db: Db, environmentId: string, subscriberId: string, owner: SQL | undefined) {
  const where = (filter: InAppFilter) => matching(owner, filter);

  return {
    /** Whether the subscriber exists here: an empty answer must tell "none yet" from "nobody". */
    async subscriberExists(): Promise<boolean> {
      const [row] = await db
        .select({ id: subscribers.subscriberId })
        .from(subscribers)
        .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId)))
        .limit(1);
      return row !== undefined;
    },

    /** Newest first; the cursor is the last id of the previous page (ids are time-ordered). */
    async list(filter: InAppFilter, limit: number, after?: string, offset = 0): Promise<{ data: InAppRow[]; hasMore: boolean }> {
      const rows = await db
        .select()
        .from(t)
        .where(and(where(filter), after ? lt(t.id, after) : undefined))
        .orderBy(desc(t.id))
        .limit(limit + 1)
        .offset(offset);
      return { data: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    async get(id: string): Promise<InAppRow | null> {
      const [row] = await db
        .select()
        .from(t)
        .where(and(owner, eq(t.id, id)))
        .limit(1);
      return row ?? null;
    },

    async counts(filter: InAppFilter = {}): Promise<InAppCounts> {
      const [row] = await db
        .select({
          total: count(),
          unread: sql<number>`coalesce(sum(${t.readAt} is null and ${t.archivedAt} is null), 0)`,
          unseen: sql<number>`coalesce(sum(${t.seenAt} is null and ${t.archivedAt} is null), 0)`,
          archived: sql<number>`coalesce(sum(${t.archivedAt} is not null), 0)`,
        })
        .from(t)
        .where(where(filter));
      return {
        total: Number(row?.total ?? 0),
        unread: Number(row?.unread ?? 0),
        unseen: Number(row?.unseen ?? 0),
        archived: Number(row?.archived ?? 0),
      };
    },
  };
}

/** Changing and deleting notifications of one subscriber's feed. */
function feedWrites(db: Db, owner: SQL | undefined) {
  const where = (filter: InAppFilter) => matching(owner, filter);

  return {
    /** Changes one notification; null when it is not this subscriber's. */
    async update(id: string, change: InAppChange, now: Date): Promise<InAppRow | null> {
      const [row] = await db
        .update(t)
        .set(changes(change, now))
        .where(and(owner, eq(t.id, id)))
        .returning();
      return row ?? null;
    },

    /** The statement `updateAll` runs (its parameter count is what D1 limits). */
    updateAllStatement(change: InAppChange, filter: InAppFilter, now: Date) {
      return db.update(t).set(changes(change, now)).where(where(filter)).returning({ id: t.id });
    },

    /** Changes every notification the filter matches; returns the ids it changed. */
    async updateAll(change: InAppChange, filter: InAppFilter, now: Date): Promise<string[]> {
      const rows = await this.updateAllStatement(change, filter, now);
      return rows.map((r) => r.id);
    },

    /** Deletes every notification the filter matches; returns the ids it deleted. */
    async removeAll(filter: InAppFilter): Promise<string[]> {
      const rows = await db.delete(t).where(where(filter)).returning({ id: t.id });
      return rows.map((r) => r.id);
    },

    async remove(ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .delete(t)
        .where(and(owner, sql`${t.id} in ${inJsonList(ids)}`))
        .returning({ id: t.id });
      return rows.map((r) => r.id);
    },
  };
}

/**
 * One subscriber's in-app notifications in one environment: every read and write here is
 * scoped by both, so a token or key for another subscriber or environment sees nothing.
 */
export function inAppFeed(db: Db, environmentId: string, subscriberId: string) {
  const owner = and(eq(t.environmentId, environmentId), eq(t.subscriberId, subscriberId));
  return { ...feedReads(db, environmentId, subscriberId, owner), ...feedWrites(db, owner) };
}

export type InAppFeed = ReturnType<typeof inAppFeed>;

/** Erasure: every in-app notification of a subscriber goes. */
export const deleteSubscriberNotifications = (db: Db, environmentId: string, subscriberId: string) =>
  db
    .delete(inAppNotifications)
    .where(and(eq(inAppNotifications.environmentId, environmentId), eq(inAppNotifications.subscriberId, subscriberId)));

/** Which of these notifications D1 holds (from before the feed left it for the log), as statements to batch. */
export const existingNotifications = (db: Db, environmentId: string, ids: readonly string[]) =>
  db
    .select({ id: inAppNotifications.id })
    .from(inAppNotifications)
    .where(and(eq(inAppNotifications.environmentId, environmentId), sql`${inAppNotifications.id} in ${inJsonList(ids)}`));
