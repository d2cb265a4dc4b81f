import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import type { InAppRow } from "../../src/db/queries/in-app";
import { setPresence } from "../../src/db/queries/inbox-presence";
import { storeInApp } from "../../src/delivery/send/in-app-store";
import type { StepScope } from "../../src/delivery/phases/scope";
import { inboxSockets } from "../../src/durable-objects/inbox-socket/client";
import type { InboxSocket } from "../../src/durable-objects/inbox-socket/inbox-socket";
import { issueSessionToken } from "../../src/novu/inbox/session-token";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { triggerDelivered } from "../held-triggers";
import { api } from "../request";
import { connect, type Frame, upgrade } from "./socket-client";
import { loggedFeed } from "../log";

const IN_APP_STEP = {
  id: "bell",
  type: "in_app",
  template: {
    subject: "Order {{ payload.orderId }}",
    body: "Order {{ payload.orderId }} shipped",
    avatar: "https://cdn.example.com/a.png",
    primaryAction: { label: "Track", redirect: { url: "https://shop.example.com/o/{{ payload.orderId }}", target: "_blank" } },
    redirect: { url: "https://shop.example.com/orders" },
    data: { orderId: "{{ payload.orderId }}" },
  },
};

const session = (environmentId: string, subscriberId: string, now?: Date) =>
  issueSessionToken(env.ENCRYPTION_KEY, { environmentId, subscriberId }, now);

/** An environment with an in_app workflow, a subscriber and an Inbox session token for them. */
async function setup() {
  const environment = await createEnvironment();
  const workflow = await createWorkflow(environment.key, { steps: [IN_APP_STEP], tags: ["orders"] });
  const subscriberId = unique("sub");
  expect((await api(environment.key, "POST", "/sub", { subscriberId })).status).toBeLessThan(300);
  // A token counts only in an environment whose Inbox settings exist (reading them creates them), as a session's does.
  expect((await api(environment.key, "GET", "/v1/in-app/settings")).status).toBe(200);
  return { ...environment, workflow: workflow.key, subscriberId, token: await session(environment.id, subscriberId) };
}

describe("GET /novu/socket", () => {
  it.each([
    ["no token", ""],
    ["a malformed token", "?token=nope"],
    ["a forged signature", "?token=eyJlbnYiOiJlbnZfeCIsInN1YiI6InMiLCJleHAiOjk5OTk5OTk5OTl9.AAAA"],
  ])("refuses %s with 401", async (_name, query) => {
    const res = await upgrade(query);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("unauthorized");
  });

  it("refuses an expired token, and one for a subscriber the environment does not have", async () => {
    const s = await setup();
    const expired = await session(s.id, s.subscriberId, new Date(Date.now() - 25 * 60 * 60 * 1000));
    expect((await upgrade(`?token=${expired}`)).status).toBe(401);
    const stranger = await session(s.id, unique("nobody"));
    expect((await upgrade(`?token=${stranger}`)).status).toBe(401);
  });

  it("answers 426 to a plain GET", async () => {
    const { token } = await setup();
    const res = await SELF.fetch(`http://clarion.test/novu/socket?token=${token}`);
    expect(res.status).toBe(426);
  });

  it("answers the client's ping with pong (also on the trailing-slash path)", async () => {
    const { token } = await setup();
    const socket = await connect(token, "/novu/socket/");
    socket.ws.send("ping");
    expect(await socket.next()).toBe("pong");
    socket.ws.close();
  });

  it("pushes a triggered notification in Novu's raw shape, then the exact counts", async () => {
    const s = await setup();
    const socket = await connect(s.token);
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { orderId: "A-1" } });
    const received = (await socket.next()) as Frame;
    expect(received.event).toBe("notification_received");
    expect(received.data.message).toMatchObject({
      _id: expect.stringMatching(/^msg_/),
      transactionId: expect.any(String),
      subject: "Order A-1",
      content: "Order A-1 shipped",
      avatar: "https://cdn.example.com/a.png",
      read: false,
      seen: false,
      archived: false,
      channel: "in_app",
      subscriber: { subscriberId: s.subscriberId },
      tags: ["orders"],
      data: { orderId: "A-1" },
      workflow: { identifier: s.workflow, severity: "none" },
      severity: "none",
      cta: {
        data: { url: "https://shop.example.com/orders" },
        action: { buttons: [{ type: "primary", content: "Track", url: "https://shop.example.com/o/A-1", target: "_blank" }] },
      },
    });
    expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 1 } });
    expect(await socket.next()).toEqual({
      event: "unread_count_changed",
      data: { counts: { total: 1, severity: { high: 0, medium: 0, low: 0, none: 1 } } },
    });
    socket.ws.close();
  });

  it("pushes the counts after a PATCH read and a mark-all archive from the server API", async () => {
    const s = await setup();
    const socket = await connect(s.token);
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { orderId: "B-1" } });
    const message = ((await socket.next()) as Frame).data.message as { _id: string };
    await socket.next();
    await socket.next();

    const read = await api(s.key, "PATCH", `/v1/subscribers/${s.subscriberId}/notifications/${message._id}`, { read: true });
    expect(read.status).toBe(200);
    expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 0 } });
    expect(await socket.next()).toMatchObject({ event: "unread_count_changed", data: { counts: { total: 0 } } });

    await api(s.key, "PATCH", `/v1/subscribers/${s.subscriberId}/notifications/${message._id}`, { read: false });
    expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 0 } });
    expect(await socket.next()).toMatchObject({ data: { counts: { total: 1 } } });

    const all = await api(s.key, "POST", `/v1/subscribers/${s.subscriberId}/notifications/mark-all`, { archived: true });
    expect(all.status).toBe(200);
    expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 0 } });
    expect(await socket.next()).toMatchObject({ data: { counts: { total: 0 } } });
    socket.ws.close();
  });

  it("pushes the counts after the browser reads and deletes through the Inbox routes", async () => {
    const s = await setup();
    const socket = await connect(s.token);
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { orderId: "D-1" } });
    const message = ((await socket.next()) as Frame).data.message as { _id: string };
    await socket.next();
    await socket.next();
    const inbox = (method: string, path: string) =>
      SELF.fetch(`http://clarion.test/novu/v1/inbox/notifications/${message._id}/${path}`, {
        method,
        headers: { authorization: `Bearer ${s.token}` },
      });

    expect((await inbox("PATCH", "read")).status).toBe(200);
    expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 0 } });
    expect(await socket.next()).toMatchObject({ data: { counts: { total: 0 } } });
    expect((await inbox("PATCH", "unread")).status).toBe(200);
    await socket.next();
    expect(await socket.next()).toMatchObject({ data: { counts: { total: 1 } } });
    expect((await inbox("DELETE", "delete")).status).toBeLessThan(300);
    await socket.next();
    expect(await socket.next()).toMatchObject({ data: { counts: { total: 0 } } });
    socket.ws.close();
  });

  it("pushes to every open socket of the subscriber and to no one else's", async () => {
    const s = await setup();
    const strangerId = unique("sub");
    await api(s.key, "POST", "/sub", { subscriberId: strangerId });
    const other = await session(s.id, strangerId);
    const [tab1, tab2, stranger] = await Promise.all([connect(s.token), connect(s.token), connect(other)]);
    await triggerDelivered(s.key, { workflow: s.workflow, to: s.subscriberId, payload: { orderId: "C-1" } });
    for (const tab of [tab1, tab2]) expect(((await tab.next()) as Frame).event).toBe("notification_received");
    stranger.ws.send("ping");
    // The stranger's first frame is its pong: nothing of the other subscriber's arrived before it.
    expect(await stranger.next()).toBe("pong");
    for (const socket of [tab1, tab2, stranger]) socket.ws.close();
  });

  it("stores a trigger to many subscribers in one go and pushes each of them their own notification", async () => {
    const s = await setup();
    const ids = Array.from({ length: 12 }, () => unique("many"));
    await Promise.all(ids.map((subscriberId) => api(s.key, "POST", "/sub", { subscriberId })));
    const sockets = await Promise.all(ids.map(async (subscriberId) => connect(await session(s.id, subscriberId))));
    await triggerDelivered(s.key, { workflow: s.workflow, to: ids, payload: { orderId: "M-1" } });
    const received = await Promise.all(
      sockets.map(async (socket) => ((await socket.next()) as Frame).data.message as { subscriber: { subscriberId: string } }),
    );
    expect(received.map((m) => m.subscriber.subscriberId)).toEqual(ids);
    for (const socket of sockets) {
      expect(await socket.next()).toEqual({ event: "unseen_count_changed", data: { unseenCount: 1 } });
      socket.ws.close();
    }
  });

  it("closes the sockets of an erased subscriber and lets the token in no more", async () => {
    const s = await setup();
    const socket = await connect(s.token);
    expect((await api(s.key, "DELETE", `/v1/subscribers/${s.subscriberId}`)).status).toBe(200);
    const closed = await socket.closed;
    expect(closed.code).toBe(1008);
    expect((await upgrade(`?token=${s.token}`)).status).toBe(401);
  });
});

describe("inboxSockets", () => {
  it("logs a failed push and reports no socket reached instead of failing the write", async () => {
    const broken = {
      idFromName: (name: string) => env.INBOX_SOCKETS.idFromName(name),
      get: () => ({
        received: () => Promise.reject(new Error("object unavailable")),
        changed: () => Promise.reject(new Error("object unavailable")),
      }),
    } as unknown as DurableObjectNamespace<InboxSocket>;
    const row = { id: "msg_1", subscriberId: "s" } as InAppRow;
    await expect(inboxSockets(broken).received("env_1", [row])).resolves.toBe(0);
    await expect(inboxSockets(broken).changed("env_1", "s")).resolves.toBe(0);
  });
});

/** The namespace, with the names of the objects asked for: a delivery's object calls, counted at their source. */
function countingSockets() {
  const named: string[] = [];
  const namespace = {
    idFromName: (name: string) => {
      named.push(name);
      return env.INBOX_SOCKETS.idFromName(name);
    },
    get: (id: DurableObjectId) => env.INBOX_SOCKETS.get(id),
  } as unknown as DurableObjectNamespace<InboxSocket>;
  return { named, env: { ...env, INBOX_SOCKETS: namespace } };
}

/** What storeInApp reads of a delivery chunk's scope. */
const chunkScope = (environmentId: string, workflowKey: string) =>
  ({
    db: createDb(env.DB),
    job: { environmentId, transactionId: unique("tx") },
    trigger: { workflowKey },
    step: { id: IN_APP_STEP.id },
    workflowTags: [],
  }) as unknown as StepScope;

const presence = (environmentId: string, subscriberId: string) =>
  env.DB.prepare("SELECT sockets FROM inbox_presence WHERE environment_id = ? AND subscriber_id = ?")
    .bind(environmentId, subscriberId)
    .first<{ sockets: number }>();

/** Lets the subscriber's object finish the events already sent to it (a close's presence write). */
const settle = (environmentId: string, subscriberId: string) =>
  runInDurableObject(env.INBOX_SOCKETS.get(env.INBOX_SOCKETS.idFromName(`${environmentId}:${subscriberId}`)), () => undefined);

describe("Inbox presence", () => {
  it("stores every subscriber's notification but calls only the objects of subscribers with an open socket", async () => {
    const s = await setup();
    const away = Array.from({ length: 3 }, () => unique("away"));
    const socket = await connect(s.token);
    const counting = countingSockets();
    // Ids of messages D1 recorded before the feed left it, sent again: the send stores their notifications, in the log.
    const sends = [s.subscriberId, ...away].map((subscriberId) => ({
      messageId: unique("msg"),
      subscriberId,
      content: { body: `Hello ${subscriberId}` },
      isNew: false,
    }));

    const results = await storeInApp(counting.env, chunkScope(s.id, s.workflow), sends);

    expect(results.map((r) => r.outcome.ok)).toEqual([true, true, true, true]);
    const stored = await Promise.all([s.subscriberId, ...away].map((subscriberId) => loggedFeed(s.id, subscriberId)));
    expect(stored.map((rows) => rows.length)).toEqual([1, 1, 1, 1]);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM in_app_notifications WHERE environment_id = ?")
      .bind(s.id)
      .first<{ n: number }>();
    expect(inD1?.n).toBe(0);
    expect(counting.named).toEqual([`${s.id}:${s.subscriberId}`]);
    expect(((await socket.next()) as Frame).data.message).toMatchObject({ _id: sends[0]!.messageId, content: `Hello ${s.subscriberId}` });
    socket.ws.close();
  });

  it("counts a subscriber's open sockets and removes the record when the last one closes", async () => {
    const s = await setup();
    const [tab1, tab2] = [await connect(s.token), await connect(s.token)];
    expect(await presence(s.id, s.subscriberId)).toEqual({ sockets: 2 });

    tab1.ws.close(1000, "tab closed");
    await tab1.closed;
    await settle(s.id, s.subscriberId);
    expect(await presence(s.id, s.subscriberId)).toEqual({ sockets: 1 });

    tab2.ws.close(1000, "tab closed");
    await tab2.closed;
    await settle(s.id, s.subscriberId);
    expect(await presence(s.id, s.subscriberId)).toBeNull();
  });

  it("removes a presence record with no socket behind it when a delivery finds the object empty", async () => {
    const s = await setup();
    // What an object reset without a close leaves behind.
    await setPresence(createDb(env.DB), s.id, s.subscriberId, 1);
    const counting = countingSockets();
    const send = { messageId: unique("msg"), subscriberId: s.subscriberId, content: { body: "Hello" }, isNew: true };

    await storeInApp(counting.env, chunkScope(s.id, s.workflow), [send]);

    expect(counting.named).toEqual([`${s.id}:${s.subscriberId}`]);
    expect(await presence(s.id, s.subscriberId)).toBeNull();
  });

  it("erasure removes the subscriber's presence", async () => {
    const s = await setup();
    await setPresence(createDb(env.DB), s.id, s.subscriberId, 1);
    expect((await api(s.key, "DELETE", `/v1/subscribers/${s.subscriberId}`)).status).toBe(200);
    expect(await presence(s.id, s.subscriberId)).toBeNull();
  });
});
