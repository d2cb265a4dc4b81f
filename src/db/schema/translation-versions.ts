import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, json } from "./columns";
import type { TranslationValue } from "../../contract/translations";

/**
 * Every state of every locale, never updated. `version` counts per locale (what the API shows);
 * `revision` is the environment's translations revision the change made (translation-settings.ts):
 * a trigger pinned to revision r reads, per locale, the row with the highest revision not above r.
 * `keys` is null for a deleted locale.
 */
export const translationVersions = sqliteTable(
  "translation_versions",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    locale: text("locale").notNull(),
    version: integer("version").notNull(),
    revision: integer("revision").notNull(),
    keys: json<Record<string, TranslationValue>>("keys"),
    action: text("action", { enum: ["created", "updated", "deleted", "promoted", "reverted"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("translation_versions_locale_version_uq").on(t.environmentId, t.locale, t.version),
    index("translation_versions_env_revision_idx").on(t.environmentId, t.revision),
  ],
);
