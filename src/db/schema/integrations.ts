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
    /** The tenant whose messages it sends first; null: the environment's, for every message after a tenant's own. */
    tenantId: text("tenant_id"),
    ...timestamps,
  },
  (t) => [
    index("integrations_env_channel_idx").on(t.environmentId, t.channel),
    // Deleting a tenant removes its integrations by this index.
    index("integrations_env_tenant_idx").on(t.environmentId, t.tenantId),
  ],
);
