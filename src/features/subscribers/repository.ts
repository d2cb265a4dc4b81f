import { and, asc, eq, gt, gte, or, sql, type SQL } from "drizzle-orm";
import { chatAddressFrom } from "../../contract/recipients";
import type { Db } from "../../db/client";
import { subscriberChannels, subscribers, topicMembers } from "../../db/schema";
import { keysetPage } from "../../lib/pagination";
import { maskString } from "../integrations/credentials";
import { decodeCursor, encodeCursor } from "./cursor";
import { withDefaults } from "./preferences";
import type { Subscriber, SubscriberDetail, SubscriberQuery, SubscriberSummary } from "./schemas";

type Row = typeof subscribers.$inferSelect;
type ChannelRow = typeof subscriberChannels.$inferSelect;

const toSummary = (row: Row): SubscriberSummary => ({
  subscriberId: row.subscriberId,
  email: row.email,
  phone: row.phone,
  firstName: row.firstName,
  lastName: row.lastName,
  avatar: row.avatar,
  locale: row.locale,
  timezone: row.timezone,
  data: row.data ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toChannels = (rows: ChannelRow[]): Subscriber["channels"] => ({
  push: rows.filter((c) => c.channel === "push").map((c) => ({ provider: c.provider, token: c.address })),
  chat: rows.filter((c) => c.channel === "chat").map((c) => chatAddressFrom(c.provider, c.address)),
});

/** Push tokens and webhook URLs grant sending to the subscriber: shown masked, as integration credentials are. A channel id is a name, not a secret. */
const maskChannels = (channels: Subscriber["channels"]): Subscriber["channels"] => ({
  push: channels.push.map((p) => ({ ...p, token: maskString(p.token) })),
  chat: channels.chat.map((c) => ("webhookUrl" in c ? { ...c, webhookUrl: maskString(c.webhookUrl) } : c)),
});

/** `%` and `_` in a search term are literal characters, not wildcards. */
const containing = (term: string) => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

const bySubscriber = (environmentId: string, subscriberId: string) =>
  and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId));

const channelsOf = (db: Db, environmentId: string, subscriberId: string) =>
  db
    .select()
    .from(subscriberChannels)
    .where(and(eq(subscriberChannels.environmentId, environmentId), eq(subscriberChannels.subscriberId, subscriberId)));

/** The stored subscriber with its channel addresses in full: what `/sub` answers to the client that just wrote them. */
export async function findSubscriber(db: Db, environmentId: string, subscriberId: string): Promise<Subscriber | null> {
  const [rows, channels] = await db.batch([
    db.select().from(subscribers).where(bySubscriber(environmentId, subscriberId)).limit(1),
    channelsOf(db, environmentId, subscriberId),
  ]);
  const row = rows[0];
  return row ? { ...toSummary(row), channels: toChannels(channels) } : null;
}

/** Reads of one environment's subscribers. */
export function subscribersRepository(db: Db, environmentId: string) {
  return {
    async list(query: SubscriberQuery): Promise<{ data: SubscriberSummary[]; nextCursor: string | null }> {
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      const filters: (SQL | undefined)[] = [
        eq(subscribers.environmentId, environmentId),
        query.email ? eq(subscribers.email, query.email) : undefined,
        query.phone ? eq(subscribers.phone, query.phone) : undefined,
        query.updatedSince ? gte(subscribers.updatedAt, new Date(query.updatedSince)) : undefined,
        after !== null ? gt(subscribers.subscriberId, after) : undefined,
      ];
      if (query.q) {
        // SQLite's LIKE ignores case (ASCII); a substring search cannot use an index, so it runs within the other filters.
        const term = containing(query.q);
        filters.push(
          or(
            sql`coalesce(${subscribers.firstName}, '') || ' ' || coalesce(${subscribers.lastName}, '') LIKE ${term} ESCAPE '\\'`,
            sql`${subscribers.subscriberId} LIKE ${term} ESCAPE '\\'`,
          ),
        );
      }
      const rows = await db
        .select()
        .from(subscribers)
        .where(and(...filters))
        .orderBy(asc(subscribers.subscriberId))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => encodeCursor(last.subscriberId));
      return { data: page.rows.map(toSummary), nextCursor: page.nextCursor };
    },

    async find(subscriberId: string): Promise<SubscriberDetail | null> {
      const [rows, channels, topics] = await db.batch([
        db.select().from(subscribers).where(bySubscriber(environmentId, subscriberId)).limit(1),
        channelsOf(db, environmentId, subscriberId),
        db
          .select({ key: topicMembers.topicKey })
          .from(topicMembers)
          .where(and(eq(topicMembers.environmentId, environmentId), eq(topicMembers.subscriberId, subscriberId)))
          .orderBy(asc(topicMembers.topicKey)),
      ]);
      const row = rows[0];
      if (!row) return null;
      return {
        ...toSummary(row),
        channels: maskChannels(toChannels(channels)),
        preferences: withDefaults(row.preferences ?? null),
        topics: topics.map((t) => t.key),
      };
    },
  };
}
