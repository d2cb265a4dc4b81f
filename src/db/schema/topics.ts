import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, timestamps } from "./columns";

export const topics = sqliteTable(
  "topics",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("topics_env_key_uq").on(t.environmentId, t.key)],
);

export const topicMembers = sqliteTable(
  "topic_members",
  {
    environmentId: environmentId(),
    topicKey: text("topic_key").notNull(),
    subscriberId: text("subscriber_id").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.environmentId, t.topicKey, t.subscriberId] }),
    index("topic_members_subscriber_idx").on(t.environmentId, t.subscriberId),
  ],
);
