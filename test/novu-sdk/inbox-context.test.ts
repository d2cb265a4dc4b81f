// `@novu/js` 3.19.2, unmodified, with Novu's `context` and `contextHash`: one subscriber's sessions
// in two tenants see two feeds with exact counts, and realtime frames reach only the socket of the
// notification's context.
import { createHmac } from "node:crypto";
import { Novu } from "@novu/js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { base, clarion, eventually, novuBase, unique, workflow } from "./clarion";

interface InboxSettings {
  applicationIdentifier: string;
  hmacSecret: string;
}

const socketUrl = `${base.replace(/^http/, "ws")}/novu/socket`;
const clients: Novu[] = [];
let settings: InboxSettings;
let workflowKey: string;

beforeAll(async () => {
  settings = (await clarion<InboxSettings>("GET", "/v1/in-app/settings")).body;
  workflowKey = await workflow([{ id: "bell", type: "in_app", template: { subject: "{{ payload.n }}", body: "Hello {{ payload.n }}" } }]);
});

afterAll(async () => {
  await Promise.all(clients.map((novu) => novu.socket.disconnect?.()));
});

/** A backend's hashes: the subscriberId's, and the context's canonical JSON's (one string key: JSON.stringify is canonical). */
const hmac = (value: string) => createHmac("sha256", settings.hmacSecret).update(value).digest("hex");

/** A page's Inbox client for `subscriberId` in `tenant` (none: a session of no context). */
function inbox(subscriberId: string, tenant?: string) {
  const context = tenant === undefined ? undefined : { tenant };
  const novu = new Novu({
    applicationIdentifier: settings.applicationIdentifier,
    subscriber: { subscriberId },
    subscriberHash: hmac(subscriberId),
    ...(context ? { context, contextHash: hmac(JSON.stringify(context)) } : {}),
    apiUrl: novuBase,
    socketUrl,
    // Each list asks Clarion: the test reads the feed as it fills.
    useCache: false,
    socketOptions: { socketType: "cloud", WebSocket },
  });
  clients.push(novu);
  return novu;
}

async function tenant() {
  const id = unique("t");
  expect((await clarion("POST", "/v1/tenants", { id, name: id })).status).toBe(201);
  return id;
}

const send = async (subscriberId: string, n: string, tenantId?: string) =>
  expect(
    (
      await clarion("POST", "/v1/trigger", {
        workflow: workflowKey,
        to: subscriberId,
        payload: { n },
        ...(tenantId ? { tenant: tenantId } : {}),
      })
    ).status,
  ).toBe(202);

const subjects = async (novu: Novu) => {
  const { data, error } = await novu.notifications.list({ limit: 50 });
  if (error) throw error;
  return data!.notifications.map((n) => n.subject).sort();
};

describe("@novu/js 3.19.2 with a context", () => {
  it("gives two sessions of one subscriber in two tenants two feeds with exact counts", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const subscriberId = unique("sub");
    // The subscriber exists before the triggers: a trigger to an unknown subscriberId is skipped
    // (`subscriber_not_found`), and the sessions below would otherwise race the delivery to create it.
    expect((await clarion("POST", "/sub", { subscriberId })).status).toBe(201);
    await send(subscriberId, "a1", a);
    await send(subscriberId, "a2", a);
    await send(subscriberId, "b1", b);
    await send(subscriberId, "none");
    const inA = inbox(subscriberId, a);
    const inB = inbox(subscriberId, b);
    const plain = inbox(subscriberId);
    // All four stored (whichever feed each lands in): the expectations below then say which went where.
    const total = async () => (await subjects(plain)).length + (await subjects(inA)).length + (await subjects(inB)).length;
    await eventually("every notification stored", async () => (await total()) >= 4, 60_000);
    expect(await subjects(inA)).toEqual(["a1", "a2"]);
    expect(await subjects(inB)).toEqual(["b1"]);
    expect(await subjects(plain)).toEqual(["none"]);
    const unread = async (novu: Novu) => (await novu.notifications.count({ read: false })).data?.count;
    expect([await unread(inA), await unread(inB), await unread(plain)]).toEqual([2, 1, 1]);

    // Reading all in a's Inbox leaves b's and the plain one's as they were.
    await inA.notifications.readAll();
    expect([await unread(inA), await unread(inB), await unread(plain)]).toEqual([0, 1, 1]);
  });

  it("delivers realtime frames only to the socket of the notification's context", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const subscriberId = unique("sub");
    const inA = inbox(subscriberId, a);
    const inB = inbox(subscriberId, b);
    const got = { a: [] as string[], b: [] as string[] };
    const connected = (novu: Novu) =>
      new Promise<void>((resolve, reject) =>
        novu.on("socket.connect.resolved", ({ error }) => (error ? reject(new Error(String(error))) : resolve())),
      );
    const ready = [connected(inA), connected(inB)];
    inA.on("notifications.notification_received", ({ result }) => got.a.push(String(result.subject)));
    inB.on("notifications.notification_received", ({ result }) => got.b.push(String(result.subject)));
    await Promise.all(ready);

    await send(subscriberId, "for-b", b);
    await eventually("b's frame", async () => got.b.length > 0);
    await send(subscriberId, "for-a", a);
    await eventually("a's frame", async () => got.a.length > 0);
    await send(subscriberId, "for-none");
    // The plain notification is stored (a new session of no context lists it) and reached neither socket.
    const plain = inbox(subscriberId);
    await eventually("the plain notification stored", async () => (await subjects(plain)).length === 1);
    expect(got).toEqual({ a: ["for-a"], b: ["for-b"] });
  });
});
