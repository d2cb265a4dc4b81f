import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * An environment's translation settings, made on first use: the locale every other falls back to
 * (and every `t` key must exist in), and the revision that every translation change increments,
 * which a trigger records when accepted so that it renders with the texts of that moment.
 */
export const translationSettings = sqliteTable("translation_settings", {
  environmentId: text("environment_id").primaryKey(),
  defaultLocale: text("default_locale").notNull().default("en"),
  revision: integer("revision").notNull().default(0),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
