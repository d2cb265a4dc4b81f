// `@novu/js` 3.19.2 (what `@novu/react`'s <Inbox/> runs on), unmodified, against a local Clarion:
// `apiUrl: <clarion>/novu`, the environment's applicationIdentifier and a subscriberHash computed
// as a customer's backend would.
import { createHmac } from "node:crypto";
import { type Notification, Novu, type NovuError } from "@novu/js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clarion, eventually, novuBase, unique, workflow } from "./clarion";

interface Settings {
  applicationIdentifier: string;
  hmacSecret: string;
  hmacRequired: boolean;
}

let settings: Settings;
const hash = (subscriberId: string) => createHmac("sha256", settings.hmacSecret).update(subscriberId).digest("hex");

/** An Inbox client for one subscriber, as `<Inbox/>` builds it from its props. No cache: each read asks Clarion. */
const inboxFor = (subscriberId: string, subscriberHash = hash(subscriberId)) =>
  new Novu({
    applicationIdentifier: settings.applicationIdentifier,
    subscriber: { subscriberId, firstName: "Ada" },
    subscriberHash,
    apiUrl: novuBase,
    useCache: false,
  });

const IN_APP = { id: "bell", type: "in_app", template: { subject: "Order {{ payload.n }}", body: "Order {{ payload.n }} shipped" } };
const EMAIL = { id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } };

async function trigger(workflowKey: string, subscriberId: string, n: number) {
  const res = await clarion("POST", "/v1/trigger", { workflow: workflowKey, to: { subscriberId }, payload: { n } });
  expect(res.status).toBe(202);
}

/** The subscriber's notifications once there are `n` of them (the local queue batches for up to a second). */
const listed = (novu: Novu, n: number) =>
  eventually(`${n} notifications`, async () => {
    const { data, error } = await novu.notifications.list({ limit: 50 });
    if (error) throw error;
    return data && data.notifications.length >= n ? data.notifications : undefined;
  });

const statusOf = (error: NovuError | undefined) => (error?.originalError as { status?: number } | undefined)?.status;

let inAppWorkflow: string;

beforeAll(async () => {
  settings = (await clarion<Settings>("GET", "/v1/in-app/settings")).body;
  // The stack's environment is `development`, where hashes are optional: require them, as production does.
  expect((await clarion("PATCH", "/v1/in-app/settings", { hmacRequired: true })).status).toBe(200);
  inAppWorkflow = await workflow([IN_APP, EMAIL]);
});

afterAll(async () => {
  await clarion("PATCH", "/v1/in-app/settings", { hmacRequired: false });
});

describe("@novu/js session", () => {
  it("starts with a correct subscriberHash and creates the subscriber with its profile", async () => {
    const subscriberId = unique("inbox");
    const { data, error } = await inboxFor(subscriberId).notifications.list();
    expect(error).toBeUndefined();
    expect(data?.notifications).toEqual([]);
    expect((await clarion("GET", `/v1/subscribers/${subscriberId}`)).body).toMatchObject({ subscriberId, firstName: "Ada" });
  });

  it("never rewrites an existing subscriber's profile with what the page passes", async () => {
    const subscriberId = unique("inbox");
    const zurich = { email: "ada@example.com", phone: "+41791234567", locale: "de-CH", timezone: "Europe/Zurich", data: { plan: "pro" } };
    expect((await clarion("POST", "/v1/subscribers", { subscriberId, ...zurich })).status).toBe(201);
    const before = (await clarion("GET", `/v1/subscribers/${subscriberId}`)).body;
    // What a New York browser sends, or an end user who edits the page's props.
    const novu = new Novu({
      applicationIdentifier: settings.applicationIdentifier,
      subscriber: {
        subscriberId,
        email: "attacker@example.net",
        phone: "+19005550100",
        locale: "en-US",
        timezone: "America/New_York",
        data: { plan: "enterprise" },
      },
      subscriberHash: hash(subscriberId),
      apiUrl: novuBase,
      useCache: false,
    });
    const { error } = await novu.notifications.list();
    expect(error).toBeUndefined();
    expect((await clarion("GET", `/v1/subscribers/${subscriberId}`)).body).toEqual(before);
    const timeline = await clarion<{ data: { type: string }[] }>("GET", `/v1/subscribers/${subscriberId}/activity`);
    expect(timeline.body.data.map((e) => e.type)).toEqual(["created"]);
    const updates = await clarion<{ data: { data: { subscriberId?: string } }[] }>("GET", "/v1/events?type=subscriber.updated&limit=100");
    expect(updates.body.data.filter((e) => e.data.subscriberId === subscriberId)).toEqual([]);
  });

  it("fails with a wrong subscriberHash, and every call says so", async () => {
    const subscriberId = unique("inbox");
    const novu = inboxFor(subscriberId, "0".repeat(64));
    const { data, error } = await novu.notifications.list();
    expect(data).toBeUndefined();
    expect(statusOf(error)).toBe(401);
    expect((await clarion("GET", `/v1/subscribers/${subscriberId}`)).status).toBe(404);
  });
});

describe("@novu/js notifications", () => {
  it("lists a triggered workflow's message, and list and count agree", async () => {
    const subscriberId = unique("inbox");
    const novu = inboxFor(subscriberId);
    await trigger(inAppWorkflow, subscriberId, 1);
    const [notification] = await listed(novu, 1);
    expect(notification).toMatchObject({
      subject: "Order 1",
      body: "Order 1 shipped",
      isRead: false,
      isArchived: false,
      channelType: "in_app",
      to: { subscriberId },
      workflow: { id: inAppWorkflow, identifier: inAppWorkflow },
    });
    expect((await novu.notifications.count({ read: false, archived: false })).data).toMatchObject({ count: 1 });
    const counts = await novu.notifications.count({ filters: [{ read: false }, { archived: true }, { seen: false }] });
    expect(counts.data?.counts.map((c) => c.count)).toEqual([1, 0, 1]);
  });

  it("read() and archive() change it in Clarion's feed too", async () => {
    const subscriberId = unique("inbox");
    const novu = inboxFor(subscriberId);
    await trigger(inAppWorkflow, subscriberId, 2);
    const [notification] = (await listed(novu, 1)) as [Notification];
    const read = await notification.read();
    expect(read.data).toMatchObject({ id: notification.id, isRead: true, isSeen: true });
    const feed = await clarion<{ data: { id: string; read: boolean; archived: boolean }[] }>(
      "GET",
      `/v1/subscribers/${subscriberId}/notifications`,
    );
    expect(feed.body.data).toMatchObject([{ id: notification.id, read: true, archived: false }]);
    expect((await novu.notifications.count({ read: false })).data).toMatchObject({ count: 0 });
    // The notification is the in_app message: the browser's read is on its timeline.
    const message = await clarion<{ events: { status: string }[] }>("GET", `/v1/messages/${notification.id}`);
    expect(message.body.events.map((e) => e.status)).toEqual(expect.arrayContaining(["delivered", "seen", "read"]));
    expect((await novu.notifications.archive({ notificationId: notification.id })).data).toMatchObject({ isArchived: true });
    expect((await novu.notifications.list({ archived: false })).data?.notifications).toEqual([]);
    expect((await novu.notifications.list({ archived: true })).data?.notifications.map((n) => n.id)).toEqual([notification.id]);
  });

  it("readAll() and archiveAll() mark every notification", async () => {
    const subscriberId = unique("inbox");
    const novu = inboxFor(subscriberId);
    await trigger(inAppWorkflow, subscriberId, 3);
    await trigger(inAppWorkflow, subscriberId, 4);
    await listed(novu, 2);
    expect((await novu.notifications.readAll()).error).toBeUndefined();
    expect((await novu.notifications.count({ read: false })).data).toMatchObject({ count: 0 });
    expect((await novu.notifications.archiveAll()).error).toBeUndefined();
    expect((await novu.notifications.count({ archived: true })).data).toMatchObject({ count: 2 });
    expect((await novu.notifications.list({ archived: false })).data?.notifications).toEqual([]);
  });

  it("another subscriber's session cannot read, archive or delete the message", async () => {
    const owner = unique("inbox");
    const novu = inboxFor(owner);
    await trigger(inAppWorkflow, owner, 5);
    const [notification] = (await listed(novu, 1)) as [Notification];
    const stranger = inboxFor(unique("stranger"));
    expect((await stranger.notifications.list()).data?.notifications).toEqual([]);
    for (const attempt of [
      stranger.notifications.read({ notificationId: notification.id }),
      stranger.notifications.archive({ notificationId: notification.id }),
      stranger.notifications.delete({ notificationId: notification.id }),
    ]) {
      expect(statusOf((await attempt).error)).toBe(404);
    }
    expect((await novu.notifications.count({ read: false, archived: false })).data).toMatchObject({ count: 1 });
  });

  // Realtime (`notifications.notification_received` within 2 s of the trigger, `unread_count_changed`
  // after read()) is the realtime branch's: its tests join this file with `socketUrl` set.
});

describe("@novu/js preferences", () => {
  it("lists the workflow with its channels and changes one, in Clarion's preferences", async () => {
    const subscriberId = unique("inbox");
    const novu = inboxFor(subscriberId);
    const { data } = await novu.preferences.list();
    const global = data?.find((p) => p.level === "global");
    expect(global?.channels).toMatchObject({ email: true, in_app: true });
    const mine = data?.find((p) => p.workflow?.id === inAppWorkflow);
    expect(mine?.channels).toEqual({ email: true, in_app: true });
    const updated = await mine!.update({ channels: { email: false } });
    expect(updated.data?.channels).toEqual({ email: false, in_app: true });
    const stored = await clarion<{ workflows: Record<string, unknown> }>("GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(stored.body.workflows[inAppWorkflow]).toEqual({ email: false });
    const globalOff = await global!.update({ channels: { sms: false } });
    expect(globalOff.data?.channels).toMatchObject({ sms: false });
  });
});
