import { integer, text } from "drizzle-orm/sqlite-core";

/** Millisecond timestamps: sortable, compact, and what Date.now() gives. */
export const timestamps = {
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
};

export const environmentId = () => text("environment_id").notNull();

export const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();
