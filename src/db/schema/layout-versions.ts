import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, json } from "./columns";

/** A layout's content, as `PUT /v1/layouts/{key}` takes it. */
export interface LayoutDefinition {
  key: string;
  name: string;
  description: string | null;
  html: string;
  text: string | null;
  isDefault: boolean;
}

/**
 * Every state a layout has had, never updated, numbered per layout. `stamp` is the environment's
 * content stamp (content_stamps) when it was written: a trigger records the stamp it was accepted
 * at, and renders with each layout's newest version at or below it.
 */
export const layoutVersions = sqliteTable(
  "layout_versions",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    layoutId: text("layout_id").notNull(),
    layoutKey: text("layout_key").notNull(),
    version: integer("version").notNull(),
    stamp: integer("stamp").notNull(),
    /** What was saved; for a delete, the layout as it was deleted. */
    definition: json<LayoutDefinition>("definition").notNull(),
    action: text("action", { enum: ["created", "updated", "deleted", "reverted"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    summary: text("summary").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("layout_versions_layout_version_uq").on(t.layoutId, t.version),
    index("layout_versions_env_key_stamp_idx").on(t.environmentId, t.layoutKey, t.stamp),
  ],
);
