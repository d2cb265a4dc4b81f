import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { SubscriberPreferences } from "../../contract/preferences";
import { environmentId, json, timestamps } from "./columns";

export const subscribers = sqliteTable(
  "subscribers",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    email: text("email"),
    phone: text("phone"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    avatar: text("avatar"),
    locale: text("locale"),
    timezone: text("timezone"),
    data: json<Record<string, unknown>>("data"),
    preferences: json<SubscriberPreferences>("preferences"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("subscribers_env_subscriber_uq").on(t.environmentId, t.subscriberId),
    // The filters of GET /v1/subscribers: exact email or phone, and what changed since a time.
    index("subscribers_env_email_idx").on(t.environmentId, t.email),
    index("subscribers_env_phone_idx").on(t.environmentId, t.phone),
    index("subscribers_env_updated_idx").on(t.environmentId, t.updatedAt),
  ],
);

export const CHANNEL_ADDRESS_KINDS = ["push", "chat"] as const;
export type ChannelAddressKind = (typeof CHANNEL_ADDRESS_KINDS)[number];

/** Push tokens and chat webhooks: a subscriber may hold several per provider. */
export const subscriberChannels = sqliteTable(
  "subscriber_channels",
  {
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    channel: text("channel", { enum: CHANNEL_ADDRESS_KINDS }).notNull(),
    provider: text("provider").notNull(),
    address: text("address").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.subscriberId, t.channel, t.provider, t.address] })],
);
