import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, json } from "./columns";

/** A partial's content, as `PUT /v1/partials/{key}` takes it. */
export interface PartialDefinition {
  key: string;
  name: string;
  description: string | null;
  content: string;
  type: "html" | "text";
}

/** Every state a partial has had, never updated, stamped as layout_versions are (see there). */
export const partialVersions = sqliteTable(
  "partial_versions",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    partialId: text("partial_id").notNull(),
    partialKey: text("partial_key").notNull(),
    version: integer("version").notNull(),
    stamp: integer("stamp").notNull(),
    /** What was saved; for a delete, the partial as it was deleted. */
    definition: json<PartialDefinition>("definition").notNull(),
    action: text("action", { enum: ["created", "updated", "deleted", "reverted"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    summary: text("summary").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("partial_versions_partial_version_uq").on(t.partialId, t.version),
    index("partial_versions_env_key_stamp_idx").on(t.environmentId, t.partialKey, t.stamp),
  ],
);
