import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { messages, triggers } from "../../db/schema";
import type { LogStore } from "../../durable-objects/client/log-store";

/** One environment's messages in both stores, and the workflow version of messages that did not keep theirs. */
export function messageScope(db: Db, environmentId: string, logs: LogStore) {
  /**
   * The versions of these triggers, in one query: a message's version is its trigger's. Only for
   * messages written before their row kept it (the column is null): asking the triggers' shards
   * is a round trip a page should not pay.
   */
  const versionsOf = async (transactionIds: string[]): Promise<Map<string, number | null>> => {
    const wanted = [...new Set(transactionIds)];
    if (wanted.length === 0) return new Map();
    // The log's records first; D1's for triggers recorded before the log took them.
    const logged = new Map((await logs.findTriggers(environmentId, wanted)).map((t) => [t.transactionId, t.workflowVersion]));
    const rest = wanted.filter((tx) => !logged.has(tx));
    if (rest.length === 0) return logged;
    const rows = await db
      .select({ transactionId: triggers.transactionId, workflowVersion: triggers.workflowVersion })
      .from(triggers)
      .where(
        and(
          eq(triggers.environmentId, environmentId),
          // One bound JSON list: a page of 200 triggers would pass D1's 100 parameters.
          sql`${triggers.transactionId} IN (SELECT value FROM json_each(${JSON.stringify(rest)}))`,
        ),
      );
    for (const r of rows) logged.set(r.transactionId, r.workflowVersion);
    return logged;
  };
  /** A legacy message's version is its trigger's: read with it through the trigger's unique index, in the same query. */
  const withVersion = () =>
    db
      .select({ message: messages, workflowVersion: triggers.workflowVersion })
      .from(messages)
      .leftJoin(triggers, and(eq(triggers.environmentId, messages.environmentId), eq(triggers.transactionId, messages.transactionId)));
  return { db, environmentId, logs, versionsOf, withVersion };
}

export type MessageScope = ReturnType<typeof messageScope>;
