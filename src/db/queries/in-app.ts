import { and, type Column, count, desc, eq, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
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
}

export interface InAppChange {
  read?: boolean;
  seen?: boolean;
  archived?: boolean;
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
      filter.tags?.length
        ? sql`exists (select 1 from json_each(${t.tags}) where json_each.value in ${sql`(${sql.join(
            filter.tags.map((tag) => sql`${tag}`),
            sql`, `,
          )})`})`
        : undefined,
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
    async list(filter: InAppFilter, limit: number, after?: string): Promise<{ data: InAppRow[]; hasMore: boolean }> {
      const rows = await db
        .select()
        .from(t)
        .where(and(where(filter), after ? lt(t.id, after) : undefined))
        .orderBy(desc(t.id))
        .limit(limit + 1);
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
