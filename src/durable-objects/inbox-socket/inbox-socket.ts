import { DurableObject } from "cloudflare:workers";
import { unscopedDb } from "../../db/unscoped";
import type { InAppCounts, InAppRow } from "../../db/queries/in-app";
import { inboxFeed } from "../client/inbox-feed";
import { unscopedLogs } from "../client/unscoped-logs";
import { setPresence } from "../../db/queries/inbox-presence";
import { inboxSessionState, sessionHolds } from "../../db/queries/inbox-session";
import type { Bindings } from "../../env";
import { countFrames, receivedFrame } from "./frames";
import { type SocketOwner, type SocketSession, sessionOfUpgrade } from "./owner";

/** What `@novu/js` sends every 25 s to keep a hibernating socket open, and the answer it ignores. */
const PING = "ping";
const PONG = "pong";

/**
 * One subscriber's open Inbox sockets (named environment + subscriber; see client.ts). Sockets are
 * accepted with the Hibernation API: an idle object is evicted from memory while its sockets stay
 * open, and the client's pings are answered by the runtime without waking it. A write wakes it to
 * push frames; with no socket open it answers at once, before reading anything.
 *
 * The object keeps its subscriber's presence row (db/queries/inbox-presence.ts) equal to its open
 * sockets, so deliveries call only objects that have someone to push to.
 *
 * A socket lives no longer than the session token it was opened with, as REST does: each keeps the
 * token's `iat` and `exp`, every push first closes the sockets whose session no longer holds (expired,
 * the Inbox settings changed, the subscriber erased or created again), and an alarm closes each at
 * its expiry. Closed with 1008 (policy): the client's reconnect with the same token is refused.
 */
export class InboxSocket extends DurableObject<Bindings> {
  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  /** The upgrade, already authenticated by the Worker (novu/socket.ts). */
  override async fetch(request: Request): Promise<Response> {
    const session = sessionOfUpgrade(request.headers);
    if (!session) return new Response("The Worker names the socket's owner and session.", { status: 400 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    // Present before accepted: a notification stored from here on finds this object and waits for the socket.
    const recorded = await this.recordPresence(
      session,
      () => this.openSockets().length + 1,
      () => {
        server.serializeAttachment(session);
        this.ctx.acceptWebSocket(server);
        return this.scheduleExpiry();
      },
    );
    // Unrecorded, the socket would never be pushed to: the client reconnects instead.
    if (!recorded) return new Response("The Inbox socket is unavailable; retry.", { status: 503 });
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * New notifications stored for this subscriber: each socket gets those of its session's context,
   * then that context's counts after them; a socket of another context gets nothing. Returns the sockets reached.
   */
  async received(environmentId: string, subscriberId: string, rows: InAppRow[]): Promise<number> {
    if (this.openSockets().length === 0) return this.forgetStalePresence(environmentId, subscriberId);
    const contexts = new Set(rows.map((row) => row.context ?? ""));
    // The session checks and the counts at once: a push waits for one D1 round trip, not two.
    const [live, counts] = await Promise.all([
      this.endStaleSessions(environmentId, subscriberId),
      this.countsOf(environmentId, subscriberId, contexts),
    ]);
    let reached = 0;
    for (const [context, sockets] of byContext(live)) {
      const theirs = rows.filter((row) => (row.context ?? "") === context);
      const after = counts.get(context);
      if (theirs.length && after) reached += this.broadcast(sockets, [...theirs.map(receivedFrame), ...countFrames(after)]);
    }
    return reached;
  }

  /**
   * Notifications read, seen, archived or removed in `context` (any, when undefined): the sockets of
   * that context get its counts after the change. Returns the sockets reached.
   */
  async changed(environmentId: string, subscriberId: string, context?: string): Promise<number> {
    if (this.openSockets().length === 0) return this.forgetStalePresence(environmentId, subscriberId);
    const sessions = this.openSockets().map((ws) => (ws.deserializeAttachment() as SocketSession | null)?.context ?? "");
    const contexts = new Set(context === undefined ? sessions : [context]);
    const [live, counts] = await Promise.all([
      this.endStaleSessions(environmentId, subscriberId),
      this.countsOf(environmentId, subscriberId, contexts),
    ]);
    let reached = 0;
    for (const [key, sockets] of byContext(live)) {
      const after = counts.get(key);
      if (after) reached += this.broadcast(sockets, countFrames(after));
    }
    return reached;
  }

  /** The environment's Inbox settings changed: closes the sockets whose session ended with it. Returns the sockets closed. */
  async revalidate(environmentId: string, subscriberId: string): Promise<number> {
    const open = this.openSockets().length;
    if (open === 0) return 0;
    return open - (await this.endStaleSessions(environmentId, subscriberId)).length;
  }

  /** The subscriber was erased: every socket is closed (1008, policy) and none is let in again by the Worker. */
  async closeAll(reason = "subscriber deleted"): Promise<number> {
    const sockets = this.ctx.getWebSockets();
    for (const ws of sockets) end(ws, reason);
    return sockets.length;
  }

  /** The earliest session expiry: its sockets are closed, and the next expiry is scheduled. */
  override async alarm(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    for (const ws of this.openSockets()) {
      const session = ws.deserializeAttachment() as SocketSession | null;
      if (!session || session.expiresAt <= now) end(ws, "session expired");
    }
    await this.scheduleExpiry();
  }

  override async webSocketMessage(): Promise<void> {
    // The Inbox sends nothing but pings (answered without waking this object).
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      // Completes the closing handshake; codes a peer may not send (1005, 1006) get a plain close.
      if (code === 1005 || code === 1006) ws.close();
      else ws.close(code, reason);
    } catch {
      // Already closed.
    }
    await this.socketGone(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.socketGone(ws);
  }

  private async socketGone(ws: WebSocket): Promise<void> {
    const owner = ws.deserializeAttachment() as SocketOwner | null;
    if (owner) {
      await this.recordPresence(
        owner,
        () => this.openSockets().filter((s) => s !== ws).length,
        () => this.scheduleExpiry(ws),
      );
    }
  }

  /**
   * Closes the sockets whose session no longer holds, as REST would refuse their token now (one
   * indexed read), and answers the others: the only ones a push may reach.
   */
  private async endStaleSessions(environmentId: string, subscriberId: string): Promise<WebSocket[]> {
    const state = await inboxSessionState(unscopedDb(this.env), environmentId, subscriberId);
    const now = new Date();
    const live: WebSocket[] = [];
    for (const ws of this.openSockets()) {
      const session = ws.deserializeAttachment() as SocketSession | null;
      if (session && sessionHolds(session, state, now)) live.push(ws);
      else end(ws, "session ended");
    }
    return live;
  }

  /** An alarm at the earliest expiry of the sockets still open (but `leaving`), or none. Never throws (see recordPresence). */
  private async scheduleExpiry(leaving?: WebSocket): Promise<void> {
    const expiries = this.openSockets()
      .filter((ws) => ws !== leaving)
      .map((ws) => (ws.deserializeAttachment() as SocketSession | null)?.expiresAt ?? 0);
    try {
      if (expiries.length === 0) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(Math.min(...expiries) * 1000);
    } catch (error) {
      // Unscheduled, an expired socket still receives nothing: every push checks its session first.
      console.log(JSON.stringify({ level: "warn", event: "inbox_expiry_unscheduled", error: String(error) }));
    }
  }

  /** Sockets still open: one whose close is being handled is listed until its handler ends. */
  private openSockets(): WebSocket[] {
    return this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  /** A presence row with no socket behind it (the object was reset without a close): removed, and no one reached. */
  private async forgetStalePresence(environmentId: string, subscriberId: string): Promise<number> {
    await this.recordPresence({ environmentId, subscriberId }, () => this.openSockets().length);
    return 0;
  }

  /**
   * Writes the socket count to D1 with no other event of this object in between (connects and
   * closes interleave otherwise, and an older count could land last); `then` starts in the same turn,
   * only once the count is written, and must not throw.
   */
  private recordPresence(owner: SocketOwner, count: () => number, then?: () => Promise<void>): Promise<boolean> {
    // Never throws: a throw inside blockConcurrencyWhile resets the object and drops every socket.
    return this.ctx.blockConcurrencyWhile(async () => {
      try {
        await setPresence(unscopedDb(this.env), owner.environmentId, owner.subscriberId, count());
      } catch (error) {
        console.log(JSON.stringify({ level: "warn", event: "inbox_presence_failed", ...owner, error: String(error) }));
        return false;
      }
      await then?.();
      return true;
    });
  }

  /** The badges of each context as its Inbox session counts them: a snoozed notification is out of sight until it wakes. */
  private async countsOf(environmentId: string, subscriberId: string, contexts: ReadonlySet<string>): Promise<Map<string, InAppCounts>> {
    const now = new Date();
    const db = unscopedDb(this.env);
    const logs = unscopedLogs(this.env);
    const counted = await Promise.all(
      [...contexts].map(
        async (context) =>
          [
            context,
            await inboxFeed(db, logs, environmentId, subscriberId, { context }).counts({ snoozed: { value: false, now } }),
          ] as const,
      ),
    );
    return new Map(counted);
  }

  private broadcast(sockets: WebSocket[], frames: string[]): number {
    let reached = 0;
    for (const ws of sockets) {
      try {
        for (const frame of frames) ws.send(frame);
        reached++;
      } catch {
        // A socket closing as we write: its close event cleans it up.
      }
    }
    return reached;
  }
}

/** Open sockets by their session's context key ('' for sessions of no context). */
const byContext = (sockets: WebSocket[]) =>
  Map.groupBy(sockets, (ws) => (ws.deserializeAttachment() as SocketSession | null)?.context ?? "");

/** Closes a socket with 1008 (policy): the client's reconnect with the same token is refused by the Worker. */
function end(ws: WebSocket, reason: string): void {
  try {
    ws.close(1008, reason);
  } catch {
    // Already closing: nothing left to end.
  }
}
