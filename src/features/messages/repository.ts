import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sandboxMessages } from "../../db/schema";
import type { LogStore } from "../../durable-objects/client/log-store";
import { newestFirst } from "../../lib/newest-first";
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

    /**
     * The sandbox's captures newest first: the log's (with their messages since 0.13) and those D1
     * kept from before, until they expire (SANDBOX_RETENTION_DAYS), merged.
     */
    async sandbox(limit: number, messageId?: string) {
      const [logged, kept] = await Promise.all([
        logs.captures(environmentId, limit, messageId),
        db
          .select()
          .from(sandboxMessages)
          .where(and(eq(sandboxMessages.environmentId, environmentId), messageId ? eq(sandboxMessages.messageId, messageId) : undefined))
          .orderBy(desc(sandboxMessages.createdAt), desc(sandboxMessages.id))
          .limit(limit),
      ]);
      const rows = [...logged, ...kept.map((r) => ({ ...r, createdAt: r.createdAt.getTime() }))];
      return rows
        .sort(newestFirst)
        .slice(0, limit)
        .map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() }));
    },
  };
}
