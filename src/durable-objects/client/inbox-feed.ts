import type { InAppContent } from "../../contract/in-app-content";
import type { Db } from "../../db/client";
import { type InAppChange, type InAppCounts, type InAppFilter, type InAppRow, inAppFeed } from "../../db/queries/in-app";
import { partitionOfId } from "../../lib/ids";
import type { FeedChange, FeedFilter, FeedRow, LogStore } from "./log-store";

const ms = (d: Date | undefined) => d?.getTime();

const toFeedFilter = (f: InAppFilter): FeedFilter => ({
  ...f,
  snoozed: f.snoozed && { value: f.snoozed.value, now: f.snoozed.now.getTime() },
  createdGte: ms(f.createdGte),
  createdLte: ms(f.createdLte),
});

const toFeedChange = (c: InAppChange): FeedChange => ({
  ...c,
  snoozedUntil: c.snoozedUntil === undefined ? undefined : c.snoozedUntil === null ? null : c.snoozedUntil.getTime(),
});

const date = (at: number | null) => (at === null ? null : new Date(at));

/** A log notification as the feed's callers know a row (times as dates). */
export const fromFeedRow = (r: FeedRow): InAppRow => ({
  ...r,
  content: r.content as unknown as InAppContent,
  seenAt: date(r.seenAt),
  readAt: date(r.readAt),
  archivedAt: date(r.archivedAt),
  snoozedUntil: date(r.snoozedUntil),
  createdAt: new Date(r.createdAt),
  updatedAt: new Date(r.updatedAt),
});

/** A row for the log, from a notification as delivery makes it. */
export const toFeedRow = (r: InAppRow): FeedRow => ({
  ...r,
  content: r.content as unknown as Record<string, unknown>,
  seenAt: ms(r.seenAt ?? undefined) ?? null,
  readAt: ms(r.readAt ?? undefined) ?? null,
  archivedAt: ms(r.archivedAt ?? undefined) ?? null,
  snoozedUntil: ms(r.snoozedUntil ?? undefined) ?? null,
  completedAction: r.completedAction as FeedRow["completedAction"],
  createdAt: r.createdAt.getTime(),
  updatedAt: r.updatedAt.getTime(),
});

/**
 * The part of a subscriber's feed a reader sees: an Inbox session exactly its context's
 * notifications (`context`, '' for those of none), the server feed one tenant's or all.
 */
export type FeedView = Pick<InAppFilter, "context" | "tenantId">;

const newestFirst = (a: InAppRow, b: InAppRow) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * One subscriber's Inbox: the notifications in the log shard of their partition, merged with the
 * ones D1 kept from before the feed left it (until retention deletes them). Pages merge by id
 * (time-ordered in both), counts sum, and an action goes where its id says: a log id (one with a
 * partition) to the shard only, an older id to D1 (and to the shard, which holds one only when a
 * message recorded in D1 was sent again after the upgrade).
 */
export function inboxFeed(db: Db, logs: LogStore, environmentId: string, subscriberId: string, view: FeedView = {}) {
  const legacy = inAppFeed(db, environmentId, subscriberId);
  // Every read and change of the feed goes through the view: a scoped session cannot leave it.
  const within = (filter: InAppFilter): InAppFilter => ({ ...filter, ...view });
  // D1's rows have no context: only a view of no context (or of everything) reaches them.
  const legacyVisible = !view.context && view.tenantId === undefined;
  return {
    view,
    subscriberExists: () => legacy.subscriberExists(),

    /** Newest first; the cursor is the last id of the previous page. */
    async list(filter: InAppFilter, limit: number, after?: string, offset = 0): Promise<{ data: InAppRow[]; hasMore: boolean }> {
      const wanted = offset + limit;
      const [old, fresh] = await Promise.all([
        legacy.list(within(filter), wanted, after),
        logs.feedList(environmentId, subscriberId, toFeedFilter(within(filter)), wanted + 1, after),
      ]);
      const inLog = new Set(fresh.map((r) => r.id));
      const all = [...fresh.map(fromFeedRow), ...old.data.filter((r) => !inLog.has(r.id))].sort(newestFirst);
      return { data: all.slice(offset, wanted), hasMore: all.length > wanted || old.hasMore };
    },

    async get(id: string): Promise<InAppRow | null> {
      const [row] = await logs.feedList(environmentId, subscriberId, toFeedFilter(within({ ids: [id] })), 1);
      if (row) return fromFeedRow(row);
      return partitionOfId(id) === null && legacyVisible ? legacy.get(id) : null;
    },

    async counts(filter: InAppFilter = {}): Promise<InAppCounts> {
      const [old, fresh] = await Promise.all([
        legacy.counts(within(filter)),
        logs.feedCounts(environmentId, subscriberId, toFeedFilter(within(filter))),
      ]);
      return {
        total: old.total + fresh.total,
        unread: old.unread + fresh.unread,
        unseen: old.unseen + fresh.unseen,
        archived: old.archived + fresh.archived,
      };
    },

    /** Changes one notification; null when it is not this subscriber's. */
    async update(id: string, change: InAppChange, now: Date): Promise<InAppRow | null> {
      if (partitionOfId(id) === null && legacyVisible) {
        const row = await legacy.update(id, change, now);
        if (row) return row;
      }
      const row = await logs.feedUpdateOne(environmentId, subscriberId, id, toFeedChange(change), now.getTime(), view);
      return row ? fromFeedRow(row) : null;
    },

    /** Changes every notification the filter matches, in both stores; returns the ids it changed. */
    async updateAll(change: InAppChange, filter: InAppFilter, now: Date): Promise<string[]> {
      const [old, fresh] = await Promise.all([
        legacy.updateAll(change, within(filter), now),
        logs.feedUpdate(environmentId, subscriberId, toFeedChange(change), toFeedFilter(within(filter)), now.getTime()),
      ]);
      return [...fresh, ...old];
    },

    async removeAll(filter: InAppFilter): Promise<string[]> {
      const [old, fresh] = await Promise.all([
        legacy.removeAll(within(filter)),
        logs.feedRemove(environmentId, subscriberId, toFeedFilter(within(filter))),
      ]);
      return [...fresh, ...old];
    },

    async remove(ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const older = legacyVisible ? ids.filter((id) => partitionOfId(id) === null) : [];
      const [old, fresh] = await Promise.all([
        older.length ? legacy.remove(older) : Promise.resolve([]),
        logs.feedRemove(environmentId, subscriberId, toFeedFilter(within({ ids }))),
      ]);
      return [...new Set([...fresh, ...old])];
    },
  };
}

export type InboxFeed = ReturnType<typeof inboxFeed>;
