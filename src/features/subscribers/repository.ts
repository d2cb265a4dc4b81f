import { and, eq } from "drizzle-orm";
import { chatAddressFrom } from "../../contract/recipients";
import type { Db } from "../../db/client";
import { subscriberChannels, subscribers } from "../../db/schema";
import type { Subscriber } from "./schemas";

export async function findSubscriber(db: Db, environmentId: string, subscriberId: string): Promise<Subscriber | null> {
  const [rows, channels] = await db.batch([
    db
      .select()
      .from(subscribers)
      .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId)))
      .limit(1),
    db
      .select()
      .from(subscriberChannels)
      .where(and(eq(subscriberChannels.environmentId, environmentId), eq(subscriberChannels.subscriberId, subscriberId))),
  ]);
  const row = rows[0];
  if (!row) return null;
  return {
    subscriberId: row.subscriberId,
    email: row.email,
    phone: row.phone,
    firstName: row.firstName,
    lastName: row.lastName,
    avatar: row.avatar,
    locale: row.locale,
    timezone: row.timezone,
    data: row.data ?? null,
    channels: {
      push: channels.filter((c) => c.channel === "push").map((c) => ({ provider: c.provider, token: c.address })),
      chat: channels.filter((c) => c.channel === "chat").map((c) => chatAddressFrom(c.provider, c.address)),
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
