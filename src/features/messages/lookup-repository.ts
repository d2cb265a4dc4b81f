import { and, asc, eq } from "drizzle-orm";
import { messageEvents, messages } from "../../db/schema";
import { partitionOfId } from "../../lib/ids";
import { fromLog, NO_TENANCY, tenancyOf, toMessage } from "./log-rows";
import type { MessageScope } from "./scope-repository";

/** One message with its timeline, from whichever store holds it. */
export function messageLookup({ db, environmentId, logs, versionsOf, withVersion }: MessageScope) {
  const findLogged = async (id: string) => {
    const [found] = await logs.find(environmentId, [id]);
    if (!found) return null;
    const kept = found.message.workflowVersion ?? null;
    const versions = kept === null ? await versionsOf([found.message.transactionId]) : new Map<string, number | null>();
    return {
      message: fromLog(found.message),
      workflowVersion: kept ?? versions.get(found.message.transactionId) ?? null,
      layoutVersion: found.message.layoutVersion ?? null,
      tenancy: tenancyOf(found.message),
      events: found.events.map((e) => ({ ...e, at: new Date(e.at) })),
    };
  };
  const findLegacy = async (id: string) => {
    const [rows, events] = await db.batch([
      withVersion()
        .where(and(eq(messages.environmentId, environmentId), eq(messages.id, id)))
        .limit(1),
      db
        .select()
        .from(messageEvents)
        .where(and(eq(messageEvents.environmentId, environmentId), eq(messageEvents.messageId, id)))
        .orderBy(asc(messageEvents.at), asc(messageEvents.id)),
    ]);
    return rows[0] ? { ...rows[0], layoutVersion: null, tenancy: NO_TENANCY, events } : null;
  };
  return {
    /** A message with its timeline: from the log when its id carries a partition, else D1's legacy rows. */
    async find(id: string) {
      const found = partitionOfId(id) !== null ? await findLogged(id) : await findLegacy(id);
      if (!found) return null;
      return {
        ...toMessage(found.message, found.workflowVersion, found.layoutVersion, found.tenancy),
        content: found.message.content ?? null,
        events: found.events.map((e) => ({ status: e.status, at: e.at.toISOString(), detail: e.detail ?? null })),
      };
    },
  };
}
