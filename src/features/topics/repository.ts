import { and, asc, count, eq, gt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { topicMembers, topics } from "../../db/schema";
import { newId } from "../../lib/ids";
import { type Topic, type TopicInput, type TopicUpdate, type TopicWithCount, topicCursor } from "./schemas";
import { countUpTo, type KeysetWindow, keysetWindow, totalOf } from "../../db/keyset-window";
import { containing } from "../../lib/like";
import { keysetPage } from "../../lib/pagination";

type Row = typeof topics.$inferSelect;

export const toTopic = (row: Row): Topic => ({
  id: row.id,
  key: row.key,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** What a topic search can match: `key` exactly, `name` as a part of the name (case-insensitive). */
export interface TopicFilter {
  key?: string;
  name?: string;
}

/** The predicates every query of one environment's topics and memberships starts from. */
export function topicScope(db: Db, environmentId: string) {
  const byKey = (key: string) => and(eq(topics.environmentId, environmentId), eq(topics.key, key));
  const membersOf = (key: string) => and(eq(topicMembers.environmentId, environmentId), eq(topicMembers.topicKey, key));
  const exists = (key: string) => db.select({ id: topics.id }).from(topics).where(byKey(key)).limit(1);
  return { byKey, membersOf, exists };
}

/** Reading topics: one with its member count, the API's pages, and the dashboard's search. */
function topicReads(db: Db, environmentId: string) {
  const { byKey, membersOf } = topicScope(db, environmentId);
  const matching = (f: TopicFilter): SQL | undefined =>
    and(
      eq(topics.environmentId, environmentId),
      f.key ? eq(topics.key, f.key) : undefined,
      f.name ? sql`${topics.name} LIKE ${containing(f.name)} ESCAPE '\\'` : undefined,
    );

  return {
    /** The topic and its member count, in one round trip. */
    async find(key: string): Promise<TopicWithCount | null> {
      const [rows, counted] = await db.batch([
        db.select().from(topics).where(byKey(key)).limit(1),
        db.select({ n: count() }).from(topicMembers).where(membersOf(key)),
      ]);
      const row = rows[0];
      return row ? { ...toTopic(row), memberCount: counted[0]?.n ?? 0 } : null;
    },

    async list(limit: number, cursor?: string): Promise<{ data: Topic[]; nextCursor: string | null }> {
      const [after] = topicCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(topics)
        .where(and(eq(topics.environmentId, environmentId), after ? gt(topics.key, after) : undefined))
        .orderBy(asc(topics.key))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => topicCursor.encode([last.key]));
      return { data: page.rows.map(toTopic), nextCursor: page.nextCursor };
    },

    /** A page by key either way from a key, with the capped count of all that match. */
    async search(filter: TopicFilter, window: KeysetWindow) {
      const w = keysetWindow(topics.key, window);
      const where = matching(filter);
      const [rows, counted] = await db.batch([
        db.select().from(topics).where(and(where, w.where)).orderBy(w.orderBy).limit(w.limit),
        countUpTo(db, topics, where),
      ]);
      const page = w.page(rows, (row) => row.key);
      return { ...page, rows: page.rows.map(toTopic), ...totalOf(counted) };
    },

    /** Page `page` (from 0) of `limit` by key: an `OFFSET` read, so it costs more the deeper the page. */
    async atOffset(filter: TopicFilter, page: number, limit: number) {
      const where = matching(filter);
      const [rows, counted] = await db.batch([
        db
          .select()
          .from(topics)
          .where(where)
          .orderBy(asc(topics.key))
          .limit(limit)
          .offset(page * limit),
        countUpTo(db, topics, where),
      ]);
      return { rows: rows.map(toTopic), ...totalOf(counted) };
    },
  };
}

/** Creating, renaming and deleting topics. */
function topicWrites(db: Db, environmentId: string) {
  const { byKey, membersOf } = topicScope(db, environmentId);

  return {
    /** Returns null when the key is already taken. */
    async create(input: TopicInput, now = new Date()): Promise<Topic | null> {
      const [row] = await db
        .insert(topics)
        .values({ id: newId("top"), environmentId, key: input.key, name: input.name, createdAt: now, updatedAt: now })
        .onConflictDoNothing()
        .returning();
      return row ? toTopic(row) : null;
    },

    async update(key: string, input: TopicUpdate, now = new Date()): Promise<Topic | null> {
      const [row] = await db.update(topics).set({ name: input.name, updatedAt: now }).where(byKey(key)).returning();
      return row ? toTopic(row) : null;
    },

    /** Deletes the topic and its memberships together; the subscribers stay. */
    async remove(key: string): Promise<boolean> {
      const [, deleted] = await db.batch([
        db.delete(topicMembers).where(membersOf(key)),
        db.delete(topics).where(byKey(key)).returning({ id: topics.id }),
      ]);
      return deleted.length > 0;
    },
  };
}

/** Topics of one environment: the environment is fixed once, so no query can forget it. Members: members-repository.ts. */
export function topicsRepository(db: Db, environmentId: string) {
  return { ...topicReads(db, environmentId), ...topicWrites(db, environmentId) };
}
