import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { subscribers, topicMembers, topics } from "../../db/schema";
import { countUpTo, type KeysetWindow, keysetWindow, totalOf } from "../../db/keyset-window";
import { keysetPage } from "../../lib/pagination";
import { toTopic, topicScope } from "./repository";
import { memberCursor, type TopicMember } from "./schemas";

/** A topic's members, page by page: by cursor for the API, either way from a subscriberId for the dashboard. */
export function memberPages(db: Db, environmentId: string) {
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
