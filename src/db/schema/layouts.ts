import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, timestamps } from "./columns";

/**
 * An email's frame: the HTML (and optionally text) around a step's content, which goes where
 * `{{ content }}` is. At most one per environment is the default (a step that names none gets it).
 */
export const layouts = sqliteTable(
  "layouts",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    html: text("html").notNull(),
    text: text("text"),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    /** The number of its latest version (layout_versions); `If-Match` compares against it. */
    version: integer("version").notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex("layouts_env_key_uq").on(t.environmentId, t.key)],
);
