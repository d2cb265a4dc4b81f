import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, timestamps } from "./columns";

export const PARTIAL_TYPES = ["html", "text"] as const;

/** A reusable block of Liquid, rendered from any template with `{% render "key", arg: value %}`. */
export const partials = sqliteTable(
  "partials",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    content: text("content").notNull(),
    type: text("type", { enum: PARTIAL_TYPES }).notNull(),
    /** The number of its latest version (partial_versions); `If-Match` compares against it. */
    version: integer("version").notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex("partials_env_key_uq").on(t.environmentId, t.key)],
);
