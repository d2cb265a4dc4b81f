import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json } from "./columns";

/**
 * One row per environment, made on first use: the secret that signs its unsubscribe and
 * preference links (encrypted with ENCRYPTION_KEY, bound to the environment) and the hosted
 * page's branding. Rotating the secret revokes every link minted before.
 */
export const preferenceLinkSettings = sqliteTable("preference_link_settings", {
  environmentId: text("environment_id").primaryKey(),
  secret: text("secret").notNull(),
  brandName: text("brand_name"),
  logoUrl: text("logo_url"),
  accentColor: text("accent_color"),
  /** Per locale (`de`, `pt-BR`), the page texts that replace the English ones; keys are checked against the English messages. */
  translations: json<Record<string, Record<string, string>>>("translations"),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
