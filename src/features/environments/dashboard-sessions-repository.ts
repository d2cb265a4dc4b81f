import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { dashboardSessions } from "../../db/schema";

// Sessions belong to no environment: the credential sealed in the cookie says which one, and is
// checked on every request. Each function returns the statement; the caller awaits it.

/** The row that makes a session id (by its SHA-256) count until `expiresAt`. */
export const insertDashboardSession = (db: Db, idHash: string, expiresAt: Date, createdAt: Date) =>
  db.insert(dashboardSessions).values({ id: idHash, expiresAt, createdAt });

/** Ends a session wherever its cookie was copied. */
export const deleteDashboardSession = (db: Db, idHash: string) => db.delete(dashboardSessions).where(eq(dashboardSessions.id, idHash));

/** The session's row while it has not ended at `now`: one row or none. */
export const liveDashboardSession = (db: Db, idHash: string, now: Date) =>
  db
    .select({ id: dashboardSessions.id })
    .from(dashboardSessions)
    .where(and(eq(dashboardSessions.id, idHash), gt(dashboardSessions.expiresAt, now)))
    .limit(1);
