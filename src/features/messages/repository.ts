import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sandboxMessages } from "../../db/schema";
import type { LogStore } from "../../durable-objects/client/log-store";
import { messageList } from "./list-repository";
import { messageLookup } from "./lookup-repository";
import { runReads } from "./run-repository";
import { messageScope } from "./scope-repository";
import { triggerStatusReads } from "./trigger-status-repository";

export { toMessage } from "./log-rows";

/** Messages of one environment: the list, one message, a trigger's status, and the sandbox's captured sends. */
export function messagesRepository(db: Db, environmentId: string, logs: LogStore) {
  const scope = messageScope(db, environmentId, logs);
  return {
    ...messageList(scope),
    ...messageLookup(scope),
    ...triggerStatusReads(scope),
    ...runReads(scope),

    async sandbox(limit: number, messageId?: string) {
      const rows = await db
        .select()
        .from(sandboxMessages)
        .where(and(eq(sandboxMessages.environmentId, environmentId), messageId ? eq(sandboxMessages.messageId, messageId) : undefined))
        .orderBy(desc(sandboxMessages.createdAt), desc(sandboxMessages.id))
        .limit(limit);
      return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
    },
  };
}
