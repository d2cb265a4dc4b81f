import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { environmentId, json, timestamps } from "./columns";

export const integrations = sqliteTable(
  "integrations",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    provider: text("provider").notNull(),
    channel: text("channel").notNull(),
    name: text("name").notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    primary: integer("primary", { mode: "boolean" }).notNull(),
    priority: integer("priority").notNull(),
    /** AES-GCM ciphertext of the credentials JSON; never stored in clear. */
    credentials: text("credentials").notNull(),
    settings: json<Record<string, unknown>>("settings").notNull(),
    baseUrl: text("base_url"),
    ...timestamps,
  },
  (t) => [index("integrations_env_channel_idx").on(t.environmentId, t.channel)],
);
