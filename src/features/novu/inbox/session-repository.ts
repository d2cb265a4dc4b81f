import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { inAppSettings, subscribers } from "../../../db/schema";

/**
 * What a session token of `environmentId`'s subscriber is checked against, in one indexed read:
 * when the environment's Inbox sessions were last ended (a rotated secret, a changed hash requirement), and the subscriber's internal id (null once erased).
 * Undefined when the environment has no Inbox settings.
 */
export async function sessionState(
  db: Db,
  environmentId: string,
  subscriberId: string,
): Promise<{ changedAt: Date; subscriber: string | null } | undefined> {
  const [current] = await db
    .select({
      changedAt: sql<number>`coalesce(${inAppSettings.sessionsResetAt}, ${inAppSettings.updatedAt})`.mapWith(inAppSettings.updatedAt),
      subscriber: sql<string | null>`${subscribers.id}`,
    })
    .from(inAppSettings)
    .leftJoin(subscribers, and(eq(subscribers.environmentId, inAppSettings.environmentId), eq(subscribers.subscriberId, subscriberId)))
    .where(eq(inAppSettings.environmentId, environmentId))
    .limit(1);
  return current;
}
