import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { chunk, rowsPerStatement, runBatch } from "../../db/batch";
import { subscribers, topicMembers, topics } from "../../db/schema";
import { newId } from "../../lib/ids";
import { memberPages } from "./member-pages-repository";
import { topicScope } from "./repository";
import type { TopicMembersAdded } from "./schemas";
import { subscriptionPages } from "./subscriptions-repository";

/** D1 allows 100 bound parameters; a delete binds the environment and topic besides the ids. */
const IDS_PER_DELETE = 90;

/** Joining and leaving topics, and whether a subscriber is a member. */
function memberships(db: Db, environmentId: string) {
  const { membersOf, exists } = topicScope(db, environmentId);

  return {
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
  };
}

/** Topic memberships of one environment, both ways: a topic's members and a subscriber's topics. */
export function topicMembersRepository(db: Db, environmentId: string) {
  return { ...memberPages(db, environmentId), ...subscriptionPages(db, environmentId), ...memberships(db, environmentId) };
}
