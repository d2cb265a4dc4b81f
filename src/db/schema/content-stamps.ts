import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A counter per environment, moved by every write of a layout or partial in the same batch as the
 * version it stamps. The accept path reads it with the workflow gate (same statement, no extra
 * round trip) and the trigger keeps it: delivery renders with the versions current at that stamp.
 */
export const contentStamps = sqliteTable("content_stamps", {
  environmentId: text("environment_id").primaryKey(),
  stamp: integer("stamp").notNull(),
});
