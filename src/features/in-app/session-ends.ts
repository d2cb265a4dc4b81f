import type { Context } from "hono";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import type { AppEnv } from "../../env";

/**
 * Subscribers whose objects are told at once. Past it (an environment with more open Inboxes), a
 * socket ends at its object's next push or at its token's expiry: none receives anything after
 * the change either way, as every push checks its session first (durable-objects/inbox-socket).
 */
const PROMPT_CLOSES = 1000;

/**
 * After a change of the Inbox settings (a rotated secret, `hmacRequired` changed), which ends every
 * session issued before it: the environment's open Inbox sockets of those sessions are closed,
 * after the answer. A call that changed nothing closes nothing: each object compares its sockets'
 * tokens with the settings' `updatedAt`.
 */
export function closeEndedInboxSockets(c: Context<AppEnv>): void {
  const { environmentId } = c.var.data;
  c.executionCtx.waitUntil(
    (async () => {
      const present = await c.var.data.presentSubscribers(PROMPT_CLOSES);
      await inboxSockets(c.env.INBOX_SOCKETS).revalidate(environmentId, present);
    })().catch((error) =>
      console.log(JSON.stringify({ level: "warn", event: "inbox_revalidate_failed", environmentId, error: String(error) })),
    ),
  );
}
