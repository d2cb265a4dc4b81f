import { and, eq, sql } from "drizzle-orm";
import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import type { Db } from "../../db/client";
import { preferenceChangeStatements } from "../../db/queries/subscriber-activity";
import type { SubscriberPreferences } from "../../contract/preferences";
import { subscribers } from "../../db/schema";
import { applyUpdate, preferenceChange } from "./preference-diff";
import type { SubscriberPreferencesUpdate } from "./preferences-schemas";

/** Rounds of read-and-write a change gets while other changes of the same subscriber keep landing first. */
const MAX_ATTEMPTS = 5;

/** Preferences of one environment's subscribers; `undefined` means no such subscriber. */
export function preferencesRepository(db: Db, environmentId: string) {
  const bySubscriber = (subscriberId: string) =>
    and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId));

  /** The stored JSON text as well: the change below is conditional on it. */
  const read = async (subscriberId: string) => {
    const [row] = await db
      .select({ preferences: subscribers.preferences, raw: sql<string | null>`${subscribers.preferences}` })
      .from(subscribers)
      .where(bySubscriber(subscriberId))
      .limit(1);
    return row;
  };

  return {
    async find(subscriberId: string): Promise<SubscriberPreferences | null | undefined> {
      const row = await read(subscriberId);
      return row ? row.preferences : undefined;
    },

    /**
     * Merges `update` (RFC 7396: objects merge, `null` removes a key) and records what changed on
     * the subscriber's timeline and as `subscriber.updated`, in one batch. The write holds only if
     * nothing changed the preferences since they were read, so two concurrent updates of different
     * flags both land, each recorded as it was applied. `eventIds` is empty when nothing changed.
     */
    async change(
      subscriberId: string,
      update: SubscriberPreferencesUpdate,
      reason: PreferenceChangeReason,
      now = new Date(),
    ): Promise<{ preferences: SubscriberPreferences | null; eventIds: string[] } | undefined> {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await read(subscriberId);
        if (!current) return undefined;
        const after = applyUpdate(current.preferences, update);
        const changed = preferenceChange(current.preferences, after);
        if (!changed) return { preferences: current.preferences, eventIds: [] };
        const { statements, eventId } = preferenceChangeStatements(
          db,
          { environmentId, subscriberId },
          { before: current.raw, after, changed, reason },
          now,
        );
        const [, , , [written]] = await db.batch(statements);
        if (written) return { preferences: written.preferences, eventIds: [eventId] };
      }
      throw new Error(`preferences of ${subscriberId} kept changing under ${MAX_ATTEMPTS} attempts`);
    },
  };
}
