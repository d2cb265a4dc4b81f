import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The dashboard's signed-in sessions. The cookie holds a random session id (sealed with the
 * credential); the row is what makes it count, so signing out deletes it and every copy of the
 * cookie stops working at once. Purged by retention once expired.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    /** SHA-256 of the session id in the cookie: a read of this table gives nothing to present. */
    id: text("id").primaryKey(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("dashboard_sessions_expires_idx").on(t.expiresAt)],
);
