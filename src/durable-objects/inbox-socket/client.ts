import type { InAppRow } from "../../db/queries/in-app";
import type { InboxSocket } from "./inbox-socket";
import {
  SOCKET_CONTEXT_HEADER,
  SOCKET_ENVIRONMENT_HEADER,
  SOCKET_EXPIRES_AT_HEADER,
  SOCKET_ISSUED_AT_HEADER,
  SOCKET_SUBSCRIBER_HEADER,
  type SocketSession,
} from "./owner";

/** Objects asked at once when a settings change ends an environment's sessions. */
const REVALIDATE_CONCURRENCY = 25;

/**
 * The typed client of the Inbox socket objects: one per environment + subscriber. Pushes never
 * fail the write that caused them (the write is done and the Inbox reads it on its next fetch):
 * a failed push is logged and counted as no socket reached.
 */
export function inboxSockets(namespace: DurableObjectNamespace<InboxSocket>) {
  const stub = (environmentId: string, subscriberId: string) => namespace.get(namespace.idFromName(`${environmentId}:${subscriberId}`));
  const logged = async (event: string, environmentId: string, subscriberId: string, push: () => Promise<number>): Promise<number> => {
    try {
      return await push();
    } catch (error) {
      console.log(JSON.stringify({ level: "warn", event, environmentId, subscriberId, error: String(error) }));
      return 0;
    }
  };

  return {
    /** Hands an authenticated upgrade request to the subscriber's object, with the session it authenticated with. */
    connect(session: SocketSession, request: Request) {
      const forwarded = new Request(request);
      forwarded.headers.set(SOCKET_ENVIRONMENT_HEADER, session.environmentId);
      forwarded.headers.set(SOCKET_SUBSCRIBER_HEADER, session.subscriberId);
      forwarded.headers.set(SOCKET_ISSUED_AT_HEADER, String(session.issuedAt));
      forwarded.headers.set(SOCKET_EXPIRES_AT_HEADER, String(session.expiresAt));
      forwarded.headers.set(SOCKET_CONTEXT_HEADER, encodeURIComponent(session.context ?? ""));
      return stub(session.environmentId, session.subscriberId).fetch(forwarded);
    },

    /**
     * New notifications of one environment, any subscribers: one call per subscriber, however many
     * rows each has. Callers pass only the rows of subscribers with presence (db/queries/inbox-presence.ts).
     */
    async received(environmentId: string, rows: InAppRow[]): Promise<number> {
      const bySubscriber = Map.groupBy(rows, (row) => row.subscriberId);
      const reached = await Promise.all(
        [...bySubscriber].map(([subscriberId, theirs]) =>
          logged("inbox_push_failed", environmentId, subscriberId, () =>
            stub(environmentId, subscriberId).received(environmentId, subscriberId, theirs),
          ),
        ),
      );
      return reached.reduce((n, r) => n + r, 0);
    },

    /** Notifications changed: the counts go to the sockets of `context` (every socket, each its own counts, when undefined). */
    changed: (environmentId: string, subscriberId: string, context?: string) =>
      logged("inbox_push_failed", environmentId, subscriberId, () =>
        stub(environmentId, subscriberId).changed(environmentId, subscriberId, context),
      ),

    /**
     * The environment's Inbox settings changed: each of these subscribers' objects closes the sockets
     * whose session ended with it. Returns the sockets closed. Each object also checks before its
     * next push, so one not reached here still pushes nothing to an ended session.
     */
    async revalidate(environmentId: string, subscriberIds: readonly string[]): Promise<number> {
      let closed = 0;
      for (let i = 0; i < subscriberIds.length; i += REVALIDATE_CONCURRENCY) {
        const batch = subscriberIds.slice(i, i + REVALIDATE_CONCURRENCY);
        const counts = await Promise.all(
          batch.map((subscriberId) =>
            logged("inbox_revalidate_failed", environmentId, subscriberId, () =>
              stub(environmentId, subscriberId).revalidate(environmentId, subscriberId),
            ),
          ),
        );
        closed += counts.reduce((n, c) => n + c, 0);
      }
      return closed;
    },

    close: (environmentId: string, subscriberId: string) =>
      logged("inbox_close_failed", environmentId, subscriberId, () => stub(environmentId, subscriberId).closeAll()),
  };
}

export type InboxSockets = ReturnType<typeof inboxSockets>;
