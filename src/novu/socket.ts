// Novu's Inbox socket, as `@novu/js` opens it with `socketOptions: {socketType: 'cloud'}`:
// `GET <socketUrl>?token=<session token>` upgraded to a WebSocket, frames `{event, data}`
// (durable-objects/inbox-socket/frames.ts). The token is the Inbox session's; no key is involved.
import { Hono } from "hono";
import { unscopedDb } from "../db/unscoped";
import { inboxSockets } from "../durable-objects/inbox-socket/client";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { limitFailedAuth } from "../lib/middleware/rate-limit";
import { SessionEnded, type VerifiedSession, verifySessionToken } from "./inbox/session-token";

export const novuSocketRoutes = new Hono<AppEnv>();

// strict: false in the parent router, so `/socket/` (a socketUrl ending in a slash) lands here too.
novuSocketRoutes.get("/socket", async (c) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new ApiError("bad_request", "This is the Inbox's WebSocket: open it with `Upgrade: websocket`.", undefined, { status: 426 });
  }
  // Refuses the token of an erased subscriber, or one older than the last change of the Inbox settings.
  let session: VerifiedSession;
  try {
    session = await verifySessionToken(unscopedDb(c.env), c.env.ENCRYPTION_KEY, c.req.query("token"));
  } catch (error) {
    // Guessing tokens here counts with the REST session's failed authentications (per client IP).
    // A token that was Clarion's is no guess: @novu/js reconnects with it every few seconds until
    // the page reloads, and counting those would shut out every Inbox behind a shared address after
    // a secret rotation.
    if (error instanceof SessionEnded) throw error;
    throw (await limitFailedAuth(c)) ?? error;
  }
  // The object keeps the token's iat and exp: the socket ends with the session (inbox-socket.ts).
  return inboxSockets(c.env.INBOX_SOCKETS).connect(session, c.req.raw);
});
