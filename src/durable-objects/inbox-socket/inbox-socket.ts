import { DurableObject } from "cloudflare:workers";
import { createDb } from "../../db/client";
import { inAppFeed, type InAppRow } from "../../db/queries/in-app";
import type { Bindings } from "../../env";
import { countFrames, receivedFrame } from "./frames";

/** What `@novu/js` sends every 25 s to keep a hibernating socket open, and the answer it ignores. */
const PING = "ping";
const PONG = "pong";

/**
 * One subscriber's open Inbox sockets (named environment + subscriber; see client.ts). Sockets are
 * accepted with the Hibernation API: an idle object is evicted from memory while its sockets stay
 * open, and the client's pings are answered by the runtime without waking it. A write wakes it to
 * push frames; with no socket open it answers at once, before reading anything.
 */
export class InboxSocket extends DurableObject<Bindings> {
  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  /** The upgrade, already authenticated by the Worker (features/novu/socket.ts). */
  override async fetch(_request: Request): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** New notifications stored for this subscriber: each one, then the counts after them. Returns the sockets reached. */
  async received(environmentId: string, subscriberId: string, rows: InAppRow[]): Promise<number> {
    if (this.ctx.getWebSockets().length === 0) return 0;
    return this.broadcast([...rows.map(receivedFrame), ...countFrames(await this.counts(environmentId, subscriberId))]);
  }

  /** Notifications read, seen, archived or removed: the counts after the change. Returns the sockets reached. */
  async changed(environmentId: string, subscriberId: string): Promise<number> {
    if (this.ctx.getWebSockets().length === 0) return 0;
    return this.broadcast(countFrames(await this.counts(environmentId, subscriberId)));
  }

  /** The subscriber was erased: every socket is closed (1008, policy) and none is let in again by the Worker. */
  async closeAll(reason = "subscriber deleted"): Promise<number> {
    const sockets = this.ctx.getWebSockets();
    for (const ws of sockets) {
      try {
        ws.close(1008, reason);
      } catch {
        // Already closing: nothing left to end.
      }
    }
    return sockets.length;
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
  }

  /** The badges as the Inbox session counts them: a snoozed notification is out of sight until it wakes. */
  private counts(environmentId: string, subscriberId: string) {
    return inAppFeed(createDb(this.env.DB), environmentId, subscriberId).counts({ snoozed: { value: false, now: new Date() } });
  }

  private broadcast(frames: string[]): number {
    let reached = 0;
    for (const ws of this.ctx.getWebSockets()) {
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
