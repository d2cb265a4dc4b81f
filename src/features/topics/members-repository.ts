import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { chunk, rowsPerStatement, runBatch } from "../../db/batch";
import { subscribers, topicMembers, topics } from "../../db/schema";
import { countUpTo, type KeysetWindow, keysetWindow, totalOf } from "../../db/keyset-window";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { toTopic, topicScope } from "./repository";
import { memberCursor, type TopicMember, type TopicMembersAdded } from "./schemas";

/** D1 allows 100 bound parameters; a delete binds the environment and topic besides the ids. */
const IDS_PER_DELETE = 90;

/** Topic memberships of one environment, both ways: a topic's members and a subscriber's topics. */
export function topicMembersRepository(db: Db, environmentId: string) {
  const { byKey, membersOf, exists } = topicScope(db, environmentId);

  return {
    /** A page of a topic's members either way from a subscriberId; null when the topic is unknown. */
    async searchMembers(key: string, subscriberId: string | undefined, window: KeysetWindow) {
      const w = keysetWindow(topicMembers.subscriberId, window);
      const where = and(membersOf(key), subscriberId ? eq(topicMembers.subscriberId, subscriberId) : undefined);
      const [found, rows, counted] = await db.batch([
        db.select().from(topics).where(byKey(key)).limit(1),
        db
          .select({ subscriberId: topicMembers.subscriberId, createdAt: topicMembers.createdAt, internalId: subscribers.id })
          .from(topicMembers)
          .innerJoin(
            subscribers,
            and(eq(subscribers.environmentId, topicMembers.environmentId), eq(subscribers.subscriberId, topicMembers.subscriberId)),
          )
          .where(and(where, w.where))
          .orderBy(w.orderBy)
          .limit(w.limit),
        countUpTo(db, topicMembers, where),
      ]);
      const topic = found[0];
      if (!topic) return null;
      const page = w.page(rows, (row) => row.subscriberId);
      return {
        topic: toTopic(topic),
        ...page,
        rows: page.rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
        ...totalOf(counted),
      };
    },

    /** A page of one subscriber's topics by key either way; null when the subscriber is unknown. */
    async searchSubscriptions(subscriberId: string, key: string | undefined, window: KeysetWindow) {
      const w = keysetWindow(topicMembers.topicKey, window);
      const where = and(
        eq(topicMembers.environmentId, environmentId),
        eq(topicMembers.subscriberId, subscriberId),
        key ? eq(topicMembers.topicKey, key) : undefined,
      );
      const [found, rows, counted] = await db.batch([
        db
          .select({ id: subscribers.id })
          .from(subscribers)
          .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId)))
          .limit(1),
        db
          // A D1 batch hands rows back keyed by column name: the membership's `created_at` needs its own.
          .select({
            id: topics.id,
            key: topics.key,
            name: topics.name,
            createdAt: topics.createdAt,
            updatedAt: topics.updatedAt,
            joinedAt: sql`${topicMembers.createdAt}`.mapWith(topicMembers.createdAt).as("joined_at"),
          })
          .from(topicMembers)
          .innerJoin(topics, and(eq(topics.environmentId, topicMembers.environmentId), eq(topics.key, topicMembers.topicKey)))
          .where(and(where, w.where))
          .orderBy(w.orderBy)
          .limit(w.limit),
        countUpTo(db, topicMembers, where),
      ]);
      const subscriber = found[0];
      if (!subscriber) return null;
      const page = w.page(rows, (row) => row.key);
      const data = page.rows.map(({ joinedAt, ...topic }) => ({
        topic: { ...topic, createdAt: topic.createdAt.toISOString(), updatedAt: topic.updatedAt.toISOString() },
        createdAt: joinedAt.toISOString(),
      }));
      return { internalId: subscriber.id, ...page, rows: data, ...totalOf(counted) };
    },

    /** The topic's and the subscriber's internal ids when the subscriber is a member; null otherwise. */
    async membership(key: string, subscriberId: string): Promise<{ topicId: string; subscriberInternalId: string } | null> {
      const [row] = await db
        .select({ topicId: topics.id, subscriberInternalId: subscribers.id })
        .from(topicMembers)
        .innerJoin(topics, and(eq(topics.environmentId, topicMembers.environmentId), eq(topics.key, topicMembers.topicKey)))
        .innerJoin(
          subscribers,
          and(eq(subscribers.environmentId, topicMembers.environmentId), eq(subscribers.subscriberId, topicMembers.subscriberId)),
        )
        .where(and(membersOf(key), eq(topicMembers.subscriberId, subscriberId)))
        .limit(1);
      return row ?? null;
    },

    /**
     * Adds members; subscriberIds not known yet become bare subscribers, so a topic can be filled
     * before the profiles arrive. One D1 batch of multi-row inserts; null when the topic is unknown.
     */
    async addMembers(key: string, subscriberIds: readonly string[], now = new Date()): Promise<TopicMembersAdded | null> {
      const [topic] = await exists(key);
      if (!topic) return null;
      const ids = [...new Set(subscriberIds)];
      const bare: BatchItem<"sqlite">[] = chunk(ids, rowsPerStatement(5)).map((part) =>
        db
          .insert(subscribers)
          .values(part.map((subscriberId) => ({ id: newId("sub"), environmentId, subscriberId, createdAt: now, updatedAt: now })))
          .onConflictDoNothing({ target: [subscribers.environmentId, subscribers.subscriberId] }),
      );
      const memberships: BatchItem<"sqlite">[] = chunk(ids, rowsPerStatement(4)).map((part) =>
        db
          .insert(topicMembers)
          .values(part.map((subscriberId) => ({ environmentId, topicKey: key, subscriberId, createdAt: now })))
          .onConflictDoNothing()
          .returning({ subscriberId: topicMembers.subscriberId }),
      );
      const results = await runBatch(db, [...bare, ...memberships]);
      const added = results.slice(bare.length).reduce<number>((sum, rows) => sum + (rows as unknown[]).length, 0);
      return { added, alreadyMembers: ids.length - added, topic: key };
    },

    /** Removes members; null when the topic is unknown. Ids that were not members are ignored. */
    async removeMembers(key: string, subscriberIds: readonly string[]): Promise<{ removed: number } | null> {
      const [topic] = await exists(key);
      if (!topic) return null;
      const statements: BatchItem<"sqlite">[] = chunk([...new Set(subscriberIds)], IDS_PER_DELETE).map((part) =>
        db
          .delete(topicMembers)
          .where(and(membersOf(key), inArray(topicMembers.subscriberId, part)))
          .returning({ subscriberId: topicMembers.subscriberId }),
      );
      const results = await runBatch(db, statements);
      return { removed: results.reduce<number>((sum, rows) => sum + (rows as unknown[]).length, 0) };
    },

    /** A page of members by subscriberId; null when the topic is unknown. */
    async members(key: string, limit: number, cursor?: string): Promise<{ data: TopicMember[]; nextCursor: string | null } | null> {
      const [after] = memberCursor.read(cursor) ?? [];
      const [found, rows] = await db.batch([
        exists(key),
        db
          .select({ subscriberId: topicMembers.subscriberId, createdAt: topicMembers.createdAt })
          .from(topicMembers)
          .where(and(membersOf(key), after ? gt(topicMembers.subscriberId, after) : undefined))
          .orderBy(asc(topicMembers.subscriberId))
          .limit(limit + 1),
      ]);
      if (found.length === 0) return null;
      const page = keysetPage(rows, limit, (last) => memberCursor.encode([last.subscriberId]));
      return {
        data: page.rows.map((row) => ({ subscriberId: row.subscriberId, addedAt: row.createdAt.toISOString() })),
        nextCursor: page.nextCursor,
      };
    },
  };
}
