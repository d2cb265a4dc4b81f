// Novu's browser SDK (`@novu/js`, unmodified) on Clarion's Inbox socket: the props of
// docs/guides/in-app-inbox.md, the cloud (partysocket) socket type, frames pushed by the
// subscriber's Durable Object on every write.
import { createHmac } from "node:crypto";
import { Novu } from "@novu/js";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { base, clarion, novuBase, unique, workflow } from "./clarion";

interface InboxSettings {
  applicationIdentifier: string;
  hmacSecret: string;
}

const socketUrl = `${base.replace(/^http/, "ws")}/novu/socket`;
const clients: Novu[] = [];

/** An Inbox client as a browser page builds it, for a new subscriber; `socketOptions` go to its partysocket. */
async function inbox(subscriberId = unique("sub"), socketOptions: Record<string, unknown> = {}) {
  const { body } = await clarion<InboxSettings>("GET", "/v1/in-app/settings");
  const novu = new Novu({
    applicationIdentifier: body.applicationIdentifier,
    subscriber: { subscriberId },
    subscriberHash: createHmac("sha256", body.hmacSecret).update(subscriberId).digest("hex"),
    apiUrl: novuBase,
    socketUrl,
    // Node 20 has no global WebSocket; a browser passes only socketType.
    socketOptions: { socketType: "cloud", WebSocket, ...socketOptions },
  });
  clients.push(novu);
  const connected = new Promise<void>((resolve, reject) =>
    novu.on("socket.connect.resolved", ({ error }) => (error ? reject(new Error(String(error))) : resolve())),
  );
  return { novu, subscriberId, connected };
}

/** The next event of this name that `accept` takes, as the SDK emits it. */
function nextEvent<T>(
  novu: Novu,
  name: "notifications.notification_received" | "notifications.unread_count_changed" | "notifications.unseen_count_changed",
  accept: (result: T) => boolean = () => true,
) {
  return new Promise<{ result: T; at: number }>((resolve) => {
    const off = novu.on(name, ({ result }: { result: unknown }) => {
      if (!accept(result as T)) return;
      off();
      resolve({ result: result as T, at: Date.now() });
    });
  });
}

afterAll(async () => {
  await Promise.all(clients.map((novu) => novu.socket.disconnect?.()));
});

describe("@novu/js 3.19.2 realtime on Clarion", () => {
  const steps = [
    { id: "bell", type: "in_app", template: { subject: "Order {{ payload.orderId }}", body: "Order {{ payload.orderId }} shipped" } },
  ];

  it("delivers a triggered workflow as notifications.notification_received within 2 s of the 202", async () => {
    const workflowKey = await workflow(steps);
    const { novu, subscriberId, connected } = await inbox();
    const received = nextEvent<{ id: string; subject?: string; body: string; isRead: boolean }>(
      novu,
      "notifications.notification_received",
    );
    await connected;
    const res = await clarion<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: workflowKey,
      to: subscriberId,
      payload: { orderId: "R-1" },
    });
    expect(res.status).toBe(202);
    const accepted = Date.now();
    const { result, at } = await received;
    expect(result).toMatchObject({ subject: "Order R-1", body: "Order R-1 shipped", isRead: false });
    expect(result.id).toMatch(/^msg_/);
    expect(at - accepted).toBeLessThan(2_000);
  });

  it("pushes unread_count_changed with 0 when the notification is read()", async () => {
    const workflowKey = await workflow(steps);
    const { novu, subscriberId, connected } = await inbox();
    const received = nextEvent<{ id: string; read: () => Promise<unknown> }>(novu, "notifications.notification_received");
    await connected;
    await clarion("POST", "/v1/trigger", { workflow: workflowKey, to: subscriberId, payload: { orderId: "R-2" } });
    const { result: notification } = await received;
    const unread = nextEvent<{ total: number }>(novu, "notifications.unread_count_changed", (counts) => counts.total === 0);
    const unseen = nextEvent<number>(novu, "notifications.unseen_count_changed", (count) => count === 0);
    await notification.read();
    expect((await unread).result.total).toBe(0);
    expect((await unseen).result).toBe(0);
  });

  it("closes the socket when the in-app secret is rotated: its reconnect is refused, and a later notification reaches only a new session", async () => {
    const workflowKey = await workflow(steps);
    // One reconnect, then the orphaned partysocket stops (a page would reload and start a new session).
    const old = await inbox(undefined, { maxRetries: 1 });
    const stale: unknown[] = [];
    // Listening is what opens the socket.
    old.novu.on("notifications.notification_received", ({ result }) => stale.push(result));
    await old.connected;
    // A token's `iat` counts seconds, and one issued in the second of the rotation still holds.
    await new Promise((r) => setTimeout(r, 1_010 - (Date.now() % 1_000)));
    const disconnected = new Promise((resolve) => old.novu.on("socket.disconnect.resolved", resolve));
    const reconnectRefused = new Promise((resolve) => old.novu.on("socket.connect.resolved", ({ error }) => error && resolve(error)));

    expect((await clarion("POST", "/v1/in-app/settings/rotate-secret")).status).toBe(200);
    await disconnected;
    await reconnectRefused;

    const fresh = await inbox(old.subscriberId);
    const received = nextEvent<{ subject?: string }>(fresh.novu, "notifications.notification_received");
    await fresh.connected;
    await clarion("POST", "/v1/trigger", { workflow: workflowKey, to: old.subscriberId, payload: { orderId: "R-3" } });
    expect((await received).result.subject).toBe("Order R-3");
    expect(stale).toEqual([]);
  });
});
