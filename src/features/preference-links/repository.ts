import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { environments, subscribers, workflows } from "../../db/schema";

/** What the hosted pages read about an environment: its name and its workflows. */
export function pageRepository(db: Db, environmentId: string) {
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  return {
    async environmentName(): Promise<string | undefined> {
      const [row] = await db.select({ name: environments.name }).from(environments).where(eq(environments.id, environmentId)).limit(1);
      return row?.name;
    },

    /** What the pages show of the link's subscriber: their choices, and the locale their texts are in. */
    async subscriber(subscriberId: string) {
      const [row] = await db
        .select({ preferences: subscribers.preferences, locale: subscribers.locale })
        .from(subscribers)
        .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId)))
        .limit(1);
      return row;
    },

    async workflow(key: string) {
      const [row] = await db
        .select({ key: workflows.key, critical: workflows.critical, unsubscribe: workflows.unsubscribe })
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
