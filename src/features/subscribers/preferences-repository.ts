import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { subscribers, type SubscriberPreferences } from "../../db/schema";
import type { SubscriberPreferencesUpdate } from "./preferences-schemas";

/** Preferences of one environment's subscribers; `undefined` means no such subscriber. */
export function preferencesRepository(db: Db, environmentId: string) {
  const bySubscriber = (subscriberId: string) =>
    and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId));

  return {
    async find(subscriberId: string): Promise<SubscriberPreferences | null | undefined> {
      const [row] = await db.select({ preferences: subscribers.preferences }).from(subscribers).where(bySubscriber(subscriberId)).limit(1);
      return row ? row.preferences : undefined;
    },

    /**
     * Merges in SQL with json_patch (RFC 7396: objects merge, `null` removes a key), so two
     * concurrent updates of different flags both land without a read-modify-write race.
     */
    async merge(
      subscriberId: string,
      update: SubscriberPreferencesUpdate,
      now = new Date(),
    ): Promise<SubscriberPreferences | null | undefined> {
      const [row] = await db
        .update(subscribers)
        .set({
          preferences: sql`json_patch(coalesce(${subscribers.preferences}, '{}'), ${JSON.stringify(update)})`,
          updatedAt: now,
        })
        .where(bySubscriber(subscriberId))
        .returning({ preferences: subscribers.preferences });
      return row ? row.preferences : undefined;
    },
  };
}
