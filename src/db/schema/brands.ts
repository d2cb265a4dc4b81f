import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { BrandDefinition } from "../../contract/brand";
import { json } from "./columns";

/**
 * One row per environment once its brand is saved: what every template reads as `brand` and the
 * hosted pages show. `version` counts saves, as a workflow's does; triggers pin it when accepted.
 */
export const brands = sqliteTable("brands", {
  environmentId: text("environment_id").primaryKey(),
  version: integer("version").notNull(),
  definition: json<BrandDefinition>("definition").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
