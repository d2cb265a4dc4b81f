import { and, asc, eq, gt, gte, inArray, or, sql, type SQL } from "drizzle-orm";
import { chatAddressFrom } from "../../contract/recipients";
import type { Db } from "../../db/client";
import { subscriberChannels, subscribers, topicMembers } from "../../db/schema";
import { chunk, runBatch } from "../../db/batch";
import { countUpTo, type KeysetWindow, keysetWindow, totalOf, type WindowPage } from "../../db/keyset-window";
import { containing } from "../../lib/like";
import { keysetPage } from "../../lib/pagination";
import { maskString } from "../integrations/credentials";
import { decodeCursor, encodeCursor, subscriberCursor } from "./cursor";
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
export const maskChannels = (channels: Subscriber["channels"]): Subscriber["channels"] => ({
  push: channels.push.map((p) => ({ ...p, token: maskString(p.token) })),
  chat: channels.chat.map((c) => ("webhookUrl" in c ? { ...c, webhookUrl: maskString(c.webhookUrl) } : c)),
});

const bySubscriber = (environmentId: string, subscriberId: string) =>
  and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId));

const channelsOf = (db: Db, environmentId: string, subscriberId: string) =>
  db
    .select()
    .from(subscriberChannels)
    .where(and(eq(subscriberChannels.environmentId, environmentId), eq(subscriberChannels.subscriberId, subscriberId)));

/** The stored subscriber with its channel addresses in full, for a write that merges into them; never an answer as it stands. */
export async function findSubscriber(db: Db, environmentId: string, subscriberId: string): Promise<Subscriber | null> {
  const [rows, channels] = await db.batch([
    db.select().from(subscribers).where(bySubscriber(environmentId, subscriberId)).limit(1),
    channelsOf(db, environmentId, subscriberId),
  ]);
  const row = rows[0];
  return row ? { ...toSummary(row), channels: toChannels(channels) } : null;
}

/**
 * What a listing can match: `email`, `phone` and `subscriberId` exactly, `name` as a part of the
 * full name, `q` as a part of the full name or the subscriberId (both case-insensitive).
 */
export type SubscriberFilter = Partial<Pick<SubscriberQuery, "email" | "phone" | "q" | "updatedSince">> & {
  name?: string;
  subscriberId?: string;
};

const fullName = sql`coalesce(${subscribers.firstName}, '') || ' ' || coalesce(${subscribers.lastName}, '')`;

function matching(environmentId: string, f: SubscriberFilter): SQL | undefined {
  const filters: (SQL | undefined)[] = [
    eq(subscribers.environmentId, environmentId),
    f.email ? eq(subscribers.email, f.email) : undefined,
    f.phone ? eq(subscribers.phone, f.phone) : undefined,
    f.subscriberId ? eq(subscribers.subscriberId, f.subscriberId) : undefined,
    f.updatedSince ? gte(subscribers.updatedAt, new Date(f.updatedSince)) : undefined,
    // SQLite's LIKE ignores case (ASCII); a substring search cannot use an index, so it runs within the other filters.
    f.name ? sql`${fullName} LIKE ${containing(f.name)} ESCAPE '\\'` : undefined,
  ];
  if (f.q) {
    const term = containing(f.q);
    filters.push(or(sql`${fullName} LIKE ${term} ESCAPE '\\'`, sql`${subscribers.subscriberId} LIKE ${term} ESCAPE '\\'`));
  }
  return and(...filters);
}

/** A listed subscriber with its internal id and channel addresses (masked), for answers that show them. */
export type ListedSubscriber = Subscriber & { id: string };

/** The channel addresses of a page of subscribers, masked; a page of 100 ids is split to stay under D1's 100 bound parameters. */
async function withChannels(db: Db, environmentId: string, rows: Row[]): Promise<ListedSubscriber[]> {
  const parts = chunk(
    rows.map((r) => r.subscriberId),
    90,
  ).map((ids) =>
    db
      .select()
      .from(subscriberChannels)
      .where(and(eq(subscriberChannels.environmentId, environmentId), inArray(subscriberChannels.subscriberId, ids))),
  );
  const channels = ((await runBatch(db, parts)) as ChannelRow[][]).flat();
  const bySubscriber = Map.groupBy(channels, (c) => c.subscriberId);
  return rows.map((row) => ({
    id: row.id,
    ...toSummary(row),
    channels: maskChannels(toChannels(bySubscriber.get(row.subscriberId) ?? [])),
  }));
}

/** Reads of one environment's subscribers. */
export function subscribersRepository(db: Db, environmentId: string) {
  return {
    async list(query: SubscriberQuery): Promise<{ data: SubscriberSummary[]; nextCursor: string | null }> {
      const [after] = subscriberCursor.read(query.cursor) ?? [];
      const rows = await db
        .select()
        .from(subscribers)
        .where(and(matching(environmentId, query), after !== undefined ? gt(subscribers.subscriberId, after) : undefined))
        .orderBy(asc(subscribers.subscriberId))
        .limit(query.limit + 1);
      const page = keysetPage(rows, query.limit, (last) => subscriberCursor.encode([last.subscriberId]));
      return { data: page.rows.map(toSummary), nextCursor: page.nextCursor };
    },

    /** A page by subscriberId either way from a Novu cursor (`encodeCursor`), with the capped count of all that match. */
    async search(filter: SubscriberFilter, window: KeysetWindow) {
      const decode = (cursor: string | undefined) => (cursor === undefined ? undefined : (decodeCursor(cursor) ?? undefined));
      const w = keysetWindow(subscribers.subscriberId, { ...window, after: decode(window.after), before: decode(window.before) });
      const where = matching(environmentId, filter);
      const [rows, counted] = await db.batch([
        db.select().from(subscribers).where(and(where, w.where)).orderBy(w.orderBy).limit(w.limit),
        countUpTo(db, subscribers, where),
      ]);
      const page: WindowPage<Row> = w.page(rows, (row) => encodeCursor(row.subscriberId));
      return { ...page, rows: await withChannels(db, environmentId, page.rows), ...totalOf(counted) };
    },

    /** Page `page` (from 0) of `limit` by subscriberId: an `OFFSET` read, so it costs more the deeper the page. */
    async atOffset(filter: SubscriberFilter, page: number, limit: number) {
      const where = matching(environmentId, filter);
      const [rows, counted] = await db.batch([
        db
          .select()
          .from(subscribers)
          .where(where)
          .orderBy(asc(subscribers.subscriberId))
          .limit(limit + 1)
          .offset(page * limit),
        countUpTo(db, subscribers, where),
      ]);
      return { rows: await withChannels(db, environmentId, rows.slice(0, limit)), hasMore: rows.length > limit, ...totalOf(counted) };
    },

    /** The subscriber's internal id (`sub_...`), which Novu's answers show as `_id`. */
    async internalId(subscriberId: string): Promise<string | undefined> {
      const [row] = await db.select({ id: subscribers.id }).from(subscribers).where(bySubscriber(environmentId, subscriberId)).limit(1);
      return row?.id;
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
