import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { subscribers, workflows } from "../../db/schema";

/** What the hosted pages read about an environment: a link's subscriber and the workflows. */
export function pageRepository(db: Db, environmentId: string) {
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  return {
    /**
     * What the pages show of the link's subscriber: who they are, their choices, and the locale
     * their texts are in. By row id (a sealed link's incarnation) or by subscriberId (a 0.12 link).
     */
    async subscriber(by: { rowId: string } | { subscriberId: string }) {
      const match = "rowId" in by ? eq(subscribers.id, by.rowId) : eq(subscribers.subscriberId, by.subscriberId);
      const [row] = await db
        .select({
          rowId: subscribers.id,
          subscriberId: subscribers.subscriberId,
          preferences: subscribers.preferences,
          locale: subscribers.locale,
        })
        .from(subscribers)
        .where(and(eq(subscribers.environmentId, environmentId), match))
        .limit(1);
      return row;
    },

    async workflow(key: string) {
      const [row] = await db
        .select({ key: workflows.key, name: workflows.name, critical: workflows.critical, unsubscribe: workflows.unsubscribe })
        .from(workflows)
        .where(and(live, eq(workflows.key, key)))
        .limit(1);
      return row;
    },

    /** The workflows a subscriber may opt out of: live, active, not critical. */
    async choosable() {
      return db
        .select({ key: workflows.key, name: workflows.name, description: workflows.description, steps: workflows.steps })
        .from(workflows)
        .where(and(live, eq(workflows.active, true), eq(workflows.critical, false)))
        .orderBy(asc(workflows.name))
        .limit(200);
    },
  };
}
