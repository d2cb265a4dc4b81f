import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { sign } from "hono/jwt";
import { subscriberHash } from "../../src/features/in-app/settings-repository";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import { issueSessionToken } from "../../src/novu/inbox/session-token";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { api } from "../request";
import { inbox, settingsOf, startSession, storeNotifications } from "./inbox-client";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { loggedFeed } from "../log";

interface Notification {
  id: string;
  isRead: boolean;
  isSeen: boolean;
  isArchived: boolean;
  isSnoozed: boolean;
  snoozedUntil: string | null;
  primaryAction?: { label: string; isCompleted: boolean };
  workflow: { id: string; name: string; critical: boolean };
  tags: string[];
}
type List = { data: Notification[]; hasMore: boolean; filter: Record<string, unknown> };
type Counts = { data: { count: number; filter: Record<string, unknown> }[] };
type Preference = { level: string; enabled: boolean; channels: Record<string, boolean>; workflow?: { id: string; critical: boolean } };

/** The development environment: one per test file (its slug is unique), shared by the tests that need it. */
let development: Promise<{ id: string; key: string }> | undefined;
const developmentEnvironment = () => (development ??= createEnvironment("development"));

/** Novu's error body, which `@novu/js` reads `message` from. */
function expectNovuError(res: { status: number; body: unknown }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, message: expect.any(String), error: expect.any(String), code });
}

const list = (token: string, query = "") => inbox<List>(token, "GET", `/notifications${query}`);
const count = async (token: string, filters: unknown[]) =>
  (await inbox<Counts>(token, "GET", `/notifications/count?filters=${encodeURIComponent(JSON.stringify(filters))}`)).body.data.map(
    (c) => c.count,
  );

describe("POST /novu/v1/inbox/session", () => {
  it("answers a token and the exact unread count for a correct subscriberHash", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId);
    await storeNotifications(id, subscriberId, [{}, {}, {}]);
    const settings = await settingsOf(key);
    const res = await inbox<{ data: Record<string, unknown> }>(null, "POST", "/session", {
      applicationIdentifier: settings.applicationIdentifier,
      subscriberHash: await subscriberHash(settings.hmacSecret, subscriberId),
      subscriber: { subscriberId },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      token: expect.any(String),
      totalUnreadCount: 3,
      unreadCount: { total: 3, severity: { high: 0, medium: 0, low: 0, none: 3 } },
      removeNovuBranding: false,
      isDevelopmentMode: false,
      maxSnoozeDurationHours: 2160,
      applicationIdentifier: settings.applicationIdentifier,
    });
  });

  it.each([
    ["missing", undefined],
    ["wrong", "0".repeat(64)],
    ["made with another subscriber's id", "other"],
  ])("refuses a %s subscriberHash with 401 in Novu's error body", async (_, hash) => {
    const { key } = await createEnvironment();
    const settings = await settingsOf(key);
    const subscriberHashSent = hash === "other" ? await subscriberHash(settings.hmacSecret, "someone-else") : hash;
    const res = await inbox(null, "POST", "/session", {
      applicationIdentifier: settings.applicationIdentifier,
      subscriberHash: subscriberHashSent,
      subscriber: { subscriberId: unique("sub") },
    });
    expectNovuError(res, 401, "subscriber_hash_invalid");
  });

  it("refuses a hash made with the secret before a rotation", async () => {
    const { key } = await createEnvironment();
    const before = await settingsOf(key);
    await api(key, "POST", "/v1/in-app/settings/rotate-secret");
    const subscriberId = unique("sub");
    const res = await inbox(null, "POST", "/session", {
      applicationIdentifier: before.applicationIdentifier,
      subscriberHash: await subscriberHash(before.hmacSecret, subscriberId),
      subscriber: { subscriberId },
    });
    expectNovuError(res, 401, "subscriber_hash_invalid");
  });

  it("needs no hash in the development environment", async () => {
    const { key } = await developmentEnvironment();
    const res = await inbox<{ data: { token: string } }>(null, "POST", "/session", {
      applicationIdentifier: (await settingsOf(key)).applicationIdentifier,
      subscriber: { subscriberId: unique("sub") },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.token).toEqual(expect.any(String));
  });

  it("answers 404 for an unknown applicationIdentifier", async () => {
    expectNovuError(
      await inbox(null, "POST", "/session", { applicationIdentifier: "nope", subscriber: { subscriberId: "a" } }),
      404,
      "application_not_found",
    );
  });

  it("creates the subscriber with the profile fields sent, and keeps them through a later session", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId, { firstName: "Ada", email: "ada@example.com", timezone: "Europe/Zurich" });
    const created = await api<Record<string, unknown>>(key, "GET", `/v1/subscribers/${subscriberId}`);
    expect(created.body).toMatchObject({ subscriberId, firstName: "Ada", email: "ada@example.com", timezone: "Europe/Zurich" });
    await startSession(key, subscriberId, { lastName: "Lovelace", timezone: "America/New_York" });
    const later = await api<Record<string, unknown>>(key, "GET", `/v1/subscribers/${subscriberId}`);
    expect(later.body).toMatchObject({ firstName: "Ada", lastName: null, timezone: "Europe/Zurich" });
  });

  it("takes the subscriberId alone, as older clients send it", async () => {
    const { key } = await developmentEnvironment();
    const res = await inbox(null, "POST", "/session", {
      applicationIdentifier: (await settingsOf(key)).applicationIdentifier,
      subscriberId: unique("s"),
    });
    expect(res.status).toBe(201);
  });
});

describe("the session token", () => {
  it.each([
    ["no token", null],
    ["a garbage token", "garbage"],
  ])("is required: %s is a 401", async (_, token) => {
    expectNovuError(await inbox(token, "GET", "/notifications"), 401, "unauthorized");
  });

  it("is refused once expired", async () => {
    const { id } = await createEnvironment();
    const old = await issueSessionToken(env.ENCRYPTION_KEY, { environmentId: id, subscriberId: "a" }, new Date(Date.now() - 25 * 3600_000));
    expectNovuError(await inbox(old, "GET", "/notifications"), 401, "unauthorized");
  });

  it("is refused when signed with another key", async () => {
    const { id } = await createEnvironment();
    const forged = await sign({ aud: "clarion-inbox", env: id, sub: "a", exp: Math.floor(Date.now() / 1000) + 60 }, "not-the-key", "HS256");
    expectNovuError(await inbox(forged, "GET", "/notifications"), 401, "unauthorized");
  });

  it("is not an environment key: an API key is a 401 here, a session token a 401 on the API", async () => {
    const { key } = await createEnvironment();
    const { token } = await startSession(key, unique("sub"));
    expectNovuError(await inbox(null, "GET", "/notifications", undefined, { authorization: `ApiKey ${key}` }), 401, "unauthorized");
    expect((await api(null, "GET", "/v1/subscribers", undefined, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});

describe("GET /novu/v1/inbox/notifications and /count", () => {
  it("serves no unsafe URL of a notification stored before sends left them out", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    await storeNotifications(id, subscriberId, [
      {
        content: {
          avatar: "javascript:alert(1)",
          redirect: { url: "javascript:alert(2)" },
          primaryAction: { label: "Go", redirect: { url: "javascript:alert(3)" } },
          secondaryAction: { label: "Orders", redirect: { url: "/orders" } },
        },
      },
    ]);
    const [notification] = (await list(token, "?limit=10")).body.data;
    expect(JSON.stringify(notification)).not.toContain("javascript:");
    expect(notification).toMatchObject({
      primaryAction: { label: "Go" },
      secondaryAction: { label: "Orders", redirect: { url: "/orders" } },
    });
    const native = await api<{ data: Record<string, unknown>[] }>(key, "GET", `/v1/subscribers/${subscriberId}/notifications`);
    expect(JSON.stringify(native.body.data)).not.toContain("javascript:");
  });

  it("lists the subscriber's notifications in Novu's shape, and the counts agree", async () => {
    const { id, key } = await createEnvironment();
    const workflow = await createWorkflow(key, { name: "Order shipped", tags: ["orders"] });
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    const ids = await storeNotifications(id, subscriberId, [
      {
        workflowKey: workflow.key,
        tags: ["orders"],
        content: { subject: "S", primaryAction: { label: "Track" }, data: { orderId: "A-1" } },
      },
      { workflowKey: workflow.key, tags: ["billing"] },
    ]);
    const page = await list(token, "?limit=10&archived=false&snoozed=false");
    expect(page.status).toBe(200);
    expect(page.body.hasMore).toBe(false);
    expect(page.body.filter).toEqual({ archived: false, snoozed: false });
    expect(page.body.data.map((n) => n.id).sort()).toEqual([...ids].sort());
    const first = page.body.data.find((n) => n.id === ids[0])!;
    expect(first).toMatchObject({
      subject: "S",
      body: "Notification 0",
      to: { subscriberId },
      isRead: false,
      isSeen: false,
      isArchived: false,
      isSnoozed: false,
      channelType: "in_app",
      primaryAction: { label: "Track", isCompleted: false },
      data: { orderId: "A-1" },
      tags: ["orders"],
      workflow: { id: workflow.key, identifier: workflow.key, name: "Order shipped", critical: false, severity: "none" },
      severity: "none",
    });
    expect(await count(token, [{ read: false, archived: false, snoozed: false }, { tags: ["billing"] }, { severity: "high" }])).toEqual([
      2, 1, 0,
    ]);
    expect((await list(token, "?tags[]=orders")).body.data.map((n) => n.id)).toEqual([ids[0]]);
    expect(
      (await list(token, `?data=${encodeURIComponent(JSON.stringify({ orderId: ["A-1", "B-2"] }))}`)).body.data.map((n) => n.id),
    ).toEqual([ids[0]]);
  });

  it("pages with limit and after", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    const ids = await storeNotifications(id, subscriberId, [{}, {}, {}]);
    const first = await list(token, "?limit=2");
    expect(first.body.hasMore).toBe(true);
    const second = await list(token, `?limit=2&after=${first.body.data.at(-1)!.id}`);
    expect(second.body.hasMore).toBe(false);
    expect([...first.body.data, ...second.body.data].map((n) => n.id).sort()).toEqual([...ids].sort());
  });

  it.each([["?limit=0"], ["?limit=101"], ["?after=not-a-cursor"], ["?read=maybe"], ["?data=%7Bnot-json"], ["?severity=urgent"]])(
    "refuses %s with 422",
    async (query) => {
      const { key } = await createEnvironment();
      const { token } = await startSession(key, unique("sub"));
      expectNovuError(await list(token, query), 422, "validation_failed");
    },
  );

  it("refuses count filters that are not an array of filters", async () => {
    const { key } = await createEnvironment();
    const { token } = await startSession(key, unique("sub"));
    expectNovuError(
      await inbox(token, "GET", `/notifications/count?filters=${encodeURIComponent('{"read":1}')}`),
      422,
      "validation_failed",
    );
    expectNovuError(
      await inbox(token, "GET", `/notifications/count?filters=${encodeURIComponent('[{"read":"no"}]')}`),
      422,
      "validation_failed",
    );
  });
});

describe("PATCH /novu/v1/inbox/notifications/:id/*", () => {
  async function oneNotification() {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    const [notificationId] = await storeNotifications(id, subscriberId, [
      { content: { primaryAction: { label: "Accept" }, secondaryAction: { label: "Decline" } } },
    ]);
    return { key, token, subscriberId, environmentId: id, notificationId: notificationId! };
  }
  const patch = (token: string, id: string, action: string, body?: unknown) =>
    inbox<{ data: Notification }>(token, "PATCH", `/notifications/${id}/${action}`, body);

  it("reads, unreads, archives and unarchives, answering the notification in { data }, and the server API sees it", async () => {
    const { key, token, subscriberId, notificationId } = await oneNotification();
    expect((await patch(token, notificationId, "read")).body.data).toMatchObject({ id: notificationId, isRead: true, isSeen: true });
    const server = await api<{ data: { read: boolean }[] }>(key, "GET", `/v1/subscribers/${subscriberId}/notifications`);
    expect(server.body.data[0]!.read).toBe(true);
    expect((await patch(token, notificationId, "unread")).body.data).toMatchObject({ isRead: false, isSeen: true });
    expect((await patch(token, notificationId, "archive")).body.data).toMatchObject({ isArchived: true, isRead: true });
    expect((await patch(token, notificationId, "unarchive")).body.data).toMatchObject({ isArchived: false });
  });

  it("completes and reverts an action", async () => {
    const { token, notificationId } = await oneNotification();
    const done = await patch(token, notificationId, "complete", { actionType: "secondary" });
    expect(done.body.data.primaryAction).toMatchObject({ isCompleted: false });
    expect(done.body.data).toMatchObject({ secondaryAction: { label: "Decline", isCompleted: true } });
    const reverted = await patch(token, notificationId, "revert", { actionType: "secondary" });
    expect(reverted.body.data).toMatchObject({ secondaryAction: { isCompleted: false } });
  });

  it("snoozes: hidden from the unsnoozed list until snoozeUntil, then back on its own", async () => {
    const { token, notificationId, environmentId, subscriberId } = await oneNotification();
    const until = new Date(Date.now() + 3600_000).toISOString();
    expect((await patch(token, notificationId, "snooze", { snoozeUntil: until })).body.data).toMatchObject({
      isSnoozed: true,
      snoozedUntil: until,
    });
    expect((await list(token, "?snoozed=false")).body.data).toEqual([]);
    expect((await list(token, "?snoozed=true")).body.data.map((n) => n.id)).toEqual([notificationId]);
    expect(await count(token, [{ read: false, archived: false, snoozed: false }])).toEqual([0]);
    // The moment passes: no timer wakes it, the read does.
    await new LogStore(env).feedUpdate(
      environmentId,
      subscriberId,
      { snoozedUntil: Date.now() - 1000 },
      { ids: [notificationId] },
      Date.now(),
    );
    expect((await list(token, "?snoozed=false")).body.data).toMatchObject([{ id: notificationId, isSnoozed: false, snoozedUntil: null }]);
  });

  it("unsnoozes", async () => {
    const { token, notificationId } = await oneNotification();
    await patch(token, notificationId, "snooze", { snoozeUntil: new Date(Date.now() + 3600_000).toISOString() });
    expect((await patch(token, notificationId, "unsnooze")).body.data).toMatchObject({ isSnoozed: false });
    expect((await list(token, "?snoozed=false")).body.data).toHaveLength(1);
  });

  it.each([
    [{}],
    [{ snoozeUntil: "tomorrow" }],
    [{ snoozeUntil: new Date(Date.now() - 60_000).toISOString() }],
    [{ snoozeUntil: new Date(Date.now() + 91 * 24 * 3600_000).toISOString() }],
  ])("refuses to snooze with %j", async (body) => {
    const { token, notificationId } = await oneNotification();
    expectNovuError(await patch(token, notificationId, "snooze", body), 422, "validation_failed");
  });

  it("deletes from the Inbox; a second delete is a 404", async () => {
    const { token, notificationId } = await oneNotification();
    expect((await inbox(token, "DELETE", `/notifications/${notificationId}/delete`)).status).toBe(204);
    expect((await list(token)).body.data).toEqual([]);
    expectNovuError(await inbox(token, "DELETE", `/notifications/${notificationId}/delete`), 404, "message_not_found");
  });

  it.each(["read", "unread", "archive", "unarchive", "unsnooze"])(
    "answers 404 for another subscriber's notification (%s)",
    async (action) => {
      const { key, notificationId } = await oneNotification();
      const other = await startSession(key, unique("other"));
      expectNovuError(await patch(other.token, notificationId, action), 404, "message_not_found");
      expect((await list(other.token)).body.data).toEqual([]);
    },
  );

  it("answers 404 for another environment's notification, even for a subscriber with the same id", async () => {
    const { subscriberId, notificationId } = await oneNotification();
    const b = await createEnvironment();
    const { token } = await startSession(b.key, subscriberId);
    expectNovuError(await patch(token, notificationId, "read"), 404, "message_not_found");
    expectNovuError(await inbox(token, "DELETE", `/notifications/${notificationId}/delete`), 404, "message_not_found");
    expect((await list(token)).body.data).toEqual([]);
    expect(await count(token, [{}])).toEqual([0]);
  });
});

describe("POST /novu/v1/inbox/notifications/{read,archive,read-archive,seen,delete}", () => {
  async function three() {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    const ids = await storeNotifications(id, subscriberId, [{ tags: ["a"] }, { tags: ["b"] }, { tags: ["a", "b"] }]);
    // Another subscriber's notification, which no bulk change may touch.
    const other = unique("other");
    const [theirs] = await storeNotifications(id, other, [{ tags: ["a"] }]);
    return { key, token, ids, theirs: { environmentId: id, subscriberId: other, id: theirs! }, environmentId: id };
  }
  const states = async (token: string) =>
    Object.fromEntries((await list(token)).body.data.map((n) => [n.id, { read: n.isRead, seen: n.isSeen, archived: n.isArchived }]));
  const theirState = async (theirs: { environmentId: string; subscriberId: string; id: string }) => {
    const row = (await loggedFeed(theirs.environmentId, theirs.subscriberId)).find((r) => r.id === theirs.id);
    return row ? { read_at: row.readAt, seen_at: row.seenAt, archived_at: row.archivedAt } : null;
  };

  it("marks all read (narrowed by tags), then archives the read ones", async () => {
    const { token, ids, theirs } = await three();
    expect((await inbox(token, "POST", "/notifications/read", { tags: ["a"] })).status).toBe(204);
    let s = await states(token);
    expect([s[ids[0]!]!.read, s[ids[1]!]!.read, s[ids[2]!]!.read]).toEqual([true, false, true]);
    expect((await inbox(token, "POST", "/notifications/read-archive", {})).status).toBe(204);
    s = await states(token);
    expect([s[ids[0]!]!.archived, s[ids[1]!]!.archived, s[ids[2]!]!.archived]).toEqual([true, false, true]);
    expect(await theirState(theirs)).toEqual({ read_at: null, seen_at: null, archived_at: null });
  });

  it("archives all, and marks named notifications seen", async () => {
    const { token, ids } = await three();
    expect((await inbox(token, "POST", "/notifications/seen", { notificationIds: [ids[1]] })).status).toBe(204);
    expect(Object.values(await states(token)).filter((x) => x.seen)).toHaveLength(1);
    expect((await inbox(token, "POST", "/notifications/archive", {})).status).toBe(204);
    expect(Object.values(await states(token)).every((x) => x.archived && x.read)).toBe(true);
  });

  it("deletes all with an AND of tag groups", async () => {
    const { token, ids, theirs } = await three();
    expect((await inbox(token, "POST", "/notifications/delete", { tags: { and: [{ or: ["a"] }, { or: ["b"] }] } })).status).toBe(204);
    expect((await list(token)).body.data.map((n) => n.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(await theirState(theirs)).not.toBeNull();
  });

  it("refuses a data filter that is not JSON", async () => {
    const { token } = await three();
    expectNovuError(await inbox(token, "POST", "/notifications/read", { data: "{" }), 422, "validation_failed");
  });
});

describe("/novu/v1/inbox/preferences", () => {
  async function setup() {
    const { key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    const steps = [
      { id: "bell", type: "in_app", template: { body: "Hi" } },
      { id: "mail", type: "email", template: { subject: "Hi", text: "Hi" } },
    ];
    const regular = await createWorkflow(key, { steps, tags: ["news"] });
    const critical = await createWorkflow(key, { steps, critical: true });
    return { key, token, subscriberId, regular: regular.key, critical: critical.key };
  }

  it("lists the global preference, then each non-critical workflow with the channels of its steps", async () => {
    const { token, regular, critical } = await setup();
    const res = await inbox<{ data: Preference[] }>(token, "GET", "/preferences?criticality=nonCritical");
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({
      level: "global",
      enabled: true,
      channels: { email: true, sms: true, push: true, chat: true, in_app: true },
    });
    expect(res.body.data.slice(1)).toEqual([
      expect.objectContaining({
        level: "template",
        enabled: true,
        channels: { email: true, in_app: true },
        workflow: expect.objectContaining({ id: regular }),
      }),
    ]);
    const all = await inbox<{ data: Preference[] }>(token, "GET", "/preferences?criticality=all");
    expect(all.body.data[0]!.level).toBe("global");
    expect(all.body.data.slice(1).map((p) => p.workflow?.id)).toEqual([regular, critical].sort());
    expect((await inbox<{ data: Preference[] }>(token, "GET", "/preferences?tags[]=other")).body.data).toHaveLength(1);
  });

  it("lists the channels of steps inside a workflow's branch paths", async () => {
    const { key, token } = await createEnvironment().then(async ({ key }) => ({ key, ...(await startSession(key, unique("sub"))) }));
    const branch = {
      id: "route",
      type: "branch",
      paths: [
        { id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: [{ id: "text", type: "sms", template: { body: "Hi" } }] },
      ],
      default: { steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hi" } }] },
    };
    const workflow = await createWorkflow(key, { steps: [{ id: "bell", type: "in_app", template: { body: "Hi" } }, branch] });
    const res = await inbox<{ data: Preference[] }>(token, "GET", "/preferences?criticality=nonCritical");
    expect(res.body.data.find((p) => p.workflow?.id === workflow.key)?.channels).toEqual({ email: true, sms: true, in_app: true });
  });

  it("changes a workflow's channel and the global flags in Clarion's preferences", async () => {
    const { key, token, subscriberId, regular } = await setup();
    const one = await inbox<{ data: Preference }>(token, "PATCH", `/preferences/${regular}`, { email: false });
    expect(one.body.data).toMatchObject({ level: "template", channels: { email: false, in_app: true }, enabled: true });
    const global = await inbox<{ data: Preference }>(token, "PATCH", "/preferences", { sms: false, schedule: { isEnabled: true } });
    expect(global.body.data).toMatchObject({ level: "global", channels: { sms: false, in_app: true } });
    expect((await inbox<{ data: Preference }>(token, "GET", "/preferences/global")).body.data.channels.sms).toBe(false);
    const stored = await api<{ channels: Record<string, boolean>; workflows: Record<string, unknown> }>(
      key,
      "GET",
      `/v1/subscribers/${subscriberId}/preferences`,
    );
    expect(stored.body.channels.sms).toBe(false);
    expect(stored.body.workflows[regular]).toEqual({ email: false });
    const bulk = await inbox<{ data: Preference[] }>(token, "PATCH", "/preferences/bulk", {
      preferences: [{ workflowId: regular, in_app: false, email: false }],
    });
    expect(bulk.body.data).toMatchObject([{ enabled: false, channels: { email: false, in_app: false } }]);
    // The subscriber made these changes in the team's app, not the team's backend: the timeline says so.
    const timeline = await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`);
    const reasons = timeline.body.data.filter((entry) => entry.type === "preferences_changed").map((entry) => entry.reason);
    expect(reasons).toEqual(["inbox", "inbox", "inbox"]);
  });

  it("refuses to change a critical workflow, alone or in bulk", async () => {
    const { token, regular, critical } = await setup();
    expectNovuError(await inbox(token, "PATCH", `/preferences/${critical}`, { email: false }), 422, "workflow_critical");
    expectNovuError(
      await inbox(token, "PATCH", "/preferences/bulk", {
        preferences: [
          { workflowId: regular, email: false },
          { workflowId: critical, email: false },
        ],
      }),
      422,
      "workflow_critical",
    );
    const listed = await inbox<{ data: Preference[] }>(token, "GET", "/preferences");
    expect(listed.body.data.find((p) => p.workflow?.id === regular)?.channels.email).toBe(true);
  });

  it("answers 404 for an unknown workflow", async () => {
    const { token } = await setup();
    expectNovuError(await inbox(token, "PATCH", "/preferences/no-such-workflow", { email: false }), 404, "workflow_not_found");
  });
});

describe("CORS on /novu/v1/inbox", () => {
  it("answers the preflight of any origin with the headers @novu/js sends", async () => {
    const res = await SELF.fetch("http://clarion.test/novu/v1/inbox/notifications", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.customer.example",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization,content-type,novu-api-version,novu-client-version,novu-application-identifier",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(",");
    for (const h of [
      "authorization",
      "content-type",
      "novu-api-version",
      "novu-client-version",
      "novu-application-identifier",
      "novu-user-agent",
      "user-agent",
    ]) {
      expect(allowed).toContain(h);
    }
  });

  it("lets the browser read answers and errors alike", async () => {
    const { key } = await developmentEnvironment();
    const session = await inbox(
      null,
      "POST",
      "/session",
      { applicationIdentifier: (await settingsOf(key)).applicationIdentifier, subscriber: { subscriberId: "x" } },
      { origin: "https://a.example" },
    );
    expect(session.headers.get("access-control-allow-origin")).toBe("*");
    const refused = await inbox(null, "GET", "/notifications", undefined, { origin: "https://a.example" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("is not opened on Novu's keyed API", async () => {
    const res = await SELF.fetch("http://clarion.test/novu/v1/subscribers", {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

it("answers 404, not the API key's 401, for an unknown Inbox path", async () => {
  const { key } = await createEnvironment();
  const { token } = await startSession(key, unique("sub"));
  expectNovuError(await inbox(token, "GET", "/nothing-here"), 404, "not_found");
});

describe("bad input never answers 5xx", () => {
  let token: string;
  let notificationId: string;
  let applicationIdentifier: string;
  beforeAll(async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    ({ token } = await startSession(key, subscriberId));
    [notificationId] = (await storeNotifications(id, subscriberId, [{}])) as [string];
    applicationIdentifier = (await settingsOf(key)).applicationIdentifier;
  });

  const anyJson = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(
      fc.constantFrom(
        "applicationIdentifier",
        "subscriberHash",
        "subscriber",
        "subscriberId",
        "tags",
        "data",
        "snoozeUntil",
        "actionType",
        "notificationIds",
        "preferences",
        "email",
        "in_app",
      ),
      fc.jsonValue(),
    ),
  );
  const STATE_PATHS = ["read", "unread", "archive", "unarchive", "snooze", "unsnooze", "complete", "revert"];

  it("on the session", async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, fc.boolean(), async (body, withApp) => {
        const sent =
          withApp && typeof body === "object" && body !== null && !Array.isArray(body) ? { ...body, applicationIdentifier } : body;
        const res = await inbox(null, "POST", "/session", sent);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  it("on the state, bulk and preference routes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          ...STATE_PATHS.map((p) => ["PATCH", `/notifications/{id}/${p}`]),
          ["DELETE", "/notifications/{id}/delete"],
          ...["read", "archive", "read-archive", "seen", "delete"].map((p) => ["POST", `/notifications/${p}`]),
          ["PATCH", "/preferences"],
          ["PATCH", "/preferences/bulk"],
          ["PATCH", "/preferences/{id}"],
        ),
        fc.oneof(fc.constant(notificationId), fc.string(), fc.constant("%00"), fc.constant("a".repeat(300))),
        anyJson,
        async ([method, path], id, body) => {
          const res = await inbox(token, method!, path!.replace("{id}", encodeURIComponent(id)), body);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("on the list and count queries", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "limit",
          "after",
          "offset",
          "read",
          "archived",
          "snoozed",
          "seen",
          "data",
          "severity",
          "tags[]",
          "tags[0][]",
          "createdGte",
          "filters",
        ),
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        fc.boolean(),
        async (name, value, isCount) => {
          const res = await inbox(token, "GET", `/notifications${isCount ? "/count" : ""}?${new URLSearchParams({ [name]: value })}`);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 120 },
    );
  });
});
