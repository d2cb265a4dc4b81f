import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { TranslationValue } from "../../contract/translations";
import { environmentId, json } from "./columns";

/**
 * One row per locale of an environment: its keys, flattened (`cart.items`), and the translations
 * revision at which each key's text last changed: a key whose default text changed at a later
 * revision than this locale's is "outdated".
 */
export const translations = sqliteTable(
  "translations",
  {
    environmentId: environmentId(),
    locale: text("locale").notNull(),
    keys: json<Record<string, TranslationValue>>("keys").notNull(),
    keyRevisions: json<Record<string, number>>("key_revisions").notNull(),
    version: integer("version").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.locale] })],
);
