import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InAppCounts, InAppNotification } from "../../src/features/in-app/schemas";
import { createEnvironment, unique } from "../factories";
import { loggedFeed } from "../log";
import { api, expectProblem } from "../request";
import { createWorkflow, messageDetail, settledMessages, trigger } from "./helpers";

type Page = { data: InAppNotification[]; nextCursor: string | null };

const feed = (key: string, subscriberId: string, query = "") =>
  api<Page>(key, "GET", `/v1/subscribers/${subscriberId}/notifications${query}`);
const counts = async (key: string, subscriberId: string, query = "") =>
  (await api<InAppCounts>(key, "GET", `/v1/subscribers/${subscriberId}/notifications/counts${query}`)).body;

const IN_APP_STEP = {
  id: "bell",
  type: "in_app",
  template: {
    subject: "Order {{ payload.orderId }}",
    body: "Hi {{ subscriber.firstName }}, order {{ payload.orderId }} shipped",
    avatar: "https://cdn.example.com/{{ payload.orderId }}.png",
    primaryAction: { label: "Track", redirect: { url: "https://shop.example.com/o/{{ payload.orderId }}", target: "_blank" } },
    data: { orderId: "{{ payload.orderId }}" },
  },
};

/** An environment with no integration at all: the in-app channel needs none. */
async function inAppSetup(steps: unknown[] = [IN_APP_STEP], tags = ["orders"]) {
  const { key, id } = await createEnvironment();
  const workflow = await createWorkflow(key, { steps, tags });
  return { key, workflow: workflow.key, environmentId: id };
}

async function deliverTo(key: string, workflow: string, subscriberId: string, orderId = "A-1") {
  const transactionId = await trigger(key, { workflow, to: { subscriberId, firstName: "Ada" }, payload: { orderId } });
  const [message] = await settledMessages(key, transactionId, 1);
  return message!;
}

describe("in_app channel", () => {
  it("stores the rendered notification without any integration and records the message delivered", async () => {
    const { key, workflow, environmentId } = await inAppSetup();
    const subscriberId = unique("sub");
    const message = await deliverTo(key, workflow, subscriberId);
    // In the subscriber's log shard with the message (same id), none in D1.
    expect((await loggedFeed(environmentId, subscriberId)).map((n) => n.id)).toEqual([message.id]);
    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM in_app_notifications WHERE environment_id = ?")
      .bind(environmentId)
      .first<{ n: number }>();
    expect(inD1?.n).toBe(0);
    expect(message).toMatchObject({ status: "delivered", channel: "in_app", provider: "clarion", to: subscriberId, subject: "Order A-1" });
    const detail = await messageDetail(key, message.id);
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "delivered"]);

    const page = await feed(key, subscriberId);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0]).toMatchObject({
      id: message.id,
      workflow,
      subject: "Order A-1",
      body: "Hi Ada, order A-1 shipped",
      avatar: "https://cdn.example.com/A-1.png",
      primaryAction: { label: "Track", redirect: { url: "https://shop.example.com/o/A-1", target: "_blank" } },
      data: { orderId: "A-1" },
      tags: ["orders"],
      read: false,
      seen: false,
      archived: false,
    });
    expect(await counts(key, subscriberId)).toEqual({ total: 1, unread: 1, unseen: 1, archived: 0 });
  });

  it("takes a trigger's overrides.in_app over the rendered fields", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    const transactionId = await trigger(key, {
      workflow,
      to: { subscriberId },
      payload: { orderId: "O-1" },
      overrides: { in_app: { subject: "Overridden", primaryAction: { label: "Open" }, avatar: 42 } },
    });
    await settledMessages(key, transactionId, 1);
    expect((await feed(key, subscriberId)).body.data[0]).toMatchObject({
      subject: "Overridden",
      primaryAction: { label: "Open" },
      avatar: "https://cdn.example.com/O-1.png",
    });
  });

  it("skips the step for a subscriber who opted out of in_app", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    await api(key, "POST", "/sub", { subscriberId });
    const put = await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { in_app: false } });
    expect(put.status).toBe(200);
    const transactionId = await trigger(key, { workflow, to: subscriberId, payload: { orderId: "A-2" } });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "skipped", error: null });
    expect((await feed(key, subscriberId)).body).toEqual({ data: [], nextCursor: null });
  });

  it("previews an in_app step as it will be stored", async () => {
    const { key } = await createEnvironment();
    const res = await api<{ steps: { id: string; content: Record<string, unknown> }[] }>(key, "POST", "/v1/workflows/preview", {
      workflow: { steps: [IN_APP_STEP] },
      payload: { orderId: "V-1" },
      subscriber: { firstName: "Ada" },
    });
    expect(res.status).toBe(200);
    expect(res.body.steps[0]?.content).toEqual({
      subject: "Order V-1",
      body: "Hi Ada, order V-1 shipped",
      avatar: "https://cdn.example.com/V-1.png",
      primaryAction: { label: "Track", redirect: { url: "https://shop.example.com/o/V-1", target: "_blank" } },
      data: { orderId: "V-1" },
    });
  });

  it("refuses an in_app step without a body", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/workflows", {
      key: unique("wf").toLowerCase(),
      name: "No body",
      steps: [{ id: "bell", type: "in_app", template: { subject: "Hi" } }],
    });
    expectProblem(res, 422, "validation_failed");
  });
});

describe("/v1/subscribers/{subscriberId}/notifications", () => {
  it("marks read (and so seen) with exact counts and the message's tracking events", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    const message = await deliverTo(key, workflow, subscriberId);
    await deliverTo(key, workflow, subscriberId, "A-2");

    const patched = await api<InAppNotification>(key, "PATCH", `/v1/subscribers/${subscriberId}/notifications/${message.id}`, {
      read: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: message.id, read: true, seen: true, archived: false });
    expect(await counts(key, subscriberId)).toEqual({ total: 2, unread: 1, unseen: 1, archived: 0 });
    const detail = await messageDetail(key, message.id);
    expect(detail.events.map((e) => e.status)).toEqual(expect.arrayContaining(["delivered", "seen", "read"]));
    expect(detail.status).toBe("read");

    const unread = await api<InAppNotification>(key, "PATCH", `/v1/subscribers/${subscriberId}/notifications/${message.id}`, {
      read: false,
    });
    expect(unread.body).toMatchObject({ read: false, seen: true, readAt: null });
    expect((await feed(key, subscriberId, "?read=false")).body.data).toHaveLength(2);
  });

  it("pages newest first and filters by read, archived, tags and workflow", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    const first = await deliverTo(key, workflow, subscriberId, "P-1");
    const second = await deliverTo(key, workflow, subscriberId, "P-2");
    const third = await deliverTo(key, workflow, subscriberId, "P-3");

    const one = await feed(key, subscriberId, "?limit=2");
    expect(one.body.data.map((n) => n.id)).toEqual([third.id, second.id]);
    const two = await feed(key, subscriberId, `?limit=2&cursor=${one.body.nextCursor}`);
    expect(two.body.data.map((n) => n.id)).toEqual([first.id]);
    expect(two.body.nextCursor).toBeNull();

    await api(key, "PATCH", `/v1/subscribers/${subscriberId}/notifications/${second.id}`, { archived: true });
    expect((await feed(key, subscriberId, "?archived=true")).body.data.map((n) => n.id)).toEqual([second.id]);
    expect((await feed(key, subscriberId, "?archived=false")).body.data.map((n) => n.id)).toEqual([third.id, first.id]);
    expect((await feed(key, subscriberId, "?tags=orders,other")).body.data).toHaveLength(3);
    expect((await feed(key, subscriberId, "?tags=other")).body.data).toHaveLength(0);
    expect((await feed(key, subscriberId, `?workflow=${workflow}`)).body.data).toHaveLength(3);
    expect(await counts(key, subscriberId)).toEqual({ total: 3, unread: 2, unseen: 2, archived: 1 });
    expectProblem(await feed(key, subscriberId, "?cursor=nope"), 400, "bad_request");
    expectProblem(await feed(key, subscriberId, "?read=maybe"), 422, "validation_failed");
  });

  it("marks all read, then all archived, counting what changed", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    const first = await deliverTo(key, workflow, subscriberId, "M-1");
    await deliverTo(key, workflow, subscriberId, "M-2");
    await api(key, "PATCH", `/v1/subscribers/${subscriberId}/notifications/${first.id}`, { read: true });

    const read = await api<{ updated: number; counts: InAppCounts }>(
      key,
      "POST",
      `/v1/subscribers/${subscriberId}/notifications/mark-all`,
      {
        read: true,
      },
    );
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ updated: 1, counts: { total: 2, unread: 0, unseen: 0, archived: 0 } });

    const archived = await api<{ updated: number; counts: InAppCounts }>(
      key,
      "POST",
      `/v1/subscribers/${subscriberId}/notifications/mark-all`,
      { archived: true, filter: { tags: ["orders"] } },
    );
    expect(archived.body).toEqual({ updated: 2, counts: { total: 2, unread: 0, unseen: 0, archived: 2 } });
    expectProblem(await api(key, "POST", `/v1/subscribers/${subscriberId}/notifications/mark-all`, {}), 422, "validation_failed");
  });

  it("answers 404 for another subscriber's or another environment's notification", async () => {
    const { key, workflow } = await inAppSetup();
    const owner = unique("sub");
    const message = await deliverTo(key, workflow, owner);
    const other = unique("sub");
    expectProblem(
      await api(key, "PATCH", `/v1/subscribers/${other}/notifications/${message.id}`, { read: true }),
      404,
      "message_not_found",
    );
    const elsewhere = await createEnvironment();
    expectProblem(
      await api(elsewhere.key, "PATCH", `/v1/subscribers/${owner}/notifications/${message.id}`, { read: true }),
      404,
      "message_not_found",
    );
    expectProblem(await feed(elsewhere.key, owner), 404, "subscriber_not_found");
    expect(await counts(key, owner)).toEqual({ total: 1, unread: 1, unseen: 1, archived: 0 });
  });

  it("is emptied when the subscriber is erased", async () => {
    const { key, workflow, environmentId } = await inAppSetup();
    const subscriberId = unique("sub");
    await deliverTo(key, workflow, subscriberId);
    expect(await loggedFeed(environmentId, subscriberId)).toHaveLength(1);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    expectProblem(await feed(key, subscriberId), 404, "subscriber_not_found");
    expect(await loggedFeed(environmentId, subscriberId)).toEqual([]);
  });
});

describe("in_app URLs (only https:, http: and relative paths are served)", () => {
  const step = (template: Record<string, unknown>, locales?: Record<string, unknown>) => ({
    id: "bell",
    type: "in_app",
    template: { body: "Hi", ...template },
    ...(locales ? { locales } : {}),
  });

  it.each([
    ["redirect.url", step({ redirect: { url: "javascript:alert(1)" } }), "steps.0.template.redirect.url"],
    [
      "primaryAction",
      step({ primaryAction: { label: "Go", redirect: { url: "JavaScript:alert(1)" } } }),
      "steps.0.template.primaryAction.redirect.url",
    ],
    [
      "secondaryAction",
      step({ secondaryAction: { label: "Go", redirect: { url: "data:text/html,x" } } }),
      "steps.0.template.secondaryAction.redirect.url",
    ],
    ["avatar", step({ avatar: "java\tscript:alert(1)" }), "steps.0.template.avatar"],
    ["a literal scheme before Liquid", step({ redirect: { url: "javascript:{{ payload.code }}" } }), "steps.0.template.redirect.url"],
    ["a locale's variant", step({}, { de: { redirect: { url: "javascript:alert(1)" } } }), "steps.0.locales.de.redirect.url"],
  ])("refuses a literal unsafe URL in %s at save with 422 and its path", async (_label, bad, path) => {
    const { key } = await createEnvironment();
    const problem = expectProblem(
      await api(key, "POST", "/v1/workflows", { key: unique("wf"), name: "Bad", steps: [bad] }),
      422,
      "validation_failed",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("takes https:, http:, relative and Liquid-rendered URLs at save", async () => {
    const { key } = await createEnvironment();
    const good = step({
      avatar: "/avatars/{{ payload.id }}.png",
      redirect: { url: "{{ payload.url }}" },
      primaryAction: { label: "Go", redirect: { url: "https://shop.example.com/{{ payload.id }}" } },
      secondaryAction: { label: "Later", redirect: { url: "http://shop.example.com" } },
    });
    expect((await api(key, "POST", "/v1/workflows", { key: unique("wf"), name: "Good", steps: [good] })).status).toBe(201);
  });

  it("leaves out a rendered unsafe URL at send, and says so on the message's timeline", async () => {
    const { key, workflow } = await inAppSetup([
      step({
        avatar: "{{ payload.avatar }}",
        redirect: { url: "{{ payload.url }}" },
        primaryAction: { label: "Track", redirect: { url: "{{ payload.url }}" } },
        secondaryAction: { label: "Orders", redirect: { url: "/orders" } },
      }),
    ]);
    const subscriberId = unique("sub");
    const transactionId = await trigger(key, {
      workflow,
      to: { subscriberId },
      payload: { url: " javascript:alert(document.cookie)", avatar: "data:image/svg+xml,<svg onload=alert(1)>" },
    });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "delivered" });
    const [notification] = (await feed(key, subscriberId)).body.data;
    expect(notification).toMatchObject({
      avatar: null,
      redirect: null,
      primaryAction: { label: "Track" },
      secondaryAction: { label: "Orders", redirect: { url: "/orders" } },
    });
    expect(notification?.primaryAction?.redirect).toBeUndefined();
    const detail = await messageDetail(key, message!.id);
    const queued = detail.events.find((e) => e.status === "queued");
    expect((queued?.detail as { warnings?: { field: string }[] } | undefined)?.warnings?.map((w) => w.field)).toEqual([
      "avatar",
      "redirect.url",
      "primaryAction.redirect.url",
    ]);
    expect(JSON.stringify(detail)).not.toContain("javascript:");
  });

  it("leaves out an unsafe URL given in overrides.in_app", async () => {
    const { key, workflow } = await inAppSetup();
    const subscriberId = unique("sub");
    const transactionId = await trigger(key, {
      workflow,
      to: { subscriberId },
      payload: { orderId: "O-2" },
      overrides: { in_app: { redirect: { url: "javascript:alert(1)" } } },
    });
    await settledMessages(key, transactionId, 1);
    expect((await feed(key, subscriberId)).body.data[0]).toMatchObject({ redirect: null, avatar: "https://cdn.example.com/O-2.png" });
  });
});
