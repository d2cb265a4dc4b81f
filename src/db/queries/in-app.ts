import { and, type Column, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunk, rowsPerStatement } from "../batch";
import type { Db } from "../client";
import { inAppNotifications, subscribers } from "../schema";

export type InAppRow = typeof inAppNotifications.$inferSelect;
export type InAppInsert = typeof inAppNotifications.$inferInsert;

/** Bound parameters per row of the multi-row insert (D1 allows 100 per statement). */
const INSERT_COLUMNS = 10;

/**
 * Stores in-app notifications; a row already there (a retried send) is left as it is. Each
 * statement answers the ids it inserted, so only new notifications are announced.
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

const anyTag = (column: Column, tags: readonly string[]) =>
  sql`exists (select 1 from json_each(${column}) where json_each.value in ${sql`(${sql.join(
    tags.map((tag) => sql`${tag}`),
    sql`, `,
  )})`})`;

/** A JSON path into `data` with every key quoted, so no key is read as path syntax. */
const dataPath = (path: readonly string[]) => `$.data${path.map((key) => `."${key.replaceAll('"', "")}"`).join("")}`;

const dataMatches = (column: Column, clause: InAppDataClause) => {
  const value = sql`json_extract(${column}, ${dataPath(clause.path)})`;
  // json_extract answers a JSON boolean as 1 or 0.
  const equal = (v: InAppDataScalar) => (v === null ? sql`${value} is null` : sql`${value} = ${typeof v === "boolean" ? Number(v) : v}`);
  return or(...clause.anyOf.map(equal));
};

/**
 * One subscriber's in-app notifications in one environment: every read and write here is
 * scoped by both, so a token or key for another subscriber or environment sees nothing.
 */
export function inAppFeed(db: Db, environmentId: string, subscriberId: string) {
  const t = inAppNotifications;
  const owner = and(eq(t.environmentId, environmentId), eq(t.subscriberId, subscriberId));
  const where = (filter: InAppFilter): SQL | undefined =>
    and(
      owner,
      flag(t.readAt, filter.read),
      flag(t.seenAt, filter.seen),
      flag(t.archivedAt, filter.archived),
      filter.workflowKey === undefined ? undefined : eq(t.workflowKey, filter.workflowKey),
      filter.tags?.length ? anyTag(t.tags, filter.tags) : undefined,
      ...(filter.tagGroups ?? []).map((group) => anyTag(t.tags, group)),
      filter.snoozed === undefined
        ? undefined
        : filter.snoozed.value
          ? gt(t.snoozedUntil, filter.snoozed.now)
          : or(isNull(t.snoozedUntil), lte(t.snoozedUntil, filter.snoozed.now)),
      ...(filter.data ?? []).map((clause) => dataMatches(t.content, clause)),
      filter.createdGte === undefined ? undefined : gte(t.createdAt, filter.createdGte),
      filter.createdLte === undefined ? undefined : lte(t.createdAt, filter.createdLte),
      filter.ids === undefined ? undefined : filter.ids.length ? inArray(t.id, filter.ids) : sql`0`,
    );
  // Setting a moment keeps the first one; clearing it forgets it.
  const moment = (column: Column, wanted: boolean | undefined, now: Date) =>
    wanted === undefined ? undefined : wanted ? sql`coalesce(${column}, ${now.getTime()})` : null;
  const changes = (change: InAppChange, now: Date) => {
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
  };

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

    /** Changes one notification; null when it is not this subscriber's. */
    async update(id: string, change: InAppChange, now: Date): Promise<InAppRow | null> {
      const [row] = await db
        .update(t)
        .set(changes(change, now))
        .where(and(owner, eq(t.id, id)))
        .returning();
      return row ?? null;
    },

    /** Changes every notification the filter matches; returns the ids it changed. */
    async updateAll(change: InAppChange, filter: InAppFilter, now: Date): Promise<string[]> {
      const rows = await db.update(t).set(changes(change, now)).where(where(filter)).returning({ id: t.id });
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
        .where(and(owner, inArray(t.id, ids)))
        .returning({ id: t.id });
      return rows.map((r) => r.id);
    },
  };
}

export type InAppFeed = ReturnType<typeof inAppFeed>;

/** Erasure: every in-app notification of a subscriber goes. */
export const deleteSubscriberNotifications = (db: Db, environmentId: string, subscriberId: string) =>
  db
    .delete(inAppNotifications)
    .where(and(eq(inAppNotifications.environmentId, environmentId), eq(inAppNotifications.subscriberId, subscriberId)));
