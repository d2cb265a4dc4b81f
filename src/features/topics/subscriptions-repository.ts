import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { subscribers, topicMembers, topics } from "../../db/schema";
import { countUpTo, type KeysetWindow, keysetWindow, totalOf } from "../../db/keyset-window";

/** The other way round: the topics one subscriber is a member of. */
export function subscriptionPages(db: Db, environmentId: string) {
  return {
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
  };
}
