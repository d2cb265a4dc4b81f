import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { BrandDefinition } from "../../contract/brand";
import { environmentId, json } from "./columns";

/** Every brand an environment has had, never updated: a trigger accepted at version n renders with row n. */
export const brandVersions = sqliteTable(
  "brand_versions",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    version: integer("version").notNull(),
    definition: json<BrandDefinition>("definition").notNull(),
    action: text("action", { enum: ["created", "updated", "reverted", "promoted"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [uniqueIndex("brand_versions_env_version_uq").on(t.environmentId, t.version)],
);
